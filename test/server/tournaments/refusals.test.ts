// Refused moves in event games count in the standings, for the player who sent them: an invited bot
// sends moves the server refuses (409) before resigning each of its games. The event stream, watched
// from before the start, carries only lines its wire schema (and so the AsyncAPI document) describes.
// A flood of refused moves costs the event at most one write a second, and none once it is over.
import t from 'tap';
import type { ManualClock } from '../../../src/domain/clock.js';
import type { TournamentRecord } from '../../../src/domain/tournaments.js';
import { MemoryStore } from '../../../src/store/memory.js';
import { StoreProxy } from '../../helpers/store-proxy.js';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { EventView } from '../../../src/wire/tournament-schemas.js';
import { EventLine } from '../../../src/wire/tournament-lines.js';
import { HOUSE_RANDOM, ResigningBot, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

t.test('each refused move of an event game counts for the bot that sent it; the stream matches its schema', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'rita');
  const guest = await new ResigningBot(await Bot.register(app, 'guests', 'rex'), 'none', 2).start();
  t.teardown(() => guest.close());
  const created = await host.req('POST', '/events', {
    name: 'refusals', format: 'match', players: [{ team: 'guests', name: 'rex' }, HOUSE_RANDOM], timeControl: UNLIMITED,
    pairsPerEncounter: 2,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId;
  const stream = new EventStream(await app.stream(`/events/${id}/stream`), 60_000);
  t.teardown(() => stream.reader.destroy());
  t.equal((await guest.bot.req('POST', `/events/${id}/accept`)).status, 200);
  const lines: Json[] = [];
  for (let l = await stream.next(); l !== undefined; l = await stream.next()) lines.push(l);
  t.same(lines.map((l) => Object.keys(l)[0]).filter((k, i, all) => all.indexOf(k) === i), ['EventState', 'PairStarted', 'PairFinished', 'EventEnded']);
  for (const l of lines) t.ok(EventLine.safeParse(l).success, `${Object.keys(l)[0]} matches the wire schema: ${JSON.stringify(EventLine.safeParse(l).error?.issues)}`);

  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  t.same(guest.refused, [409, 409, 409, 409, 409, 409, 409, 409], 'two moves refused in each of the four games');
  const row = (name: string) => ev.standings.find((s: Json) => s.name === name);
  t.equal(row('rex').refusedMoves, 8, 'every refusal counts for the bot that sent it');
  t.equal(row('random').refusedMoves, 0, 'none for its opponent');
  t.equal(row('rex').timeLosses, 0);
  t.ok(EventView.safeParse(ev).success, 'the view matches its wire schema');
});

/** Counts the writes of events. */
class CountingStore extends StoreProxy {
  eventWrites = 0;
  constructor() {
    super(new MemoryStore());
  }
  override putTournament(e: TournamentRecord, previous?: TournamentRecord): Promise<void> {
    this.eventWrites++;
    return super.putTournament(e, previous);
  }
}

t.test('refused moves are written at most once a second, and not at all once the event is over', async (t) => {
  const store = new CountingStore();
  const app = await bootApp(t, { store });
  const clock = app.clock as ManualClock;
  const host = await Bot.register(app, 'hosts', 'rita');
  const rex = await Bot.register(app, 'guests', 'rex');
  const created = await host.req('POST', '/events', { name: 'flood', format: 'match', players: [{ team: 'guests', name: 'rex' }, HOUSE_RANDOM], timeControl: UNLIMITED });
  const id = (created.json as Json).eventId;
  t.equal((await rex.req('POST', `/events/${id}/accept`)).status, 200);
  const ev = await waitEvent(app, id, (e) => e.pairs.length === 1);
  // Rex never moves: the Unlimited games stay live. A piece onto its own square is refused either way.
  const game = ev.pairs[0].games[0];
  const refuse = async (n: number) => {
    for (let i = 0; i < n; i++) t.equal((await rex.move(game, ['a1a1'])).status, 409);
  };
  await app.server.tournaments.round();
  let writes = store.eventWrites;
  await refuse(30);
  await app.server.tournaments.round();
  t.equal(store.eventWrites, writes, 'thirty refusals in no time: no write yet');
  clock.advance(app.config.events.tickMs);
  await app.server.tournaments.round();
  t.equal(store.eventWrites, writes + 1, 'a second later: one write for them all');
  const row = (e: Json) => e.standings.find((s: Json) => s.name === 'rex');
  t.equal(row((await app.req('GET', `/events/${id}`)).json as Json).refusedMoves, 30, 'all counted');

  t.equal((await host.req('POST', `/events/${id}/cancel`)).status, 200);
  writes = store.eventWrites;
  await refuse(30);
  clock.advance(5 * app.config.events.tickMs);
  await app.server.tournaments.round();
  t.equal(store.eventWrites, writes, 'after the cancel: refused moves write nothing');
  t.equal(row((await app.req('GET', `/events/${id}`)).json as Json).refusedMoves, 30, 'and count no more');
});
