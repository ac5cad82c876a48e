// Two bridges join the ladder with a capacity of 2; one pairing round seats them in a mirror pair,
// both games are played to the end, and `--games 2` then takes each off the ladder and stops it.
import t from 'tap';
import { bootApp } from '../helpers/app.js';
import { ended, failures, GREEDY_ENGINE, RANDOM_ENGINE, startBridge } from './support.js';

t.test('two bridges on the ladder play the mirror pair they are given', async (t) => {
  const app = await bootApp(t, { overrides: { 'ladder.pairIntervalMs': 86_400_000 } });
  const args = (name: string) => ['--register', `kit/${name}`, '--ladder', '--capacity', '2', '--max-games', '2', '--games', '2'];
  const a = await startBridge(t, app.base, args('ladder-random'), RANDOM_ENGINE);
  const b = await startBridge(t, app.base, args('ladder-greedy'), GREEDY_ENGINE);
  const record = (name: string) => app.server.store.getBot(`bot:team:kit:${name}`);
  for (const name of ['ladder-random', 'ladder-greedy']) {
    t.match(record(name), { onLadder: true, capacity: 2 }, `${name} joined the ladder with its capacity`);
  }
  t.equal(await app.server.scheduler.round(), 1, 'one mirror pair');
  await Promise.all([a.done(), b.done()]);
  const gamesA = ended(a.events).map((e) => e.gameId).sort();
  t.equal(gamesA.length, 2, 'the first bridge played both games of the pair');
  t.same(ended(b.events).map((e) => e.gameId).sort(), gamesA, 'the second one the same two');
  t.same(ended(a.events).map((e) => e.seat).sort(), ['Black', 'White'], 'once with each colour');
  t.same([...failures(a.events), ...failures(b.events)], [], 'no engine failed');
  for (const name of ['ladder-random', 'ladder-greedy']) t.equal(record(name)?.onLadder, false, `${name} left the ladder after its games`);
});
