// One shard: the game actors of the games whose ids map to it, behind a command/reply channel. It
// runs a GameRegistry of its own (actors, clocks, rules in-thread, house players, mirror pairs, the
// store writes) and reports every committed version to the main thread as an `update`: the record's
// head, the history entries main lacks, the pending tree when it changed and the already-encoded
// event lines. Replies are batched: one array per event-loop turn.
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { GameRecord, ResultRecord } from '../../domain/records.js';
import type { GameConfig } from '../../game/game-config.js';
import { GameRegistry } from '../../game/game-registry.js';
import { packRecord, unpackRecord } from '../../game/game-index.js';
import type { HouseKind } from '../../game/house.js';
import type { GameActor } from '../../game/actor.js';
import type { EventFrame } from '../../game/types.js';
import { isTurnPlayed, type PendingTree } from '../../game/view.js';
import type { GameStore } from '../../store/types.js';
import { TimedStore } from './timed-store.js';
import type { ForwardingStore } from './forwarding-store.js';
import { chunked, headOf, treeJsonOfLine, type Command, type ShardReply, type TreeWire } from '../protocol/messages.js';
import { threadCpuSeconds, threadHeapBytes } from './cpu.js';
import { RecentMap } from '../../domain/recent-map.js';
import { commandSpec, runCommand } from '../../game/commands.js';

/**
 * Where a shard's games are stored, said explicitly: `shared`, the server's own store (LMDB opened
 * in this thread: the shard writes its games itself); `forwarding`, a memory server's, where a
 * game's ending travels to main with its last version and main stores it.
 */
export type ShardStore = { mode: 'shared'; games: GameStore } | { mode: 'forwarding'; games: ForwardingStore };

/** Recently ended games a shard keeps for a late `sync`. */
const ENDED_KEPT = 256;
/** Command ids a shard remembers (with their replies) to answer a repeat without acting twice. */
export const REPLIES_KEPT = 10_000;
const RUNNING = 'running' as const;
/** How many `heads` in a row name a game after its last update. */
const HEADS_REPEAT = 3;
/** How many games each `heads` names besides the recently updated ones (every game in turn). */
export const HEADS_SWEEP = 64;

export interface ShardHostDeps {
  store: ShardStore;
  clock: Clock;
  config: GameConfig;
  log: Logger;
  housePlayers: Map<string, HouseKind>;
  random?: () => number;
  /** New games' server seeds (tests: a fixed sequence, so a run can be replayed); random by default. */
  serverSeed?: () => Uint8Array;
  /** Sends one batch of replies to main. */
  post(batch: ShardReply[]): void;
  /** Runs `fn` after the current event-loop turn (setImmediate in a server). */
  later(fn: () => void): void;
  /** Period of the `stats` reply; 0: none. */
  statsEveryMs: number;
  /**
   * Where a game's update count starts when it is announced (default 0). A cluster node gives a
   * number past anything an earlier owner of the game can have reached (from its clock), so the
   * replicas of other nodes see a gap and resync instead of taking its updates for old ones.
   */
  seqBase?: () => number;
  /** Period of the `heads` reply (on `clock`), while games are being updated; default 1000 ms. */
  headsEveryMs?: number;
  /** How long a command's reply is kept for a repeat (past its senders' deadline); default: no limit but the count. */
  repliesKeptMs?: number;
  /** How long an ended game is kept for a late `sync`; default: no limit but the count. */
  endedKeptMs?: number;
}

/** The tree with its text: encoded here, by the game's owner, so main keeps the bytes as they come. */
const treeWire = (t: PendingTree | null): TreeWire | null =>
  t ? { dfen: t.dfen, leaves: t.leaves, text: Buffer.from(t.fullJson(), 'utf8') } : null;

/** A new tree whose JSON the version's DiceRolled line already carries goes without it (main reads it there). */
function newTreeWire(t: PendingTree | null, frames: readonly EventFrame[]): TreeWire | null {
  if (t === null) return null;
  if (frames.some((f) => treeJsonOfLine(f.line) !== undefined)) return { dfen: t.dfen, leaves: t.leaves };
  return treeWire(t);
}

