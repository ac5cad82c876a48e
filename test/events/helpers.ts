// Shared steps of the events tests: host an event over HTTP and wait for it to end.
import type { TestApp } from '../helpers/app.js';
import type { Json } from '../helpers/bot.js';

export const UNLIMITED = { Unlimited: {} };
export const HOUSE_RANDOM = { team: 'house', name: 'random' };
export const HOUSE_GREEDY = { team: 'house', name: 'greedy' };

const pause = () => new Promise((r) => setTimeout(r, 20));

/** Polls GET /events/{id} until `done` holds (or about a minute passes); returns the last view. */
export async function waitEvent(app: TestApp, id: string, done: (ev: Json) => boolean = (ev) => ev.state === 'finished' || ev.state === 'cancelled'): Promise<Json> {
  for (let i = 0; i < 3000; i++) {
    const r = await app.req('GET', `/events/${id}`);
    if (r.status !== 200) throw new Error(`GET /events/${id}: ${r.status} ${r.text}`);
    if (done(r.json)) return r.json;
    await pause();
  }
  throw new Error(`event ${id} did not get there`);
}

/** Reads an ndjson export into parsed lines. */
export async function exportOf(app: TestApp, id: string): Promise<Json[]> {
  const r = await app.req('GET', `/events/${id}/games`);
  if (r.status !== 200) throw new Error(`GET /events/${id}/games: ${r.status} ${r.text}`);
  return r.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);
}
