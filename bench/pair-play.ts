// The game load the drivers share (bench/load-driver.ts, bench/stream-driver.ts): N bot pairs play
// complete games against a running server over HTTP, as fast as they can, until stopped.
//
// Each pair's two anonymous bots are minted first (prepare), then each pair loops: White challenges Black, Black accepts (the
// driver hands it the challenge id instead of running an account stream), each bot opens its own
// game stream and, when a roll is its own, submits a random root-to-leaf path of the legal-move
// tree (fetching GET /games/{id}/moves when the inline tree is null; an empty tree is a forced pass
// the server plays). Once stopped, the games still running are resigned.
//
// Cheap on purpose (it shares the cores with the server): stream lines are told apart by their
// first bytes and never decoded, only the Snapshot is JSON-parsed, and a bot reads its own rolls'
// trees straight from the bytes (randomPathIn) and skips the other seat's.
//
// Against several nodes of a cluster (several base URLs, bench/cluster.ts) the bots are registered
// (an anonymous token lives only on the node that minted it) and each pair is spread: pair i's
// bots register, challenge and accept on node i mod N (a challenge lives on the node it was made
// on); White reads its game stream there and posts its moves to the next node, Black the other way
// round. So every move is posted to one node and its verdict's game is streamed from another.
import http from 'node:http';
import { Pool } from 'undici';
import { Answer, byteLineSplitter, bytesAt, intAfter, poolRequester, poolStream, randomPath, randomPathIn, requester, type Tree } from './driver-common.js';

type Seat = 'White' | 'Black';
interface Bot {
  token: string;
  team: string;
  name: string;
  /** Index of the node it registered on (0 with one URL). */
  home: number;
}

type Requester = (method: string, path: string, token?: string, body?: unknown) => Promise<Answer>;

export interface PairPlayOptions {
  /**
   * Register the bots as `<prefix><pair>/w` and `/b` instead of minting anonymous ones (needed with
   * several nodes); each is then awaited on every node before the load starts.
   */
  registerPrefix?: string;
}

const REQUEST_TIMEOUT_MS = 10_000;
/** A game with no event for this long when the load stops counts as stalled. */
const STALL_MS = 5_000;

interface Game {
  id: string;
  white: Bot;
  ended: boolean;
  lastEvent: number;
}

export interface PairPlayHooks {
  /** A game started (both seats about to open their streams): when the accept was sent and answered. */
  onGame?: (gameId: string, sentAt: number, at: number) => void;
  /** A move verdict arrived: `v` is the TurnPlayed version; when the move was sent and answered (performance.now()). */
  onVerdict?: (gameId: string, v: number, sentAt: number, at: number) => void;
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))];
}

const PREFIX = {
  dice: Buffer.from('{"DiceRolled":'),
  turn: Buffer.from('{"TurnPlayed":'),
  ended: Buffer.from('{"GameEnded":'),
  snapshot: Buffer.from('{"Snapshot":'),
  rejected: Buffer.from('{"Rejected":'),
};
const SEAT_KEY = Buffer.from('"seat":"');
const EMPTY_MOVES = Buffer.from('"moves":[]');
const LEGAL_MOVES = Buffer.from('"legalMoves":');
const NULL = Buffer.from('null');
const EMPTY_TREE = Buffer.from('{}');

export class PairPlay {
  private stopping = false;
  /** One request function per node (one URL: one node). */
  private readonly requests: Requester[];
  private readonly latencies: number[] = [];
  private readonly statuses: Record<string, number> = {};
  readonly problems: Record<string, number> = {};
  readonly problemSamples: string[] = [];
  private turns = 0;
  private passes = 0;
  private moves = 0;
  private gamesStarted = 0;
  private gamesCompleted = 0;
  private gamesResignedAtEnd = 0;
  private afterWindow = 0;
  private readonly active = new Set<Game>();
  private readonly openStreams = new Set<() => void>();
  /** Game streams have their own pools (one per node): a stream holds its connection for the whole game. */
  private readonly streamPools: Pool[];
  private loops: Promise<void> | undefined;
  private readonly bots: [Bot, Bot][] = [];