export class ShardHost {
  private readonly timed: TimedStore;
  /** The forwarding store of a memory server; null when the shard writes a shared store itself. */
  private readonly fwd: ForwardingStore | null;
  /** Result lines of games that just ended, until their `ended` entry takes them (forwarding only). */
  private readonly lastResults = new Map<string, ResultRecord[]>();
  /**
   * Games updated lately, with how many more `heads` still name them (each is named in HEADS_REPEAT
   * of them, so one lost `heads` hides nothing), and its timer (armed only while there are some).
   */
  private readonly touched = new Map<string, number>();
  private heads: { cancel(): void } | null = null;
  /** The games still to be named in the current round of `heads` (see sendHeads); halted: no more. */
  private round: string[] = [];
  private halted = false;
  private readonly registry: GameRegistry;
  private out: ShardReply[] = [];
  private flushing = false;
  /**
   * By announced game id: the history entries main was last sent and the count of updates sent; an
   * unannounced game's versions are not sent.
   */
  private readonly known = new Map<string, { hist: number; seq: number }>();
  /**
   * Recently ended games, for a late `sync` (with their result lines when main stores them); each
   * record msgpack-encoded, a quarter of its objects' heap and one buffer instead of an object per turn.
   */
  private readonly ended: RecentMap<string, { rec: Uint8Array; seq: number; results?: ResultRecord[] }>;
  private readonly stats: NodeJS.Timeout | null;
  /** Build time of each game's newest tree not yet reported (an entry per live game at most). */
  private readonly treeTimes = new Map<string, number>();
  /** Commands taken lately, by rid: the first reply of each (RUNNING until it is made), for a repeat. */
  private readonly replies: RecentMap<number, ShardReply | typeof RUNNING>;
  /** Games a running create, pair or resume is making appear, and its rid (bounded by those commands). */
  private readonly announcing = new Map<string, number>();

  constructor(private readonly deps: ShardHostDeps) {
    this.replies = new RecentMap({ clock: deps.clock, windowMs: deps.repliesKeptMs ?? Infinity, max: REPLIES_KEPT });
    this.ended = new RecentMap({ clock: deps.clock, windowMs: deps.endedKeptMs ?? Infinity, max: ENDED_KEPT });
    this.fwd = deps.store.mode === 'forwarding' ? deps.store.games : null;
    this.timed = new TimedStore(deps.store.games);
    this.registry = new GameRegistry({
      store: this.timed,
      clock: deps.clock,
      config: deps.config,
      log: deps.log,
      housePlayers: deps.housePlayers,
      random: deps.random,
      serverSeed: deps.serverSeed,
      // Ids are chosen by main, which routes by them; a shard never makes one up.
      newId: () => {
        throw new Error('a shard is always given its game ids');
      },
      listeners: [
        {
          gameStarted: (g) => this.announce({ t: 'started', rid: this.announcing.get(g.id) ?? 0, rec: g.record() }),
          gameResumed: (g) => {
            const actor = g as GameActor;
            this.announce({ t: 'resumed', rid: this.announcing.get(g.id) ?? 0, rec: actor.record(), tree: treeWire(actor.pendingTree()) });
          },
          gameEnded: (g, rec) => {
            this.keepEnded(g.id, rec);
            this.known.delete(g.id);
            this.treeTimes.delete(g.id);
            this.timed.last.delete(g.id);
          },
        },
      ],
      onShow: (game, rec, tree, treeChanged, frames) => this.shown(game, rec, tree, treeChanged, frames),
      // Timed here, in the thread that owns the game; reported with the version the tree belongs to.
      onTree: (id, seconds) => this.treeTimes.set(id, seconds),
    });
    this.stats = deps.statsEveryMs > 0 ? setInterval(() => this.emitStats(), deps.statsEveryMs) : null;
    this.stats?.unref();
  }

  private emitStats(): void {
    const heap = threadHeapBytes();
    this.emit({ t: 'stats', cpuSeconds: threadCpuSeconds(), heapUsed: heap.used, heapTotal: heap.total });
  }

  /** Commands whose replies are kept for a repeat now (the tests check their bound). */
  remembered(): number {
    this.replies.prune();
    return this.replies.size;
  }

  /** Commands still running and games still being announced (tests check that both empty). */
  busy(): number {
    let running = 0;
    for (const v of this.replies.values()) if (v === RUNNING) running++;
    return running + this.announcing.size;
  }

  /** One batch of commands from main, in order. */
  receive(batch: readonly Command[]): void {
    for (const c of batch) this.command(c);
  }

