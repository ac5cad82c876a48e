// Players for the hundred-game cluster test (test/server/cluster/node-hundred.test.ts) that survive the loss
// of a node: a stream player for either seat (its game stream on one node, its moves posted to
// another, reconnecting elsewhere when a stream ends or falls quiet), a spectator of a game's public
// stream with the same reconnects, and one webhook endpoint on 127.0.0.1 serving many webhook bots.
// What each saw is kept for the checks.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import type { ClusterNodeProc } from './cluster-nodes.js';
import { anyNode, call } from './cluster-play.js';
import { openLines } from './http.js';
import { EventStream, kindOf, type Ev } from './event-stream.js';
import { randomPath, type Tree } from './play.js';
import { prng } from './prng.js';
import { versionGaps } from './audit.js';
import { expectedSignature } from './webhook-receiver.js';

type Json = any;
export type Seat = 'White' | 'Black';
const QUIET_MS = 6000;

export const running = (n: ClusterNodeProc): boolean => n.child.exitCode === null && n.child.signalCode === null;

async function nextOrQuiet(s: EventStream): Promise<Ev | undefined | 'quiet'> {
  let timer: NodeJS.Timeout | undefined;
  const quiet = new Promise<'quiet'>((r) => (timer = setTimeout(() => r('quiet'), QUIET_MS)));
  try {
    return await Promise.race([s.next().catch(() => undefined), quiet]);
  } finally {
    clearTimeout(timer);
  }
}

/** Tree reads a node answered for a version before the roll's (a node behind the game's owner), for a test's comment. */
export const treeReads = { behind: 0 };

/**
 * The legal-move tree of a roll whose tree was over the inline cap (not in its event or state), asked
 * of one node after another until one answers for that roll: for its position and dice (`dfen`, which
 * alone make the tree; a later version may still be the same roll, after a refused move say), or for
 * its `version` when the dfen is not known. Another node than the one that published (or delivered)
 * the roll may not have it yet and answer the version before, whose tree is the other seat's or
 * empty: a bot that took it for its own would answer no moves or illegal ones, and the server counts
 * that answer as the bot's turn given. Null when no node answered for the roll in time.
 */
export async function treeAt(nodes: readonly ClusterNodeProc[], gameId: string, roll: { dfen?: string; version: number }, i: number): Promise<Tree | null> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const m = (await anyNode(nodes, i + attempt, (n) => call(n, 'GET', `/games/${gameId}/moves`))).json as Json;
    if (m?.dicePending === true && (roll.dfen === undefined ? m.version === roll.version : m.dfen === roll.dfen)) return (m.legalMoves ?? null) as Tree | null;
    if (typeof m?.version === 'number' && m.version < roll.version) treeReads.behind++;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/** One game as one follower saw it: a player of `seat`, or a spectator (no seat). */
export interface Followed {
  gameId: string;
  seat: Seat | null;
  /** One entry per stream connection: the node it was on and its events. */
  segments: { node: string; events: Ev[] }[];
  acked: { version: number; moves: string[] }[];
  submitted: Set<number>;
  ended: Ev | undefined;
}

/** Every follower started, by game, while it runs too (a failing test's evidence of a game still going). */
export const followers = new Map<string, Followed[]>();

/**
 * Follows a game to its end: with `play`, plays its seat (stream on one node, moves to the next);
 * without, watches the public stream. `i` spreads the nodes used.
 */
