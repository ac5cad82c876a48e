// Finding games without challenges: two bridges join the ladder with a capacity of 2, one pairing
// round seats them in a mirror pair, both games are played to the end, and `--games 2` then takes
// each off the ladder and stops it; a bridge's public seek is taken and the game played.
import t from 'tap';
import { bootApp } from '../helpers/app.js';
import { ended, failures, GREEDY_ENGINE, RANDOM_ENGINE, startBridge } from '../helpers/bridge.js';

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

t.test('a bridge keeps a public seek open; whoever takes it gets a game the bridge plays', async (t) => {
  const app = await bootApp(t);
  const b = await startBridge(t, app.base, ['--seeks', '1', '--games', '1', '--tc', 'fischer:120+1'], GREEDY_ENGINE);
  const opened = await b.waitFor((e) => e.event === 'seekOpened', 'the seek');
  const seekId = 'seekId' in opened ? opened.seekId : '';
  const lobby = (await app.req('GET', '/lobby/seeks')).json as { seeks: { id: string; timeControl: unknown }[] };
  t.match(lobby.seeks.find((s) => s.id === seekId), { timeControl: { Fischer: { initialSeconds: 120, incrementSeconds: 1 } } }, 'in the lobby with its time control');
  const taker = (await app.req('POST', '/bot/anon?name=taker')).json as { token: string };
  const taken = await app.req('POST', `/bot/seeks/${seekId}/accept`, { token: taker.token });
  t.equal(taken.status, 201, 'taken');
  const gameId = (taken.json as { gameId: string }).gameId;
  await b.waitFor((e) => e.event === 'gameStarted' && e.gameId === gameId, 'the bridge to start the game');
  t.equal((await app.req('POST', `/bot/game/${gameId}/resign`, { token: taker.token })).status, 202);
  await b.done();
  t.match(ended(b.events), [{ gameId, result: 'win', termination: 'Resign' }], 'the bridge played it to the end');
});
