// Shared steps of the events tests: host an event over HTTP and wait for it to end.
import type { TestApp } from './app.js';
import type { Bot, Json } from './bot.js';
import { EventStream } from './event-stream.js';

export const UNLIMITED = { Unlimited: {} };
export const HOUSE_RANDOM = { team: 'house', name: 'random' };
export const HOUSE_GREEDY = { team: 'house', name: 'greedy' };

const pause = () => new Promise((r) => setTimeout(r, 20));

/** The bot's own setting: these hosts may enter it into their events unasked (rated ones with `rated`). */
export async function trustHosts(bot: Bot, hosts: Bot[], rated = false): Promise<void> {
  const r = await bot.req('PUT', '/bot/account/event-hosts', { hosts: hosts.map((h) => ({ team: h.creds.team, name: h.creds.name })), rated });
  if (r.status !== 200) throw new Error(`PUT /bot/account/event-hosts: ${r.status} ${r.text}`);
}

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

/**
 * A stream bot for events: holds its account stream, accepts (or declines) every event invitation,
 * and resigns every game it is seated in the moment the game starts, so its games are short. Before
 * resigning it may send `refusals` moves the server refuses (409), each answer kept in `refused`.
 */
export class ResigningBot {
  readonly invitations: string[] = [];
  readonly games = new Set<string>();
  /** HTTP statuses of the refused moves sent. */
  readonly refused: number[] = [];
  private stream: EventStream | null = null;

  constructor(readonly bot: Bot, private readonly answer: 'accept' | 'decline' | 'none' = 'accept', private readonly refusals = 0) {}

  async start(): Promise<this> {
    this.stream = new EventStream(await this.bot.app.stream('/bot/stream/event', this.bot.token), 600_000);
    void this.loop();
    return this;
  }

  private async loop(): Promise<void> {
    try {
      for (let ev = await this.stream!.next(); ev !== undefined; ev = await this.stream!.next()) {
        if (ev.EventInvitation) {
          this.invitations.push(ev.EventInvitation.eventId);
          // Entered by its own setting: there is nothing to answer.
          if (this.answer !== 'none' && ev.EventInvitation.invitation === 'invited') await this.bot.req('POST', `/events/${ev.EventInvitation.eventId}/${this.answer}`);
        }
        if (ev.GameStart) {
          this.games.add(ev.GameStart.gameId);
          // A move no roll allows (a piece onto its own square): refused whether or not it is this bot's turn.
          for (let i = 0; i < this.refusals; i++) this.refused.push((await this.bot.move(ev.GameStart.gameId, ['a1a1'])).status);
          await this.bot.resign(ev.GameStart.gameId);
        }
      }
    } catch {
      // The server went away (teardown or a restart): the bot stops.
    }
  }

  close(): void {
    this.stream?.close();
  }
}
