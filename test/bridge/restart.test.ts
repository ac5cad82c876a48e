// A real server process on LMDB is stopped mid-game and started again on the same data: the bridge
// keeps its registered identity, reopens its streams, and the game ends normally. The bridge talks
// to a TCP relay of the test that forwards to whichever server runs (and drops every connection
// while none does), so the second server need not win back the first one's port.
import t from 'tap';
import net from 'node:net';
import { harness } from '../helpers/persistence.js';
import { ended, failures, RANDOM_ENGINE, startBridge } from '../helpers/bridge.js';

/** A loopback TCP relay to `target.port`; connections made while it is 0 are dropped at once. */
async function relay(t: { teardown(fn: () => Promise<void>): void }, target: { port: number }): Promise<{ base: string; cut(): void }> {
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!target.port) return void client.destroy();
    const upstream = net.connect(target.port, '127.0.0.1');
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s)).on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(async () => {
    for (const s of open) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: () => {
      for (const s of open) s.destroy();
    },
  };
}

t.test('the server restarts mid-game: the bridge reconnects and the game ends normally', async (t) => {
  const h = harness(t, 'bridge-restart');
  // The house waits a little before each move, so the game is still running when the server stops.
  const env = { DICECHESS_HOUSE_MOVE_DELAY_MS: '20' };
  let server = await h.start(env);
  const target = { port: server.port };
  const front = await relay(t, target);
  const b = await startBridge(t, front.base, ['--register', 'kit/survivor', '--challenge', 'house/random', '--games', '1', '--tc', 'unlimited'], RANDOM_ENGINE);
  const started = await b.waitFor((e) => e.event === 'gameStarted', 'the game to start');
  const gameId = 'gameId' in started ? started.gameId : '';
  let version = 0;
  for (let i = 0; i < 500 && version < 6; i++) {
    version = ((await server.req('GET', `/games/${gameId}`)).json as { version: number }).version;
    if (version < 6) await new Promise((r) => setTimeout(r, 10));
  }
  t.ok(version >= 6, 'a few turns were played before the restart');
  target.port = 0;
  await server.stop('SIGTERM');
  front.cut();
  server = await h.start(); // no house delay now: the rest of the game goes fast
  target.port = server.port;
  await b.done(90_000);
  t.ok(b.events.some((e) => e.event === 'reconnecting'), 'the bridge saw the server go and reconnected');
  const games = ended(b.events);
  t.equal(games.length, 1, 'the game ended');
  t.equal(games[0]?.gameId, gameId, 'the same game');
  t.not(games[0]?.termination, 'Aborted', 'ended by play');
  t.not(games[0]?.termination, 'Resign', 'the bridge did not give up');
  t.same(failures(b.events), [], 'the engine never failed');
  const state = (await server.req('GET', `/games/${gameId}`)).json as { status: { Ended?: unknown }; version: number };
  t.ok(state.status.Ended, 'the restarted server has the game ended');
  t.ok(state.version > version, 'and it was played on after the restart');
});