  private command(c: Command): void {
    if (c.t === 'crash') {
      // Outside any promise chain: an uncaught error, as a bug would throw.
      setTimeout(() => {
        throw new Error('shard crash requested');
      }, 0);
      return;
    }
    // A read, answered afresh every time (a repeat gets the newer state, which is what it wants).
    if (c.t === 'sync') return this.sync(c.rid, c.id);
    // Seen before (main sent it again): its first reply again, or nothing while it still runs.
    const seen = this.replies.get(c.rid);
    if (seen !== undefined) {
      if (seen !== RUNNING) this.emit(seen);
      return;
    }
    this.replies.set(c.rid, RUNNING);
    switch (c.t) {
      case 'create':
        // Made once: a create the shard no longer remembers (its rid forgotten) finds its game.
        this.request(c.rid, [c.id], () => (this.holds(c.id) ? Promise.resolve() : this.registry.create(c.spec, c.id)));
        return;
      case 'pair':
        this.request(c.rid, c.ids, () => (this.holds(c.ids[0]) ? Promise.resolve() : this.registry.createMirrorPair(c.spec, c.ids)));
        return;
      case 'game':
        return this.game(c);
      case 'resume':
        this.fwd?.hold(c.recs);
        this.request(c.rid, c.recs.map((r) => r.id), () => this.registry.resumeRecords(c.recs));
        return;
      case 'idle':
        this.request(c.rid, [], () => this.registry.idle());
        return;
      case 'stop':
        this.request(c.rid, [], async () => {
          if (this.stats) clearInterval(this.stats);
          this.halted = true;
          this.heads?.cancel();
          this.heads = null;
          await this.registry.stop();
        });
        return;
    }
  }

  /** The shard has (or had) this game. */
  private holds(id: string): boolean {
    return this.registry.get(id) !== undefined || this.ended.has(id);
  }

  /**
   * A game command, whatever it is: the command table (src/game/commands.ts) runs it on the game's
   * actor. One clock decides a game's time: this thread's, which owns the game (see `runCommand`).
   */
  private game(c: Extract<Command, { t: 'game' }>): void {
    const spec = commandSpec(c.name);
    if (spec === undefined) return this.reply({ t: 'failed', rid: c.rid, error: `unknown game command ${c.name}` });
    const actor = this.registry.get(c.id);
    if (actor === undefined) return this.reply({ t: 'answer', rid: c.rid, reply: this.ended.has(c.id) ? spec.over : spec.lost });
    runCommand(actor, c.name, c.payload, this.deps.clock.now()).then(
      (reply) => this.reply({ t: 'answer', rid: c.rid, reply }),
      () => this.reply({ t: 'answer', rid: c.rid, reply: spec.lost }),
    );
  }

  /** Runs a control command; `ids`: the games it announces, tagged with its rid. */
  private request(rid: number, ids: readonly string[], run: () => Promise<unknown>): void {
    for (const id of ids) this.announcing.set(id, rid);
    const settled = (r: ShardReply & { rid: number }): void => {
      for (const id of ids) if (this.announcing.get(id) === rid) this.announcing.delete(id);
      this.reply(r);
    };
    run().then(
      () => settled({ t: 'done', rid }),
      (e: unknown) => settled({ t: 'failed', rid, error: e instanceof Error ? e.message : String(e) }),
    );
  }

  /** A command's reply, kept for a repeat of the command. */
  private reply(r: ShardReply & { rid: number }): void {
    if (this.replies.has(r.rid)) this.replies.replace(r.rid, r);
    this.emit(r);
  }

  /** Tells main of a game, tagged with the command that made it appear (0: none, main ignores it). */
  private announce(r: Extract<ShardReply, { t: 'started' | 'resumed' }>): void {
    const seq = this.deps.seqBase?.() ?? 0;
    this.known.set(r.rec.id, { hist: r.rec.history.length, seq });
    this.emit(seq === 0 ? r : { ...r, seq });
  }

