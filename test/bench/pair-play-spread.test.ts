// The load driver's game load spread over several nodes (what the `cluster` benchmark relies on):
// with two URLs, each pair's bots are registered on their home node, each seat streams its game on
// one node and posts its moves to the other. Here the two "nodes" are two recording HTTP proxies in
// front of one server, so every request says which front it came through.
import t from 'tap';
import http from 'node:http';
import type { Socket } from 'node:net';
import { systemClock } from '../../src/domain/clock.js';
import { bootApp } from '../helpers/app.js';
import { eventually } from '../helpers/nats-cluster.js';
import { PairPlay } from '../../bench/pair-play.js';

interface Front {
  url: URL;
  /** `METHOD path` of every request that came through, in order. */
  seen: string[];
  close(): Promise<void>;
}

/** A proxy on 127.0.0.1:0 to `target` that records each request's method and path. */
async function front(target: URL): Promise<Front> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

t.test('two nodes: bots registered at home, each game streamed on one node and moved on the other', async (t) => {
  const app = await bootApp(t, { clock: systemClock, overrides: { 'limits.registrationsPerHour': 100 } });
  const fronts = [await front(new URL(app.base)), await front(new URL(app.base))];
  t.teardown(() => Promise.all(fronts.map((f) => f.close())));
  const play = new PairPlay(
    fronts.map((f) => f.url),
    2,
    {},
    { registerPrefix: 'spread' },
  );
  await play.prepare();
  play.start();
  const moved = await eventually(() => play.summary(1).moves >= 8, 30_000);
  await play.stop(5000);
  t.ok(moved, 'the pairs played moves');
  const s = play.summary(1);
  t.same(s.problems, {}, `no problems: ${s.problemSamples.join('; ')}`);

  const count = (f: Front, re: RegExp) => f.seen.filter((l) => re.test(l)).length;
  // Pair 0 lives on front 0, pair 1 on front 1: two registrations each, challenges made at home.
  t.equal(count(fronts[0], /^POST \/bot\/register$/), 2, 'pair 0 registered on node 0');
  t.equal(count(fronts[1], /^POST \/bot\/register$/), 2, 'pair 1 registered on node 1');
  t.ok(count(fronts[0], /^POST \/bot\/challenge$/) > 0 && count(fronts[1], /^POST \/bot\/challenge$/) > 0, 'each pair challenges at home');
  // Every game's two streams (White at home, Black on the other node) go through different nodes.
  const streams = fronts.map((f) => f.seen.map((l) => /^GET \/bot\/game\/stream\/(\S+)$/.exec(l)?.[1]).filter((id): id is string => !!id));
  const games = new Set(streams.flat());
  t.ok(games.size >= 2, `games were played (${games.size})`);
  for (const id of games) {
    const per = streams.map((ids) => ids.filter((x) => x === id).length);
    t.ok(per.every((n) => n <= 1), `game ${id}: at most one stream per node (${per.join(', ')})`);
  }
  t.ok([...games].some((id) => streams.every((ids) => ids.includes(id))), 'a game streamed through both nodes');
  const movesVia = fronts.map((f) => count(f, /^POST \/bot\/game\/\S+\/move$/));
  t.ok(movesVia[0] > 0 && movesVia[1] > 0, `moves posted through both nodes (${movesVia.join(', ')})`);
});