  constructor(
    base: URL | readonly URL[],
    private readonly pairs: number,
    private readonly hooks: PairPlayHooks = {},
    private readonly options: PairPlayOptions = {},
  ) {
    const bases = Array.isArray(base) ? (base as readonly URL[]) : [base as URL];
    if (bases.length === 0) throw new Error('PairPlay needs at least one URL');
    // One keep-alive socket per bot and then some: a bot has at most one request in flight.
    this.requests = bases.map((b) => {
      if (process.env.BENCH_DRIVER_HTTP === 'node') {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 2 * pairs + 16, maxFreeSockets: 2 * pairs + 16 });
        return requester(b, agent, REQUEST_TIMEOUT_MS);
      }
      return poolRequester(new Pool(b.origin, { connections: 2 * pairs + 16, pipelining: 1 }), REQUEST_TIMEOUT_MS);
    });
    this.streamPools = bases.map((b) => new Pool(b.origin, { connections: 2 * pairs + 16, pipelining: 1 }));
  }

  /** The node after `i` (itself with one node). */
  private next(i: number): number {
    return (i + 1) % this.requests.length;
  }

  problem(kind: string, detail = ''): void {
    this.problems[kind] = (this.problems[kind] ?? 0) + 1;
    if (this.problemSamples.length < 10) this.problemSamples.push(`${kind}${detail ? `: ${detail.slice(0, 300)}` : ''}`);
  }

  /** The minted bots' tokens (after prepare). */
  tokens(): string[] {
    return this.bots.flatMap(([w, b]) => [w.token, b.token]);
  }

  /** Mints every pair's two bots (before the measurement window: minting is not the load). */
  async prepare(): Promise<void> {
    const MINTS_IN_FLIGHT = 64;
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < this.pairs; i = next++) {
        const white = await this.mint(`w${i}`, i);
        const black = await this.mint(`b${i}`, i);
        if (white && black) this.bots.push([white, black]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(MINTS_IN_FLIGHT, this.pairs) }, worker));
  }

  start(): void {
    this.loops = Promise.all(this.bots.map(([white, black]) => this.pair(white, black))).then(() => undefined);
  }

  /** Stops playing: resigns the running games and waits up to `windDownMs` for them to end. */
  async stop(windDownMs: number): Promise<void> {
    this.stopping = true;
    const now = performance.now();
    let stalled = 0;
    for (const g of this.active) {
      if (g.ended) continue;
      if (now - g.lastEvent > STALL_MS) stalled++;
      this.gamesResignedAtEnd++;
      void this.requests[g.white.home]('POST', `/bot/game/${g.id}/resign`, g.white.token).catch((e: unknown) => this.problem('resign failed', String(e)));
    }
    if (stalled) this.problem('games stalled at the end', `${stalled} without an event for ${STALL_MS} ms`);
    const settled = await Promise.race([
      (this.loops ?? Promise.resolve()).then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), windDownMs).unref()),
    ]);
    const unfinished = this.unfinished();
    if (!settled) this.problem('games not ended after resign', `${unfinished} still open ${windDownMs} ms after resigning`);
    for (const close of this.openStreams) close();
    await Promise.all(this.streamPools.map((p) => p.destroy().catch(() => undefined)));
  }

  unfinished(): number {
    return [...this.active].filter((g) => !g.ended).length;
  }

  summary(windowS: number) {
    const sorted = this.latencies.sort((a, b) => a - b);
    return {
      pairs: this.pairs,
      windowS,
      turns: this.turns,
      turnsPerS: this.turns / windowS,
      moves: this.moves,
      movesPerS: this.moves / windowS,
      passes: this.passes,
      gamesStarted: this.gamesStarted,
      gamesCompleted: this.gamesCompleted,
      gamesPerS: this.gamesCompleted / windowS,
      gamesResignedAtEnd: this.gamesResignedAtEnd,
      gamesUnfinished: this.unfinished(),
      verdictMs: { count: sorted.length, p50: pct(sorted, 0.5), p99: pct(sorted, 0.99), max: sorted[sorted.length - 1] ?? 0 },
      statuses: this.statuses,
      verdictsAfterWindow: this.afterWindow,
      problems: this.problems,
      problemSamples: this.problemSamples,
    };
  }

  private async expectJson<T>(what: string, want: number, p: Promise<Answer>): Promise<T | undefined> {
    try {
      const a = await p;
      if (a.status === want) return JSON.parse(a.text) as T;
      this.problem(`${what} ${a.status}`, a.text);
    } catch (e) {
      this.problem(`${what} failed`, (e as Error).message);
    }
    return undefined;
  }

  /** An ndjson stream (on node `node`'s streams pool); resolves when it is over. */
  private stream(node: number, path: string, token: string, onLine: (buf: Buffer, start: number, end: number) => void): Promise<void> {
    return new Promise((resolve) => {
      const close = poolStream(this.streamPools[node], path, token, {
        onStatus: (status) => {
          if (status !== 200) this.problem(`stream ${status}`);
        },
        onChunk: byteLineSplitter(onLine),
        onEnd: (e) => {
          this.openStreams.delete(close);
          if (e && !this.stopping) this.problem('stream failed', e.message);
          resolve();
        },
      });
      this.openStreams.add(close);
    });
  }

  /** A random path for the roll `v` from the bytes `buf` whose tree starts at `at` (null: fetch it). */
  private async pathFor(game: Game, node: number, v: number, buf: Buffer, at: number): Promise<string[] | undefined> {
    if (bytesAt(buf, at, NULL)) {
      const a = await this.requests[node]('GET', `/games/${game.id}/moves`).catch((e: unknown) => {
        this.problem('GET moves failed', String(e));
        return undefined;
      });
      // Resigned under us when the load stopped: the version moved on, nothing to report.
      if (!a || this.stopping) return undefined;
      if (a.status !== 200) {
        this.problem(`GET moves ${a.status}`, a.text);
        return undefined;
      }
      const version = intAfter(a.bytes, '"version":');
      if (version !== v) this.problem('moves version mismatch', `roll v${v}, /moves v${version}`);
      const treeAt = a.bytes.indexOf(LEGAL_MOVES);
      if (treeAt < 0) {
        this.problem('moves without legalMoves', a.text);
        return undefined;
      }
      buf = a.bytes;
      at = treeAt + LEGAL_MOVES.length;
    }
    const path = randomPathIn(buf, at);
    if (path) return path;
    // Not the compact form the scanner reads: parse it (counted, since it costs the driver more).
    this.problem('tree text not compact (parsed instead)');
    const whole = JSON.parse(buf.toString('utf8')) as Record<string, Record<string, unknown>>;
    const tree = (whole.legalMoves ?? whole.DiceRolled?.legalMoves) as Tree;
    return randomPath(tree);
  }

  /** One seat's bot: answers its own rolls once each (a roll can show up in the Snapshot and nowhere else). */
  private async playSeat(game: Game, seat: Seat, bot: Bot): Promise<void> {
    // White streams on its home node and posts to the next; Black the other way round.
    const streamNode = seat === 'White' ? bot.home : this.next(bot.home);
    const moveNode = seat === 'White' ? this.next(bot.home) : bot.home;
    let acted = -1;
    let sawEnd = false;
    const seatMark = Buffer.from(`"seat":"${seat}"`);
    const act = async (v: number, buf: Buffer, at: number): Promise<void> => {
      if (this.stopping || v <= acted) return;
      acted = v;
      if (bytesAt(buf, at, EMPTY_TREE)) return; // forced pass: the server plays it
      const path = await this.pathFor(game, streamNode, v, buf, at);
      if (!path || this.stopping) return;
      const t0 = performance.now();
      let a: Answer;
      try {
        a = await this.requests[moveNode]('POST', `/bot/game/${game.id}/move`, bot.token, `{"moves":${JSON.stringify(path)},"version":${v}}`);
      } catch (e) {
        this.problem('move lost', (e as Error).message);
        return;
      }
      const t1 = performance.now();
      this.latencies.push(t1 - t0);
      if (this.stopping) {
        // In flight when the window closed: the game may have been resigned under it (409 game over).
        this.afterWindow++;
        return;
      }
      this.statuses[a.status] = (this.statuses[a.status] ?? 0) + 1;
      if (a.status === 200) {
        this.moves++;
        this.hooks.onVerdict?.(game.id, intAfter(a.bytes, '"version":'), t0, t1);
      } else if (a.status === 202) this.problem('verdict late (202)', `${game.id} v${v}, posted to node ${moveNode}`);
      else this.problem(`move ${a.status}`, a.text);
    };
    const run = (p: Promise<void>) => p.catch((e: unknown) => this.problem('bot error', String(e)));
    const onLine = (buf: Buffer, start: number, end: number): void => {
      game.lastEvent = performance.now();
      if (bytesAt(buf, start, PREFIX.dice)) {
        // '{"DiceRolled":{"v":N,"seat":"…",…': the other seat's rolls are not this bot's business,
        // and are never decoded.
        const seatAt = buf.indexOf(SEAT_KEY, start + PREFIX.dice.length);
        if (seatAt < 0 || seatAt >= end || !bytesAt(buf, seatAt, seatMark)) return;
        const treeAt = buf.indexOf(LEGAL_MOVES, seatAt);
        if (treeAt < 0 || treeAt >= end) {
          this.problem('DiceRolled without legalMoves', buf.toString('utf8', start, Math.min(end, start + 300)));
          return;
        }
        void run(act(intAfter(buf, '"v":', start), buf, treeAt + LEGAL_MOVES.length));
      } else if (bytesAt(buf, start, PREFIX.turn)) {
        if (seat === 'White' && !this.stopping) {
          this.turns++;
          const pass = buf.indexOf(EMPTY_MOVES, start);
          if (pass >= 0 && pass < end) this.passes++;
        }
      } else if (bytesAt(buf, start, PREFIX.ended)) {
        sawEnd = true;
        game.ended = true;
        if (seat === 'White' && !this.stopping) this.gamesCompleted++;
      } else if (bytesAt(buf, start, PREFIX.snapshot)) {
        let st: { version: number; activeSeat: Seat; dicePending: boolean; legalMoves: Tree | null };
        const line = buf.toString('utf8', start, end);
        try {
          st = (JSON.parse(line) as { Snapshot: { state: typeof st } }).Snapshot.state;
        } catch {
          this.problem('bad ndjson line', line);
          return;
        }
        if (!st.dicePending || st.activeSeat !== seat) return;
        // Rare (a roll made before the stream opened): re-serialise the tree for the scanner.
        void run(act(st.version, Buffer.from(st.legalMoves === null ? 'null' : JSON.stringify(st.legalMoves)), 0));
      } else if (bytesAt(buf, start, PREFIX.rejected)) {
        if (!this.stopping) this.problem('Rejected event', buf.toString('utf8', start, end));
      } else {
        this.problem('unknown ndjson line', buf.toString('utf8', start, Math.min(end, start + 300)));
      }
    };
    await this.stream(streamNode, `/bot/game/stream/${game.id}`, bot.token, onLine);
    if (!sawEnd && !this.stopping) {
      this.problem('game stream closed before GameEnded', `${game.id} ${seat}, streamed from node ${streamNode}`);
      await this.requests[bot.home]('POST', `/bot/game/${game.id}/resign`, bot.token).catch(() => undefined);
    }
  }

  private async mint(label: string, pair: number): Promise<Bot | undefined> {
    const home = pair % this.requests.length;
    const prefix = this.options.registerPrefix;
    if (prefix === undefined) {
      const bot = await this.expectJson<Omit<Bot, 'home'>>('mint', 201, this.requests[home]('POST', `/bot/anon?name=${label}`));
      return bot && { ...bot, home };
    }
    const body = { team: `${prefix}${pair}`, name: label.slice(0, 1) };
    const bot = await this.expectJson<Omit<Bot, 'home'>>('register', 201, this.requests[home]('POST', '/bot/register', undefined, body));
    if (!bot) return undefined;
    // The token reaches the other nodes through the cluster's bots bucket: wait until each knows it.
    for (const request of this.requests) {
      for (let attempt = 0; ; attempt++) {
        const a = await request('GET', '/bot/games', bot.token).catch(() => undefined);
        if (a?.status === 200) break;
        if (attempt >= 100) {
          this.problem('registered token unknown to a node', a ? `${a.status} ${a.text}` : 'no answer');
          return undefined;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    return { ...bot, home };
  }

  private async pair(white: Bot, black: Bot): Promise<void> {
    const challenge = JSON.stringify({ team: black.team, name: black.name });
    while (!this.stopping) {
      const home = this.requests[white.home];
      const ch = await this.expectJson<{ id: string }>('challenge', 201, home('POST', '/bot/challenge', white.token, challenge));
      const acceptSent = performance.now();
      const created = ch && (await this.expectJson<{ gameId: string }>('accept', 201, home('POST', `/bot/challenge/${ch.id}/accept`, black.token)));
      if (!created) {
        await new Promise((r) => setTimeout(r, 100)); // a refused set-up is reported; do not spin on it
        continue;
      }
      if (this.stopping) {
        await home('POST', `/bot/game/${created.gameId}/resign`, white.token).catch(() => undefined);
        break;
      }
      this.gamesStarted++;
      const game: Game = { id: created.gameId, white, ended: false, lastEvent: performance.now() };
      this.active.add(game);
      this.hooks.onGame?.(game.id, acceptSent, game.lastEvent);
      await Promise.all([this.playSeat(game, 'White', white), this.playSeat(game, 'Black', black)]);
      this.active.delete(game);
    }
  }
}