  /**
   * The newest `seq` of the games updated lately (in HEADS_REPEAT reports after each update) and of
   * HEADS_SWEEP others, every live and kept ended game in turn, while the shard has any. Only this
   * shows main that a game's last update was lost (the game then waits on a move main cannot show),
   * and reports are lost too: naming a game a fixed number of times after its last update left it
   * stuck whenever all of those were lost. So a game is named for as long as it may be behind.
   */
  private sendHeads(): void {
    this.heads = null;
    if (this.halted) return;
    const seqs: ShardReply & { t: 'heads' } = { t: 'heads', seqs: [] };
    const named = new Set<string>();
    const name = (id: string): void => {
      const live = this.known.get(id)?.seq, ended = this.ended.get(id)?.seq;
      if (named.has(id) || (live ?? ended) === undefined) return;
      named.add(id);
      seqs.seqs.push(live !== undefined ? [id, live] : [id, ended!, 1]);
    };
    for (const [id, left] of this.touched) {
      name(id);
      if (left > 1) this.touched.set(id, left - 1);
      else this.touched.delete(id);
    }
    // A new round at most once a report (one left with gone games only still names the live ones).
    for (let n = 0, refilled = false; n < HEADS_SWEEP; n++) {
      if (this.round.length === 0 && !refilled) [this.round, refilled] = [[...this.known.keys(), ...[...this.ended.entries()].map(([id]) => id)], true];
      if (this.round.length === 0) break;
      name(this.round.pop()!);
    }
    this.emit(seqs);
    // One more after the last games went (empty); timed from the next turn, so a clock moved a day at once makes one.
    if (seqs.seqs.length === 0) return;
    let off = false;
    this.heads = { cancel: () => void (off = true) };
    this.deps.later(() => void (off || this.halted || (this.heads = this.deps.clock.schedule(this.deps.headsEveryMs ?? 1000, () => this.sendHeads()))));
  }

  /** A game's whole state again, for main after a gap (see the `sync` command). */
  private sync(rid: number, id: string): void {
    const actor = this.registry.get(id);
    const known = this.known.get(id);
    if (actor !== undefined && known !== undefined) {
      known.hist = actor.record().history.length;
      this.emit({ t: 'synced', rid, rec: actor.record(), tree: treeWire(actor.pendingTree()), seq: known.seq });
      return;
    }
    const ended = this.ended.get(id);
    if (ended !== undefined) this.emit({ t: 'synced', rid, rec: unpackRecord(ended.rec), tree: null, seq: ended.seq, ...(ended.results ? { results: ended.results } : {}) });
    else this.emit({ t: 'failed', rid, error: `game ${id} is not on this shard` });
  }

  /** Bounded by count (the oldest ending goes first) and, on a cluster node, by time. */
  private keepEnded(id: string, rec: GameRecord): void {
    const seq = this.known.get(id)?.seq ?? 0;
    const results = this.lastResults.get(id);
    this.lastResults.delete(id);
    const bytes = packRecord(rec);
    this.ended.set(id, results ? { rec: bytes, seq, results } : { rec: bytes, seq });
  }

  private shown(game: GameActor, rec: GameRecord, tree: PendingTree | null, treeChanged: boolean, frames: EventFrame[]): void {
    const known = this.known.get(game.id);
    // Not announced yet (a game settling during resume): main gets its whole record when it is.
    if (known === undefined) return;
    const from = known.hist;
    const update: Extract<ShardReply, { t: 'update' }> = {
      t: 'update',
      id: game.id,
      seq: ++known.seq,
      head: headOf(rec),
      from,
      hist: rec.history.length > from ? rec.history.slice(from) : [],
      lines: frames.map((f) => [f.v, f.line]),
      turns: frames.reduce((n, f) => n + (isTurnPlayed(f) ? 1 : 0), 0),
    };
    if (treeChanged) update.tree = newTreeWire(tree, frames);
    const built = this.treeTimes.get(game.id);
    if (built !== undefined) {
      this.treeTimes.delete(game.id);
      update.treeSeconds = built;
    }
    const wrote = this.timed.last.get(game.id);
    if (wrote) {
      this.timed.last.delete(game.id);
      update.wrote = wrote;
    }
    const w = this.fwd?.take(game.id);
    if (w) {
      update.write = w;
      this.lastResults.set(game.id, w.results);
    }
    known.hist = rec.history.length;
    this.emit(update);
    this.touched.set(game.id, HEADS_REPEAT);
    if (!this.halted) this.heads ??= this.deps.clock.schedule(this.deps.headsEveryMs ?? 1000, () => this.sendHeads());
  }

  private emit(r: ShardReply): void {
    this.out.push(r);
    if (this.flushing) return;
    this.flushing = true;
    this.deps.later(() => this.flush());
  }

  private flush(): void {
    this.flushing = false;
    if (this.fwd) for (const w of this.fwd.drain()) this.out.push({ t: 'write', ...w });
    const batch = this.out;
    this.out = [];
    // Bounded in bytes and count: a turn that made a lot (a resume, many endings) goes as several.
    for (const part of chunked(batch)) this.deps.post(part);
  }
}
