// What the events routes and the scheduler read: the scheduler's tick and the lists go by the
// store's index, so a finished event is never read whole by them (the lists read the heads of one
// page); and a pending event that is not started within its lifetime is cancelled by the server.
import t from 'tap';
import type { ManualClock } from '../../../src/domain/clock.js';
import type { TournamentHead, TournamentRecord } from '../../../src/domain/tournaments.js';
import { MemoryStore } from '../../../src/store/memory.js';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { StoreProxy } from '../../helpers/store-proxy.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

const HOUR = 3_600_000;

/** Counts the reads of each event, whole and head only. */
class CountingStore extends StoreProxy {
  readonly whole = new Map<string, number>();
  readonly heads = new Map<string, number>();
  constructor() {
    super(new MemoryStore());
  }
  override getTournament(id: string): TournamentRecord | undefined {
    this.whole.set(id, (this.whole.get(id) ?? 0) + 1);
    return super.getTournament(id);
  }
  override getTournamentHead(id: string): TournamentHead | undefined {
    this.heads.set(id, (this.heads.get(id) ?? 0) + 1);
    return super.getTournamentHead(id);
  }
  reset(): void {
    this.whole.clear();
    this.heads.clear();
  }
}

t.test('the tick and the lists read no finished event whole; the tick reads none at all', async (t) => {
  const store = new CountingStore();
  const app = await bootApp(t, { store, overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'hosts', 'rita');
  await Bot.register(app, 'guests', 'rex');
  const finished: string[] = [];
  // A second apart each: the lists order by creation time (ties by id).
  for (let i = 0; i < 3; i++) {
    (app.clock as ManualClock).advance(1000);
    const r = await host.req('POST', '/events', { name: `m${i}`, format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED });
    finished.push((r.json as Json).eventId);
    t.equal((await waitEvent(app, finished[i])).state, 'finished');
  }
  (app.clock as ManualClock).advance(1000);
  const pending = await host.req('POST', '/events', { name: 'p', format: 'match', players: [HOUSE_GREEDY, { team: 'guests', name: 'rex' }], timeControl: UNLIMITED });
  t.equal((pending.json as Json).state, 'pending');
  const readOf = (m: Map<string, number>) => finished.reduce((n, id) => n + (m.get(id) ?? 0), 0);

  store.reset();
  for (let i = 0; i < 5; i++) {
    (app.clock as ManualClock).advance(app.config.events.tickMs);
    await app.server.tournaments.round();
  }
  t.equal(readOf(store.whole) + readOf(store.heads), 0, 'five ticks read no finished event');

  const list = (await app.req('GET', '/events')).json as Json;
  t.same(list.events.map((e: Json) => e.state), ['pending', 'finished', 'finished', 'finished'], 'GET /events lists them all, newest first');
  t.same(list.events.slice(1).map((e: Json) => e.pairsFinished), [1, 1, 1], 'with their finished pairs');
  const mine = (await host.req('GET', '/bot/events')).json as Json;
  t.equal(mine.events.length, 4, 'GET /bot/events too');
  const again = await host.req('POST', '/events', { name: 'q', format: 'match', players: [HOUSE_GREEDY, { team: 'guests', name: 'rex' }], timeControl: UNLIMITED });
  t.equal(again.status, 201, 'POST /events');
  t.equal(readOf(store.whole), 0, 'no finished event read whole');
  t.equal(readOf(store.heads), 2 * finished.length, 'one head per list shown');
});

t.test('a pending event not started within its lifetime is cancelled, its invitations with it', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100, 'events.pendingTtlMs': HOUR, 'events.openPerHost': 2 } });
  const clock = app.clock as ManualClock;
  const host = await Bot.register(app, 'hosts', 'rita');
  const rex = await Bot.register(app, 'guests', 'rex');
  const body = { name: 'p', format: 'match', players: [HOUSE_GREEDY, { team: 'guests', name: 'rex' }], timeControl: UNLIMITED };
  const first = ((await host.req('POST', '/events', body)).json as Json).eventId;
  const stream = new EventStream(await app.stream(`/events/${first}/stream`), 60_000);
  t.teardown(() => stream.reader.destroy());
  t.ok((await stream.next())?.EventState, 'the stream opens with the event');
  clock.advance(HOUR / 2);
  const second = ((await host.req('POST', '/events', body)).json as Json).eventId;
  t.equal((await host.req('POST', '/events', body)).status, 429, 'the host has two pending events: its cap');

  clock.advance(HOUR / 2 - 1);
  await app.server.tournaments.round();
  t.equal(((await app.req('GET', `/events/${first}`)).json as Json).state, 'pending', 'not yet: a millisecond short of its lifetime');
  clock.advance(1);
  await app.server.tournaments.round();
  const ev = (await app.req('GET', `/events/${first}`)).json as Json;
  t.equal(ev.state, 'cancelled', 'cancelled once its lifetime is over');
  t.match(ev.note, /^expired/, 'saying why');
  t.equal(ev.finishedAt, clock.now());
  t.same((await stream.next())?.EventEnded, { eventId: first, state: 'cancelled', verdict: null, seed: ev.seed }, 'its stream ends');
  t.equal(((await app.req('GET', `/events/${second}`)).json as Json).state, 'pending', 'the younger one waits on');
  const late = await rex.req('POST', `/events/${first}/accept`);
  t.equal(late.status, 409, 'the invitation is gone with it');
  t.equal((late.json as Json).code, 'event_started');
  const rexs = (await rex.req('GET', '/bot/events')).json as Json;
  t.same(rexs.events.map((e: Json) => [e.eventId, e.state]), [[second, 'pending'], [first, 'cancelled']], 'the invited bot sees it over');
  t.equal((await host.req('POST', '/events', body)).status, 201, 'its place is free again');
  clock.advance(HOUR / 2);
  await app.server.tournaments.round();
  t.equal(((await app.req('GET', `/events/${second}`)).json as Json).state, 'cancelled', 'the second in its turn');
});