export async function follow(
  nodes: readonly ClusterNodeProc[],
  gameId: string,
  i: number,
  play?: {
    token: string;
    seat: Seat;
    onAck(): void;
    gate?: Promise<void>;
    /** Resign (again at each later turn until the game ends) once `moves` more are acknowledged after `when()` first holds. */
    resignAfter?: { when: () => boolean; moves: number };
  },
): Promise<Followed> {
  const random = prng(7000 + i);
  const p: Followed = { gameId, seat: play?.seat ?? null, segments: [], acked: [], submitted: new Set(), ended: undefined };
  followers.set(gameId, [...(followers.get(gameId) ?? []), p]);
  let armedAt: number | undefined;
  const act = async (v: number, inline: Tree | null): Promise<void> => {
    if (!play) return;
    await play.gate;
    if (play.resignAfter?.when()) {
      armedAt ??= p.acked.length;
      if (p.acked.length - armedAt >= play.resignAfter.moves) {
        // Fire and forget, like a real bot's: a resignation lost in a takeover is sent again at the next turn.
        await anyNode(nodes, i + 1, (n) => call(n, 'POST', `/bot/game/${gameId}/resign`, play.token));
        return;
      }
    }
    // The moves asked of a node that cannot tell yet (a 503 while the game's shard is taken over): no
    // move now; the stream's next Snapshot (on a reconnect once it falls quiet) brings the roll back.
    const tree = inline ?? (await treeAt(nodes, gameId, { version: v }, i));
    if (tree === null || Object.keys(tree).length === 0) return;
    const moves = randomPath(tree, random);
    p.submitted.add(v);
    for (let attempt = 0; attempt < 60; attempt++) {
      const r = await anyNode(nodes, i + 1 + attempt, (n) => call(n, 'POST', `/bot/game/${gameId}/move`, play.token, { moves, version: v }));
      if (r.status === 200) {
        p.acked.push({ version: v, moves });
        play.onAck();
        return;
      }
      if (r.status === 202 || r.status === 409) return; // taken (the stream tells), or no longer this roll
      await new Promise((res) => setTimeout(res, 250));
    }
  };
  const path = play ? `/bot/game/stream/${gameId}` : `/games/${gameId}/stream`;
  const headers = play ? { authorization: `Bearer ${play.token}` } : undefined;
  for (let k = 0; p.ended === undefined && k < 200; k++) {
    const alive = nodes.filter(running);
    const node = alive[(i + 2 + k) % alive.length];
    let s: EventStream;
    try {
      const reader = await openLines(`${node.url}${path}`, headers);
      if (reader.status !== 200) {
        reader.destroy();
        await new Promise((res) => setTimeout(res, 200));
        continue;
      }
      s = new EventStream(reader, 60_000);
    } catch {
      continue;
    }
    const seg = { node: node.name, events: [] as Ev[] };
    p.segments.push(seg);
    for (;;) {
      const ev = await nextOrQuiet(s);
      if (ev === undefined || ev === 'quiet') break;
      seg.events.push(ev);
      const st = ev.Snapshot?.state;
      if (play && st && 'Active' in st.status && st.dicePending && st.activeSeat === play.seat) await act(st.version, st.legalMoves ?? null);
      if (play && ev.DiceRolled?.seat === play.seat) await act(ev.DiceRolled.v, ev.DiceRolled.legalMoves ?? null);
      if (ev.GameEnded) p.ended = ev;
    }
    s.close();
  }
  return p;
}

/** The number of a roll (0 for White's first): two per full move, from the position's move counter. */
export const rollOf = (dfen: string, seat: Seat): number => 2 * (Number(dfen.split(' ')[5]) - 1) + (seat === 'Black' ? 1 : 0);

/** A game's history as a live node shows it. */
export async function historyOf(nodes: readonly ClusterNodeProc[], gameId: string): Promise<Json> {
  return (await anyNode(nodes, 0, (n) => call(n, 'GET', `/games/${gameId}/history`))).json;
}

/** The turns a seat played (forced passes left out). */
export const playedBy = (h: Json, seat: Seat): string[][] =>
  (h?.history ?? []).filter((e: Json) => e.seat === seat && e.moves.length > 0).map((e: Json) => e.moves as string[]);

/** Is `sub` a subsequence of `seq` (turns compared whole)? Returns the items of `sub` not found in order. */
export function notInOrder(sub: readonly string[][], seq: readonly string[][]): number[] {
  let at = 0;
  const missing: number[] = [];
  sub.forEach((m, k) => {
    const key = JSON.stringify(m);
    while (at < seq.length && JSON.stringify(seq[at]) !== key) at++;
    if (at === seq.length) missing.push(k);
    else at++;
  });
  return missing;
}

