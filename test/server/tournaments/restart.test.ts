// An event survives a restart on the same LMDB directory: finished pairs kept, the running pair
// resumed, and the schedule continued to the end with every pair played once.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { bootApp, diskDir, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

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
