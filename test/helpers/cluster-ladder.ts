// Rated games across a cluster under faults: bots that join the ladder through one node, answer their
// rolls through whichever node of `reach` is next (a list the test may shrink while a host is cut off),
// leave once they have their games, and the check that every node counts each of those games once in
// the bots' ratings. Used by the partition test (node-partition.test.ts).
import type { Test } from 'tap';
import { DEFAULT_RATING } from '../../src/domain/records.js';
import type { ClusterNodeProc } from './cluster-nodes.js';
import { call } from './cluster-play.js';
import { eventually } from './nats-cluster.js';
import { randomPath, type Tree } from './play.js';
import { prng } from './prng.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface LadderBot {
  team: string;
  token: string;
  /** Every game it was seen playing. */
  games: Set<string>;
}

/** Registers `team/p` through `node`, waits until `other` knows it, gives it capacity 2 and joins the ladder. */
export async function joinLadder(t: Test, node: ClusterNodeProc, other: ClusterNodeProc, team: string): Promise<LadderBot> {
  const r = await call(node, 'POST', '/bot/register', undefined, { team, name: 'p' });
  const token = (r.json as Json)?.token as string;
  t.ok(await eventually(async () => (await call(other, 'GET', '/bot/games', token)).status === 200), `${team}: known on ${other.name}`);
  t.equal((await call(node, 'POST', '/bot/capacity', token, { capacity: 2 })).status, 200, `${team}: capacity 2`);
  t.equal((await call(other, 'POST', '/bot/ladder/join', token)).status, 200, `${team}: joined the ladder on ${other.name}`);
  return { team, token, games: new Set() };
}

/**
 * Answers every roll of its own in its ladder games through the nodes of `reach` in turn, leaves the
 * ladder once it has seen `games` games, and returns once they have all ended (or throws at `deadline`).
 * A request that fails (a node cut off or without a quorum) is simply tried on the next node.
 */
export async function playLadder(reach: readonly ClusterNodeProc[], bot: LadderBot, seed: number, games: number, deadline: number): Promise<void> {
  const random = prng(seed);
  let k = seed;
  const node = (): ClusterNodeProc => reach[k++ % reach.length];
  const quietly = async (f: () => Promise<Json>): Promise<Json> => {
    try {
      return await f();
    } catch {
      return undefined;
    }
  };
  let left = false;
  while (Date.now() < deadline) {
    const r = await quietly(async () => await call(node(), 'GET', '/bot/games', bot.token));
    const live = r?.status === 200 ? ((r.json as Json).games as Json[]) : undefined;
    if (live === undefined) {
      await new Promise((res) => setTimeout(res, 200));
      continue;
    }
    for (const g of live) bot.games.add(g.gameId);
    if (!left && bot.games.size >= games) {
      const out = await quietly(async () => await call(node(), 'POST', '/bot/ladder/leave', bot.token));
      left = out?.status === 200; // enough games started: no more after these
    }
    if (left && live.length === 0) return;
    for (const g of live) {
      if (g.activeSeat !== g.seat || !g.dicePending) continue;
      const m = (await quietly(async () => (await call(node(), 'GET', `/games/${g.gameId}/moves`)).json)) as Json;
      if (!m?.dicePending || m.version !== g.version) continue;
      const tree = m.legalMoves as Tree;
      if (Object.keys(tree).length === 0) continue;
      await quietly(async () => await call(node(), 'POST', `/bot/game/${g.gameId}/move`, bot.token, { moves: randomPath(tree, random), version: m.version }));
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`${bot.team}: still playing at the deadline; games ${[...bot.games].join(',')}`);
}

/** On every node, each bot's profile counts each of its games once, and every node shows the same ratings. */
export async function checkRatedOnce(t: Test, nodes: readonly ClusterNodeProc[], bots: readonly LadderBot[]): Promise<void> {
  const profile = async (n: ClusterNodeProc, team: string): Promise<Json> => (await call(n, 'GET', `/bots/${team}/p`)).json;
  for (const bot of bots) {
    const n = bot.games.size;
    const rated = await eventually(async () => {
      for (const node of nodes) if ((await profile(node, bot.team))?.games !== n) return false;
      return true;
    }, 60_000);
    const views = await Promise.all(nodes.map((node) => profile(node, bot.team)));
    t.ok(rated, `${bot.team}: its ${n} rated games counted on every node (${views.map((v) => v?.games).join(', ')})`);
    t.equal((views[0]?.wins ?? 0) + (views[0]?.draws ?? 0) + (views[0]?.losses ?? 0), n, `${bot.team}: each game counted once in its results`);
    t.ok(views[0]?.rd < DEFAULT_RATING.rd, `${bot.team}: rated (deviation ${views[0]?.rd})`);
    for (const v of views.slice(1)) {
      t.same([v?.rating, v?.rd, v?.games, v?.ratingHistory], [views[0]?.rating, views[0]?.rd, views[0]?.games, views[0]?.ratingHistory], `${bot.team}: the same rating on every node`);
    }
  }
}