/** The stream checks of one follower: the game ended, every connection began with a Snapshot, versions +1 within each. */
export function checkStreams(t: Test, f: Followed): void {
  const who = `${f.gameId} ${f.seat ?? 'spectator'}`;
  t.ok(f.ended, `${who}: saw the end (${f.segments.length} connections)`);
  t.ok(f.segments.every((s) => s.events.length === 0 || kindOf(s.events[0]) === 'Snapshot'), `${who}: every connection began with a Snapshot`);
  // A connection to a game already ended gets its Snapshot and GameEnded at the same version (docs/API.md).
  const whole = (evs: Ev[]): Ev[] => (evs.length === 2 && kindOf(evs[0]) === 'Snapshot' && 'Ended' in evs[0].Snapshot.state.status ? evs.slice(1) : evs);
  t.same(f.segments.flatMap((s) => versionGaps(whole(s.events))), [], `${who}: within each connection, versions +1`);
}

/** A player's checks against the final history: every acknowledged move in it, in order; none applied twice. */
export function checkMoves(t: Test, f: Followed, h: Json): void {
  const seat = f.seat as Seat;
  const played = playedBy(h, seat);
  const acked = [...f.acked].sort((x, y) => x.version - y.version).map((a) => a.moves);
  t.same(notInOrder(acked, played), [], `${f.gameId} ${seat}: every acknowledged move in the history (${acked.length})`);
  t.ok(played.length <= f.submitted.size, `${f.gameId} ${seat}: no move applied twice (${played.length} played, ${f.submitted.size} rolls answered)`);
}

/** A yourTurn delivery the hub answered. */
export interface Turn {
  bot: string;
  gameId: string;
  seat: Seat;
  version: number;
  /** The roll's number in its game (from the position's move number): versions differ between the games of a mirror pair once a move is refused in one. */
  roll: number;
  moves: string[];
  /** Order of arrival at the hub. */
  n: number;
  signatureOk: boolean;
}

export interface WebhookHub {
  /** The URL to register for bot `name`. */
  urlOf(name: string): string;
  setSecret(name: string, secret: string): void;
  turns: Turn[];
  /** Deliveries for an unknown bot or not JSON. */
  strays: string[];
  /** Extra wait before answering a delivery of this game (a slow side of a mirror pair). */
  delayOf: (gameId: string) => number;
  /** Answers wait for it (none until it resolves). */
  gate: Promise<void>;
  close(): Promise<void>;
}

/**
 * One HTTP server on 127.0.0.1 port 0 for many webhook bots (a path per bot): echoes each handshake's
 * nonce and answers every yourTurn with a random complete turn (from the inline tree, or from GET
 * /games/{id}/moves for the delivered roll when there is none: see treeAt).
 */
