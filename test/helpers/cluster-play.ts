// A bot for the whole-cluster tests that survives the loss of a node: it plays White against a house
// bot, sends each request to a live node (the next one when a node refuses the connection), reads
// its game stream from a live node and reconnects elsewhere when the stream ends or falls quiet (a
// reconnect starts with a Snapshot), and re-answers a roll still pending. What it saw is kept for
// the checks: the events of each connection, the moves acknowledged, the rolls answered.
import type { Test } from 'tap';
import type { ClusterNodeProc } from './cluster-nodes.js';
import { eventually } from './nats-cluster.js';
import { openLines, request, type HttpResult } from './http.js';
import { EventStream, kindOf, type Ev } from './event-stream.js';
import { randomPath, type Tree } from './play.js';
import { prng } from './prng.js';
import { versionGaps } from './audit.js';

type Json = any;
const QUIET_MS = 6000;

/** Requests under way (what, and since when), for a stalled test's report (`stuckCalls`). */
const inFlight = new Map<number, { what: string; since: number }>();
let callIds = 0;

/** The requests under way for longer than `ms`, oldest first ("b GET /games/x/moves for 41 s"). */
export function stuckCalls(ms: number): string[] {
  const now = Date.now();
  return [...inFlight.values()].filter((c) => now - c.since > ms).map((c) => `${c.what} for ${Math.round((now - c.since) / 1000)} s`);
}

export const call = (node: ClusterNodeProc, method: string, path: string, token?: string, body?: unknown): Promise<HttpResult> => {
  const id = ++callIds;
  inFlight.set(id, { what: `${node.name} ${method} ${path}`, since: Date.now() });
  return request(method, node.url + path, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).finally(() => inFlight.delete(id));
};

const running = (n: ClusterNodeProc): boolean => n.child.exitCode === null && n.child.signalCode === null;

/** How long a bot waits out a cluster where no node answers (a restart of the whole cluster). */
const OUTAGE_MS = 90_000;

/**
 * Tries the live nodes from `first` on until one answers (a dead node refuses the connection). While
 * no node runs at all (the whole cluster restarting: `nodes` is the test's own list, whose entries it
 * replaces), it waits, up to OUTAGE_MS.
 */
