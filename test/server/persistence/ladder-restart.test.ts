// A mirror pair across two server restarts on one LMDB directory: after the first, the game that ran
// ahead still waits for its partner and the partner's pending roll is the same; after the second,
// with one game ended, its reveal is still withheld until the other ends too.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { bootApp, diskDir, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { randomPath, type Tree } from '../../helpers/play.js';
import { until } from '../../helpers/poll.js';
import { prng as rng } from '../../helpers/prng.js';

t.test('a mirror pair survives restarts: lockstep and withholding resume', async (t) => {
  const store = diskDir(t);
  let now = 1_700_000_000_000;
  const boot = async (): Promise<TestApp> => bootApp(t, { store: await store(), clock: new ManualClock(now, { runDueTimers: true }) });
  const bots: Bot[] = [];
  const restart = async (old: TestApp): Promise<TestApp> => {
    now = old.clock.now() + 60_000;
    await old.server.close();
    const fresh = await boot();
    // Same identities (the tokens are stored), talking to the new server.
    bots.splice(0, bots.length, ...bots.map((b) => new Bot(fresh, b.creds)));
    return fresh;
  };
  const state = async (app: TestApp, id: string): Promise<Json> => (await app.req('GET', `/games/${id}`)).json;
  const random = rng(8);

  let app = await boot();
  for (const name of ['alpha', 'beta']) {
    const b = await Bot.register(app, 'ladder', name);
    t.equal((await b.req('POST', '/bot/ladder/join')).status, 200);
    await app.server.store.updateBot({ ...app.server.store.getBot(b.id)!, capacity: 2 });
    bots.push(b);
  }
  // Polling bots: an authenticated request within the last minute makes them reachable.
  t.equal(await app.server.scheduler.round(), 1, 'a polling pair is paired');
  const [g1, g2] = (await bots[0].myGames()).map((g: Json) => g.gameId as string);
  const botTo = async (id: string): Promise<Bot> => ((await state(app, id)).activeSeat === (app.server.store.getGame(id)!.white.id === bots[0].id ? 'White' : 'Black') ? bots[0] : bots[1]);
  const play = async (id: string): Promise<Json> => {
    const moves = (await app.req('GET', `/games/${id}/moves`)).json as { legalMoves: Tree };
    return (await (await botTo(id)).move(id, randomPath(moves.legalMoves, random))).json;
  };
  await until(async () => ((await state(app, g1)).dicePending ? true : undefined), 'the opening roll');
  t.match(await play(g1), { applied: true }, 'g1 plays its first decision');
  if (!(await state(app, g1)).status.Active) return t.fail('king captured at once');
  t.equal((await state(app, g1)).dicePending, false, 'g1 waits for g2');
  const g2Before = await state(app, g2);
  t.equal(g2Before.dicePending, true);

  app = await restart(app);
  t.same(((await app.req('GET', '/games')).json as Json).games.map((g: Json) => g.gameId).sort(), [g1, g2].sort(), 'both games resumed');
  t.equal((await state(app, g1)).dicePending, false, 'g1 still waits after the restart');
  t.equal((await state(app, g2)).dfen, g2Before.dfen, 'g2 keeps its pending roll');
  t.match(await play(g2), { applied: true }, 'g2 catches up');
  // The verdict comes before the next roll is made: wait (bounded) until both games have settled.
  const settled = (s: Json): boolean => s.dicePending || !s.status.Active;
  const [s1, s2] = await until(async () => {
    const both = [await state(app, g1), await state(app, g2)];
    return both.every(settled) ? both : undefined;
  }, 'both games to roll');
  if (!s1.status.Active || !s2.status.Active) return t.fail('king captured');
  t.ok(s1.dicePending && s2.dicePending, 'both publish the next roll');
  t.equal(s1.dfen.split(' ')[6]?.toLowerCase(), s2.dfen.split(' ')[6]?.toLowerCase(), 'the same dice');
  t.equal((await bots[0].resign(g1)).status, 202);
  await until(async () => ('Ended' in (await state(app, g1)).status ? true : undefined), 'g1 to end after its resignation');
  t.same([(await state(app, g1)).seed, ((await app.req('GET', `/games/${g1}/history`)).json as Json).seed], [null, null], 'g1 ended: withheld');

  app = await restart(app);
  t.same(((await app.req('GET', '/games')).json as Json).games.map((g: Json) => g.gameId), [g2], 'only g2 is live');
  t.equal((await state(app, g1)).seed, null, 'still withheld after the restart');
  t.equal((await bots[1].resign(g2)).status, 202);
  await until(async () => ('Ended' in (await state(app, g2)).status ? true : undefined), 'g2 to end after its resignation');
  const seed = (await state(app, g2)).seed as string;
  t.match(seed, /^[0-9a-f]{64}$/, 'g2 ended: revealed');
  t.equal((await state(app, g1)).seed, seed, 'and g1 shows the same reveal');
  t.equal(((await app.req('GET', `/games/${g1}/history`)).json as Json).seed, seed);
});
