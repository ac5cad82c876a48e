// The ladder across a cluster: two bots registered on different nodes join the ladder; the ladder's
// scheduler (a singleton, on whichever node holds its lease) pairs them, they play by polling, each
// request going to the next node; the rating batch (another singleton) rates every game once, and
// every node shows the same ratings, counts and rating history.
import t from 'tap';
import { eventually } from '../helpers/nats-cluster.js';
import { startNodeCluster, type ClusterNodeProc } from '../helpers/cluster-nodes.js';
import { request, type HttpResult } from '../helpers/http.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { prng } from '../helpers/prng.js';

type Json = any;
const SHARDS = 6;
/** Ladder games each bot plays before leaving the ladder: one mirror pair (two bots are not paired again at once). */
const GAMES = 2;

const { nodes } = await startNodeCluster(t, 'dc-ladder', {
  cluster: { shards: SHARDS, leaseTtlMs: 10_000 },
  limits: { registrationsPerHour: 1000 },
  games: { houseMoveDelayMs: 0, seedGraceMs: 0 },
  ladder: { ratingBatchMs: 1000, pairIntervalMs: 1000 },
});

const call = (node: ClusterNodeProc, method: string, path: string, token?: string, body?: unknown): Promise<HttpResult> =>
  request(method, node.url + path, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

interface LadderBot {
  team: string;
  token: string;
  games: Set<string>;
}

async function register(node: ClusterNodeProc, team: string): Promise<LadderBot> {
  const r = await call(node, 'POST', '/bot/register', undefined, { team, name: 'p' });
  const token = (r.json as Json).token as string;
  t.ok(await eventually(async () => (await call(nodes[2], 'GET', '/bot/games', token)).status === 200), `${team}: known on every node`);
  t.equal((await call(node, 'POST', '/bot/capacity', token, { capacity: 2 })).status, 200, `${team}: capacity 2`);
  t.equal((await call(nodes[(nodes.indexOf(node) + 1) % 3], 'POST', '/bot/ladder/join', token)).status, 200, `${team}: joined on another node`);
  return { team, token, games: new Set() };
}

/** Polls its games on the nodes in turn and answers every roll of its own, until it has seen GAMES end. */
async function play(bot: LadderBot, seed: number): Promise<void> {
  const random = prng(seed);
  let k = seed;
  const node = (): ClusterNodeProc => nodes[k++ % nodes.length];
  const deadline = Date.now() + 120_000;
  let last: Json[] = [];
  let left = false;
  while (Date.now() < deadline) {
    const live = (((await call(node(), 'GET', '/bot/games', bot.token)).json as Json)?.games ?? []) as Json[];
    last = live;
    for (const g of live) bot.games.add(g.gameId);
    const ended = [...bot.games].filter((id) => !live.some((g) => g.gameId === id));
    if (!left && bot.games.size >= GAMES) {
      left = true; // enough pairs started: no more after these
      await call(node(), 'POST', '/bot/ladder/leave', bot.token);
    }
    if (left && live.length === 0 && ended.length === bot.games.size) return;
    for (const g of live) {
      if (g.activeSeat !== g.seat || !g.dicePending) continue;
      const m = (await call(node(), 'GET', `/games/${g.gameId}/moves`)).json as Json;
      if (!m?.dicePending || m.version !== g.version) continue;
      const tree = m.legalMoves as Tree;
      if (Object.keys(tree).length === 0) continue;
      await call(node(), 'POST', `/bot/game/${g.gameId}/move`, bot.token, { moves: randomPath(tree, random), version: m.version });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  console.error(nodes.map((n) => `--- ${n.name}\n${n.log.filter((l) => !l.includes('serving shard')).slice(-12).join('\n')}`).join('\n'));
  throw new Error(`${bot.team}: still playing at the deadline; games ${[...bot.games].join(',')}; live ${JSON.stringify(last)}`);
}

t.test('ladder games across nodes are rated once, the same on every node', async (t) => {
  const x = await register(nodes[0], 'ladx');
  const y = await register(nodes[2], 'lady');
  await Promise.all([play(x, 1), play(y, 2)]);
  const profile = async (n: ClusterNodeProc, team: string): Promise<Json> => (await call(n, 'GET', `/bots/${team}/p`)).json;
  for (const bot of [x, y]) {
    const n = bot.games.size;
    // Every game finished is rated by a batch: the counts reach the number of games on every node.
    const rated = await eventually(async () => {
      for (const node of nodes) if ((await profile(node, bot.team))?.games !== n) return false;
      return true;
    }, 60_000);
    const views = await Promise.all(nodes.map((node) => profile(node, bot.team)));
    t.ok(rated, `${bot.team}: ${n} rated games counted on every node (${views.map((v) => v?.games).join(', ')})`);
    t.ok(views[0].ratingHistory.length >= 1, `${bot.team}: a rating history`);
    t.not(views[0].rating, 1500, `${bot.team}: rated away from the start`);
    for (const v of views.slice(1)) {
      t.same([v.rating, v.rd, v.games, v.wins, v.draws, v.losses, v.ratingHistory], [views[0].rating, views[0].rd, views[0].games, views[0].wins, views[0].draws, views[0].losses, views[0].ratingHistory], `${bot.team}: the same on every node`);
    }
    t.equal(views[0].wins + views[0].draws + views[0].losses, n, `${bot.team}: each game counted once`);
  }
});