export async function anyNode(nodes: readonly ClusterNodeProc[], first: number, f: (n: ClusterNodeProc) => Promise<HttpResult>): Promise<HttpResult> {
  const deadline = Date.now() + OUTAGE_MS;
  for (let attempt = 0; ; attempt++) {
    const list = nodes.filter(running);
    if (list.length === 0) {
      if (Date.now() > deadline) throw new Error('no node running');
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    const n = list[(first + attempt) % list.length];
    try {
      return await f(n);
    } catch (e) {
      if (attempt > 20 && Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** The next event, or 'quiet' after QUIET_MS without one (the stream is then given up). */
async function nextOrQuiet(s: EventStream): Promise<Ev | undefined | 'quiet'> {
  let timer: NodeJS.Timeout | undefined;
  const quiet = new Promise<'quiet'>((r) => (timer = setTimeout(() => r('quiet'), QUIET_MS)));
  try {
    return await Promise.race([s.next().catch(() => undefined), quiet]);
  } finally {
    clearTimeout(timer);
  }
}

export interface Played {
  gameId: string;
  token: string;
  /** The events of each stream the bot held, one list per connection. */
  segments: Ev[][];
  /** When each of those connections was answered (Date.now()), one per segment. */
  openedAt: number[];
  acked: { version: number; moves: string[] }[];
  submitted: Set<number>;
  ended: Ev | undefined;
  /** How many stream connections each node refused, by node and status (`b 404`), for a failure's message. */
  refused: Map<string, number>;
}

/**
 * Bot `i` (team `<team><i>`) plays one game against house/random to its end; `onListed` is called
 * once its game is listed, `onAck` at each acknowledged move.
 */
export async function playHouseGame(nodes: readonly ClusterNodeProc[], team: string, i: number, onAck: () => void, onListed: () => void = () => {}): Promise<Played> {
  const alive = (): ClusterNodeProc[] => nodes.filter(running);
  const reg = await anyNode(nodes, i, (n) => call(n, 'POST', '/bot/register', undefined, { team: `${team}${i}`, name: 'p' }));
  const token = (reg.json as Json).token as string;
  await eventually(async () => (await anyNode(nodes, i + 2, (n) => call(n, 'GET', '/bot/games', token))).status === 200);
  // A house bot's game that could not be made (a nats-server dying under its first write) is
  // declined to the challenger: like a real bot, this one challenges again when no game comes.
  let gameId = '';
  let last = '';
  for (let attempt = 0; gameId === '' && attempt < 4; attempt++) {
    const ch = await anyNode(nodes, i + attempt, (n) => call(n, 'POST', '/bot/challenge', token, { team: 'house', name: 'random' }));
    last = `${ch.status} ${ch.text}`;
    if (ch.status !== 201) {
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    await eventually(async () => {
      const games = ((await anyNode(nodes, i, (n) => call(n, 'GET', '/bot/games', token))).json as Json)?.games ?? [];
      gameId = games[0]?.gameId ?? '';
      return gameId !== '';
    }, 30_000);
  }
  if (gameId === '') throw new Error(`game ${i} never listed (last challenge: ${last})`);
  onListed();
  const random = prng(5000 + i);
  const p: Played = { gameId, token, segments: [], openedAt: [], acked: [], submitted: new Set(), ended: undefined, refused: new Map() };
  const act = async (v: number, inline: Tree | null): Promise<void> => {
    // The moves asked of a node that cannot tell yet (a 503 while the game's shard is taken over): no
    // move now; the stream's next Snapshot (on a reconnect once it falls quiet) brings the roll back.
    const tree = inline ?? ((((await anyNode(nodes, i, (n) => call(n, 'GET', `/games/${gameId}/moves`))).json as Json)?.legalMoves ?? null) as Tree | null);
    if (tree === null || Object.keys(tree).length === 0) return;
    const moves = randomPath(tree, random);
    p.submitted.add(v);
    for (let attempt = 0; attempt < 60; attempt++) {
      const r = await anyNode(nodes, i + 1 + attempt, (n) => call(n, 'POST', `/bot/game/${gameId}/move`, token, { moves, version: v }));
      if (r.status === 200) {
        p.acked.push({ version: v, moves });
        onAck();
        return;
      }
      if (r.status === 202 || r.status === 409) return; // taken (the stream tells), or no longer this roll
      await new Promise((res) => setTimeout(res, 250));
    }
  };
  for (let k = 0; p.ended === undefined && k < 200; k++) {
    const nodesNow = alive();
    if (nodesNow.length === 0) {
      // The whole cluster is down (restarting): wait for a node, without counting a connection.
      if (!(await eventually(() => alive().length > 0, OUTAGE_MS))) break;
      k--;
      continue;
    }
    const node = nodesNow[(i + 2 + k) % nodesNow.length];
    let s: EventStream;
    const opening = ++callIds;
    inFlight.set(opening, { what: `${node.name} GET /bot/game/stream/${gameId} (opening)`, since: Date.now() });
    try {
      s = new EventStream(await openLines(`${node.url}/bot/game/stream/${gameId}`, { authorization: `Bearer ${token}` }), 60_000);
    } catch {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    } finally {
      inFlight.delete(opening);
    }
    const seg: Ev[] = [];
    p.segments.push(seg);
    p.openedAt.push(Date.now());
    if (s.status !== 200) {
      const key = `${node.name} ${s.status}`;
      p.refused.set(key, (p.refused.get(key) ?? 0) + 1);
      // A refused stream (a 503 while the game's shard changes owner) is tried again after a pause, as a
      // bot would: without it a loaded machine lets the bot spend its connections within a takeover.
      s.close();
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    for (;;) {
      const ev = await nextOrQuiet(s);
      if (ev === undefined || ev === 'quiet') break;
      seg.push(ev);
      const st = ev.Snapshot?.state;
      if (st && 'Active' in st.status && st.dicePending && st.activeSeat === 'White') await act(st.version, st.legalMoves ?? null);
      if (ev.DiceRolled?.seat === 'White') await act(ev.DiceRolled.v, ev.DiceRolled.legalMoves ?? null);
      if (ev.GameEnded) p.ended = ev;
    }
    s.close();
  }
  return p;
}

/** The checks of a game played through a failure: it ended, streams were whole, no acknowledged move lost or doubled. */
export async function checkPlayed(t: Test, nodes: readonly ClusterNodeProc[], p: Played): Promise<void> {
  const refused = [...p.refused].map(([k, n]) => `${k}: ${n}`).join(', ') || 'none';
  t.ok(p.ended, `${p.gameId}: ended (${p.segments.length} stream connections; refused: ${refused})`);
  t.ok(p.segments.every((seg) => seg.length === 0 || kindOf(seg[0]) === 'Snapshot'), `${p.gameId}: every connection began with a Snapshot`);
  t.same(p.segments.flatMap((seg) => versionGaps(seg)), [], `${p.gameId}: within each connection, versions +1`);
  const h = (await anyNode(nodes, 0, (n) => call(n, 'GET', `/games/${p.gameId}/history`))).json as Json;
  t.ok(typeof h?.status === 'object' && 'Ended' in h.status, `${p.gameId}: a live node shows it ended (${typeof h?.status === 'object' ? 'its record' : JSON.stringify(h)})`);
  const white: string[][] = (h?.history ?? []).filter((e: Json) => e.seat === 'White' && e.moves.length > 0).map((e: Json) => e.moves);
  // Every acknowledged move is in the history, in the order of its versions.
  let at = 0;
  const lost: number[] = [];
  for (const a of [...p.acked].sort((x, y) => x.version - y.version)) {
    while (at < white.length && JSON.stringify(white[at]) !== JSON.stringify(a.moves)) at++;
    if (at === white.length) lost.push(a.version);
    else at++;
  }
  t.same(lost, [], `${p.gameId}: no acknowledged move lost (${p.acked.length} acknowledged)`);
  t.ok(white.length <= p.submitted.size, `${p.gameId}: no move applied twice (${white.length} played, ${p.submitted.size} rolls answered)`);
}
