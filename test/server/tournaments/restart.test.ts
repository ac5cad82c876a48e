// An event survives a restart on the same LMDB directory: finished pairs kept, the running pair
// resumed, and the schedule continued to the end with every pair played once; a cancelled one is
// settled and its seed published once nothing of it runs.
import { DB_NAMES, LmdbStore } from '../../../src/store/lmdb.js';
import { raw } from '../../helpers/store-fixtures.js';
import t from 'tap';
import { createHash } from 'node:crypto';
import { ManualClock } from '../../../src/domain/clock.js';
import { bootApp, diskDir, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

t.test('a match continues after a restart', async (t) => {
  const store = diskDir(t);
  let now = 1_700_000_000_000;
  const boot = async (): Promise<TestApp> => bootApp(t, { store: await store(), clock: new ManualClock(now, { runDueTimers: true }) });
  let app = await boot();
  const host = await Bot.register(app, 'hosts', 'rita');
  const created = await host.req('POST', '/events', {
    name: 'long match', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED, pairsPerEncounter: 4,
  });
  const id = (created.json as Json).eventId;
  const before = await waitEvent(app, id, (ev) => ev.pairs.length >= 2);
  t.equal(before.state, 'running');
  now = app.clock.now() + 60_000;
  await app.server.close();

  app = await boot();
  const resumed = (await app.req('GET', `/events/${id}`)).json as Json;
  t.equal(resumed.state, 'running', 'still running after the restart');
  t.same(resumed.pairs.slice(0, before.pairs.length).map((p: Json) => p.games), before.pairs.map((p: Json) => p.games), 'the pairs started before are kept');
  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  t.equal(ev.pairs.length, 4, 'every pair played, none twice');
  t.ok(ev.pairs.every((p: Json) => p.scores[0] !== null && p.scores[1] !== null), 'every pair has both results');
  t.same(ev.pairs.map((p: Json) => p.index), [0, 1, 2, 3]);
  t.equal(ev.standings[0].games + ev.standings[1].games, 16);
});

// A cancelled event whose pairs were still running when the server stopped: after the restart its
// pairs are settled (its games are followed again and scored as they end; a pair whose game is gone
// is void), and its seed is published once nothing of it runs. One event as this server stores a cancel
// (`cancelling`), one as the server before it did (`cancelled` at once, pairs still running).
t.test('a cancelled event with pairs in flight is settled after a restart', async (t) => {
  const store = diskDir(t);
  let now = 1_700_000_000_000;
  const boot = async (): Promise<TestApp> =>
    bootApp(t, { store: await store(), clock: new ManualClock(now, { runDueTimers: true }), overrides: { 'limits.registrationsPerHour': 100 } });
  let app = await boot();
  const host = await Bot.register(app, 'keep', 'host');
  // Bots that trust the host (in at once) and never move: their games end on time (60 s, one game each side).
  const bots = await Promise.all(['a', 'b', 'c', 'd'].map((n) => Bot.register(app, 'keep', n)));
  for (const b of bots) await app.server.store.updateBot({ ...app.server.store.getBot(b.id)!, capacity: 4 });
  for (const b of bots) await trustHosts(b, [host]);
  const match = async (x: string, y: string): Promise<string> => {
    const r = await host.req('POST', '/events', {
      name: `${x}-${y}`, format: 'match', players: [{ team: 'keep', name: x }, { team: 'keep', name: y }],
      timeControl: { SuddenDeath: { initialSeconds: 60 } }, pairsPerEncounter: 2, concurrency: 2,
    });
    return (r.json as Json).eventId;
  };
  const cancelling = await match('a', 'b');
  const legacy = await match('c', 'd');
  await app.server.tournaments.round();
  for (const id of [cancelling, legacy]) {
    const r = await host.req('POST', `/events/${id}/cancel`);
    t.equal((r.json as Json).state, 'cancelling', 'two pairs run: they play on');
  }
  now = app.clock.now() + 1_000;
  await app.server.close();

  // The second event as the server before this one stored a cancel, with one pair's games lost.
  // Stored as it stored events then: the whole record under its id.
  const s = await store();
  const old = s.getTournament(legacy)!;
  const dir = (s as LmdbStore).dir;
  await s.close();
  await raw(dir, DB_NAMES.events, (db) => db.put(legacy, {
    ...old, state: 'cancelled', finishedAt: now,
    pairs: old.pairs.map((p) => (p.index === 1 ? { ...p, games: ['gone-game-0001a', 'gone-game-0001b'] } : p)),
  }));

  now += 60_000;
  app = await boot();
  // The time the server was down is not charged: the games run out of time now, after the restart.
  (app.clock as ManualClock).advance(61_000);
  for (const id of [cancelling, legacy]) {
    const ev = await waitEvent(app, id, (e) => e.state === 'cancelled' && e.seed !== null);
    t.equal(ev.pairsRunning, 0, `${id}: nothing runs`);
    t.equal(ev.seed, app.server.store.getTournament(id)!.seed, `${id}: the seed is published`);
    t.equal(createHash('sha256').update(Buffer.from(ev.seed, 'hex')).digest('hex'), ev.commit, `${id}: it matches the commitment`);
    const lines = (await app.req('GET', `/events/${id}/games`)).text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);
    for (const g of lines.slice(1).map((l) => l.Game)) t.equal(g.termination, 'Timeout', `${id}: pair ${g.pair} game ${g.game} ended on time`);
    const streamed = await new EventStream(await app.stream(`/events/${id}/stream`)).rest();
    t.same(streamed.map((l) => Object.keys(l)[0]), ['EventState', 'EventEnded'], `${id}: a follower gets the end at once`);
    t.equal(streamed[1].EventEnded.seed, ev.seed);
  }
  const a = (await app.req('GET', `/events/${cancelling}`)).json as Json;
  t.ok(a.pairs.every((p: Json) => p.scores.every((x: unknown) => x !== null) && !p.void), 'its games, ended after the restart, are scored');
  t.equal(a.standings[0].timeLosses + a.standings[1].timeLosses, 4, 'four time losses');
  const b = (await app.req('GET', `/events/${legacy}`)).json as Json;
  t.ok(b.pairs[0].scores.every((x: unknown) => x !== null) && !b.pairs[0].void, 'the legacy event: its pair with games is scored');
  t.equal(b.pairs[1].void, true, 'its pair whose games are gone is void');
  t.equal(b.standings[0].games + b.standings[1].games, 4, 'and does not count');
});