export async function startWebhookHub(t: { teardown(fn: () => Promise<void>): void }, nodes: readonly ClusterNodeProc[]): Promise<WebhookHub> {
  const secrets = new Map<string, string>();
  const randoms = new Map<string, () => number>();
  let n = 0;
  const hub: WebhookHub = {
    urlOf: (name) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/${name}`,
    setSecret: (name, secret) => void secrets.set(name, secret),
    turns: [],
    strays: [],
    delayOf: () => 0,
    gate: Promise.resolve(),
    close: async () => {
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const answer = async (name: string, body: string, d: Json, sigOk: boolean): Promise<unknown> => {
    if (d.type === 'verification') return { nonce: d.nonce };
    await hub.gate;
    const order = n++;
    let tree = d.state?.legalMoves as Tree | null;
    // Too large to inline: the tree of the delivered roll (its position and dice), not whatever a node behind shows.
    if (tree === null || tree === undefined) tree = (await treeAt(nodes, d.gameId, { dfen: d.state?.dfen, version: d.state?.version }, order)) ?? {};
    let random = randoms.get(name);
    if (!random) randoms.set(name, (random = prng([...name].reduce((a, c) => a * 31 + c.charCodeAt(0), 7) >>> 0)));
    const moves = Object.keys(tree as Tree).length === 0 ? [] : randomPath(tree as Tree, random);
    hub.turns.push({ bot: name, gameId: d.gameId, seat: d.seat, version: d.state?.version, roll: rollOf(d.state?.dfen ?? '', d.seat), moves, n: order, signatureOk: sigOk });
    void body;
    const wait = hub.delayOf(d.gameId);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    return { moves };
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const name = (req.url ?? '').replace(/^\/hook\//, '');
      let d: Json;
      try {
        d = JSON.parse(body);
      } catch {
        hub.strays.push(`${name}: not JSON`);
        return void res.writeHead(400).end();
      }
      const secret = secrets.get(name);
      const ts = String(req.headers['x-game-timestamp'] ?? '');
      const sigOk = secret !== undefined && req.headers['x-game-signature'] === expectedSignature(secret, ts, body);
      if (d.type !== 'verification' && secret === undefined) hub.strays.push(`${name}: a turn before its secret`);
      answer(name, body, d, sigOk).then(
        (a) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(a)),
        () => res.writeHead(500).end(),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => hub.close());
  return hub;
}

/** Registers `name`'s webhook at the hub through a live node (the handshake answered there). */
export async function registerHook(nodes: readonly ClusterNodeProc[], hub: WebhookHub, i: number, name: string, token: string): Promise<void> {
  const r = await anyNode(nodes, i, (n) => call(n, 'POST', '/bot/webhook', token, { url: hub.urlOf(name) }));
  if (r.status !== 201) throw new Error(`webhook of ${name}: ${r.status} ${r.text}`);
  hub.setSecret(name, (r.json as Json).secret);
}

/** Registers bot `<team>/p` through node `i` and waits until every node knows its token. */
export async function registerBot(nodes: readonly ClusterNodeProc[], team: string, i: number): Promise<string> {
  const reg = await anyNode(nodes, i, (n) => call(n, 'POST', '/bot/register', undefined, { team, name: 'p' }));
  if (reg.status !== 201 && reg.status !== 200) throw new Error(`register ${team}: ${reg.status} ${reg.text}`);
  const token = (reg.json as Json).token as string;
  for (const k of [1, 2]) {
    for (let tries = 0; ; tries++) {
      if ((await anyNode(nodes, i + k, (n) => call(n, 'GET', '/bot/games', token))).status === 200) break;
      if (tries > 100) throw new Error(`${team}: token unknown on another node`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return token;
}

/** The bot's live games as a live node lists them. */
export async function gamesOf(nodes: readonly ClusterNodeProc[], i: number, token: string): Promise<Json[]> {
  return ((await anyNode(nodes, i, (n) => call(n, 'GET', '/bot/games', token))).json as Json)?.games ?? [];
}

/** An account stream read in the background: its events kept, waited for with a deadline. */
export class Inbox {
  readonly events: Ev[] = [];
  private readonly waiters = new Set<() => void>();
  private done = false;

  constructor(private readonly s: EventStream) {
    void this.pump();
  }

  private async pump(): Promise<void> {
    try {
      for (let ev = await this.s.next(); ev !== undefined; ev = await this.s.next()) {
        this.events.push(ev);
        for (const w of this.waiters) w();
      }
    } catch {
      // the watchdog or a cut connection: nothing more comes
    }
    this.done = true;
    for (const w of this.waiters) w();
  }

  /** The first event from index `from` on that satisfies `pred`, or undefined after `ms` (or at the stream's end). */
  async waitFor(pred: (ev: Ev) => boolean, from: number, ms: number): Promise<Ev | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = this.events.slice(from).find(pred);
      if (hit || this.done || Date.now() >= deadline) return hit;
      await new Promise<void>((r) => {
        const timer = setTimeout(() => finish(), Math.max(1, deadline - Date.now()));
        const finish = (): void => {
          clearTimeout(timer);
          this.waiters.delete(finish);
          r();
        };
        this.waiters.add(finish);
      });
    }
  }

  close(): void {
    this.s.close();
  }
}

/** Runs `jobs` at most `n` at a time (a burst of registrations starves the nodes' lease renewals). */
export async function inTurn<T>(n: number, jobs: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) {
        const k = next++;
        out[k] = await jobs[k]();
      }
    }),
  );
  return out;
}
