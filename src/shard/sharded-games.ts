// The main thread's side of the shards: the GameFactory, MirrorPairFactory and GameDirectory the
// edge and the services use, with every actor in a shard. A game's shard is fixed by its id
// (protocol.ts: shardIndex), so main needs no routing table and a restarted server finds the same
// shard for the same game. Commands leave in one batch per shard per event-loop turn; replies are
// applied in order: a version is written (forwarding store), adopted by its replica, then published.
// A shard that dies is started again and given its live games back from the store; the streams of
// its games are closed (their subscribers reconnect and get a fresh Snapshot).
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../domain/log.js';
import type { GameRecord } from '../domain/records.js';
import type { MoveVerdict, Seat } from '../domain/types.js';
import { withDefaults, type GameConfig } from '../game/game-config.js';
import { GameShelf, ShelvedGames } from '../game/shelf.js';
import type {
  GameDirectory, GameFactory, GameHandle, GameLifecycleListener, MirrorPairFactory, NewGameSpec,
} from '../game/types.js';
import { isEnded, refusedMoveSeat } from '../game/view.js';
import type { Store } from '../store/types.js';
import { GameReplica, type ReplicaLink } from './replica.js';
import { chunked, shardIndex, shardKey, type Command, type ShardReply, type TreeWire } from './protocol.js';
import type { ShardChannel, ShardTransport } from './transport.js';

export interface ShardedGamesDeps {
  transport: ShardTransport;
  shards: number;
  /** The server's store: main reads games from it, and writes them there when `forwarded`. */
  store: Store;
  /** The shards' writes arrive with their versions (a memory store lives on this thread only). */
  forwarded: boolean;
  clock: Clock;
  config: GameConfig;
  listeners: GameLifecycleListener[];
  newId: () => string;
  log: Logger;
  /** A shard was restarted after dying. */
  onRestart?: (index: number, err: Error) => void;
  /** A shard built a roll's legal-move tree in this many seconds (reported with its version). */
  onTree?: (seconds: number) => void;
  /** A shard's store write (reported with the version it persisted). */
  onStoreWrite?: (op: 'putGame' | 'finishGame', seconds: number) => void;
  /** Wraps the handling of each batch of replies (the edge gathers the stream writes it makes). */
  aroundBatch?: (fn: () => void) => void;
  /** A move whose verdict has not come back in this long is answered 'busy' (default 30 s). */
  verdictTimeoutMs?: number;
  /** Other requests (create, resume, sync, stop…) fail after this long (default 5 min). */
  requestTimeoutMs?: number;
  /** Requests waiting for an answer, across shards (default PENDING_MAX). */
  pendingMax?: number;
  /**
   * Cluster mode: shards run on other nodes too, and every node sees every game's updates. An update
   * or a `heads` naming a game this node has no replica of makes it ask the owner for the game
   * (`sync`) and keep a replica from then on.
   */
  adoptUnknown?: boolean;
}

type Pending = { shard: number; deadline: number } & (
  | { kind: 'verdict'; resolve: (v: MoveVerdict | 'busy') => void }
  | { kind: 'done'; resolve: () => void; reject: (e: Error) => void }
  /** `tree`: asked only for the pending tree's text (main let it go), not for a gap; `adopt`: a game main has no replica of. */
  | { kind: 'sync'; id: string; tree?: true; adopt?: true }
);

/** Requests waiting for a shard's answer, across shards; past it a new one is answered at once. */
export const PENDING_MAX = 100_000;
const SWEEP_EVERY_MS = 1000;

/** After this many deaths in a row within RESTART_WINDOW_MS, restarts wait (doubling, capped). */
const RESTART_WINDOW_MS = 10_000;
const RESTART_DELAY_MAX_MS = 30_000;

interface Shard {
  index: number;
  channel: ShardChannel;
  out: Command[];
  flushing: boolean;
  cpuSeconds: number;
  /** V8 heap of the shard's thread (bytes), from its last stats. */
  heap: { used: number; total: number };
  deaths: number;
  lastDeath: number;
  /** Between its death and the end of its games' resume: commands wait in `held`, not sent. */
  restarting: boolean;
  held: Command[];
  /** Grows at every death, so a restart overtaken by another death stands down. */
  generation: number;
  /** The games its last `heads` named. */
  reported: string[];
}

/** Commands one restarting shard may hold for later; past it they are answered at once. */
export const HELD_MAX = 10_000;

export class ShardedGames extends ShelvedGames<GameReplica> implements GameFactory, MirrorPairFactory, GameDirectory, ReplicaLink {
  protected readonly shelf: GameShelf<GameReplica>;
  private readonly cfg;
  private readonly shards: Shard[];
  private readonly pending = new Map<number, Pending>();
  /** Main-thread seconds spent applying shard replies (replicas, store writes, the fan-out to streams). */
  applySeconds = 0;
  private nextRid = 1;
  private stopping = false;
  private sweeping: { cancel(): void } | null = null;
  private readonly verdictTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly pendingMax: number;
  /** Games asked for by `adopt`, until their answer. */
  private readonly adopting = new Set<string>();

  constructor(private readonly d: ShardedGamesDeps) {
    super();
    if (!Number.isInteger(d.shards) || d.shards < 1) throw new Error(`shards must be a positive integer, got ${d.shards}`);
    this.cfg = withDefaults(d.config);
    this.verdictTimeoutMs = d.verdictTimeoutMs ?? 30_000;
    this.requestTimeoutMs = d.requestTimeoutMs ?? 300_000;
    this.pendingMax = d.pendingMax ?? PENDING_MAX;
    this.shelf = new GameShelf(d.store, { size: this.cfg.archiveSize, bytes: this.cfg.archiveBytes }, d.listeners, d.log);
    this.shards = Array.from({ length: d.shards }, (_, index) => ({
      index, channel: this.open(index), out: [], flushing: false, cpuSeconds: 0, heap: { used: 0, total: 0 }, deaths: 0, lastDeath: 0, restarting: false, held: [], generation: 0, reported: [],
    }));
  }

  /** Requests waiting for a shard's answer (tests check that it empties). */
  waiting(): number {
    return this.pending.size;
  }

  /** Per-shard CPU seconds (from the shards' last stats), for /metrics. */
  shardCpuSeconds(): number[] {
    return this.shards.map((s) => s.cpuSeconds);
  }

  /** Per-shard V8 heap (from the shards' last stats), for /metrics. */
  shardHeapBytes(): { used: number; total: number }[] {
    return this.shards.map((s) => s.heap);
  }

  private shardOf(id: string, mirrorOf: string | null): Shard {
    return this.shards[shardIndex(shardKey(id, mirrorOf), this.shards.length)];
  }

  /** The logical shard of a live game (cluster mode: which node owns it). */
  shardOfGame(id: string): number {
    return this.shardOfLive(id).index;
  }

  /** The shard of a game main knows as live (its record says whether it has a mirror-pair twin). */
  private shardOfLive(id: string): Shard {
    return this.shardOf(id, this.shelf.get(id)?.record().mirrorOf ?? null);
  }

  // ---- factory --------------------------------------------------------------------------------

  async create(spec: NewGameSpec): Promise<GameHandle> {
    if (this.stopping) throw new Error('game registry is stopping');
    const id = this.d.newId();
    const shard = this.shardOf(id, null);
    await this.request(shard, (rid) => ({ t: 'create', rid, id, spec }));
    return this.created(id);
  }

  async createMirrorPair(spec: NewGameSpec): Promise<[GameHandle, GameHandle]> {
    if (this.stopping) throw new Error('game registry is stopping');
    const ids: [string, string] = [this.d.newId(), this.d.newId()];
    const shard = this.shardOf(ids[0], ids[1]);
    await this.request(shard, (rid) => ({ t: 'pair', rid, ids, spec }));
    return [this.created(ids[0]), this.created(ids[1])];
  }

  /** The handle of a game the shard announced; an ended one is read from the directory. */
  private created(id: string): GameHandle {
    const g = this.shelf.get(id) ?? this.shelf.find(id);
    if (!g) throw new Error(`game ${id} was created but never announced`);
    return g;
  }

  /** Hands every live game of the store to its shard; resolves once each has settled. */
  async resume(): Promise<number> {
    const recs = this.d.store.listLiveGames().filter((r) => !isEnded(r));
    await Promise.all(this.shards.map((s) => this.resumeShard(s, recs)));
    if (recs.length > 0) this.d.log.info({ games: recs.length, shards: this.shards.length }, 'live games resumed');
    return recs.length;
  }

  private async resumeShard(shard: Shard, all: readonly GameRecord[]): Promise<void> {
    const recs = all.filter((r) => this.shardOf(r.id, r.mirrorOf) === shard);
    if (recs.length === 0) return;
    await this.request(shard, (rid) => ({ t: 'resume', rid, recs }), true);
  }

  /** Resolves once every shard has nothing waiting or running, and its replies are applied. */
  async idle(): Promise<void> {
    await Promise.all(this.shards.map((s) => this.request(s, (rid) => ({ t: 'idle', rid })).catch(() => {})));
  }

  /** Stops every shard's actors (their timers, their running commands), closes the subscribers. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.shards.filter((s) => !s.restarting).map((s) => this.request(s, (rid) => ({ t: 'stop', rid })).catch(() => {})),
    );
    for (const g of this.shelf.live()) g.closeSubscribers();
    this.sweeping?.cancel();
    this.sweeping = null;
    await Promise.all(this.shards.map((s) => s.channel.close()));
  }

  /** Tests: makes shard `index` throw an uncaught error, as a bug would. */
  crash(index: number): void {
    this.enqueue(this.shards[index], { t: 'crash' });
  }

  // ---- the replicas' commands --------------------------------------------------------------------

  move(id: string, seat: Seat, moves: string[], at: number, seen: number | null, version?: number, creditMs?: number): Promise<MoveVerdict | 'busy'> {
    const shard = this.shardOfLive(id);
    if (this.pending.size >= this.pendingMax) return Promise.resolve('busy');
    return new Promise((resolve) => {
      const rid = this.nextRid++;
      this.wait(rid, { kind: 'verdict', shard: shard.index, deadline: this.d.clock.now() + this.verdictTimeoutMs, resolve });
      const cmd: Extract<Command, { t: 'move' }> = { t: 'move', rid, id, seat, moves, at, seen };
      if (version !== undefined) cmd.version = version;
      if (creditMs !== undefined && creditMs > 0) cmd.credit = creditMs;
      this.enqueue(shard, cmd);
    });
  }

  seed(id: string, seat: Seat, seed: string): void {
    this.enqueue(this.shardOfLive(id), { t: 'seed', id, seat, seed });
  }

  resign(id: string, seat: Seat): void {
    this.enqueue(this.shardOfLive(id), { t: 'resign', id, seat });
  }

  // ---- the channel ----------------------------------------------------------------------------

  private open(index: number): ShardChannel {
    return this.d.transport.open(index, {
      replies: (batch) => this.receive(index, batch),
      died: (err) => this.died(index, err),
    });
  }

  private request(shard: Shard, make: (rid: number) => Command, bypass = false): Promise<void> {
    if (this.pending.size >= this.pendingMax) return Promise.reject(new Error('too many requests waiting for the game shards'));
    return new Promise((resolve, reject) => {
      const rid = this.nextRid++;
      this.wait(rid, { kind: 'done', shard: shard.index, deadline: this.d.clock.now() + this.requestTimeoutMs, resolve, reject });
      this.enqueue(shard, make(rid), bypass);
    });
  }

  /** Registers a request waiting for its answer; the sweep answers it at its deadline if none came. */
  private wait(rid: number, p: Pending): void {
    this.pending.set(rid, p);
    this.sweeping ??= this.d.clock.schedule(SWEEP_EVERY_MS, () => this.sweep());
  }

  /** Answers every request past its deadline (a lost command or reply): nothing waits forever. */
  private sweep(): void {
    this.sweeping = null;
    const now = this.d.clock.now();
    for (const [rid, p] of this.pending) {
      if (p.deadline > now) continue;
      this.pending.delete(rid);
      if (p.kind === 'verdict') p.resolve('busy');
      else if (p.kind === 'done') p.reject(new Error(`shard ${p.shard} did not answer in time`));
      else this.syncFailed(p);
    }
    if (this.pending.size > 0 && !this.stopping) this.sweeping = this.d.clock.schedule(SWEEP_EVERY_MS, () => this.sweep());
  }

  private enqueue(shard: Shard, c: Command, bypass = false): void {
    if (shard.restarting && !bypass) {
      // Sent once the shard has its games back; past the bound, answered at once instead.
      if (shard.held.length < HELD_MAX) shard.held.push(c);
      else if ('rid' in c) this.fail(c.rid, shard.index);
      return;
    }
    shard.out.push(c);
    if (shard.flushing) return;
    shard.flushing = true;
    // One message per shard per event-loop turn: every command of this turn rides together.
    setImmediate(() => {
      shard.flushing = false;
      const batch = shard.out;
      shard.out = [];
      // Bounded in bytes and count: a big turn (a resume of many games) goes as several batches.
      for (const part of chunked(batch)) shard.channel.send(part);
    });
  }

  private receive(index: number, batch: readonly ShardReply[]): void {
    const t0 = performance.now();
    if (this.d.aroundBatch) this.d.aroundBatch(() => this.replies(index, batch));
    else this.replies(index, batch);
    this.applySeconds += (performance.now() - t0) / 1000;
  }

  private replies(index: number, batch: readonly ShardReply[]): void {
    for (const r of batch) {
      try {
        this.reply(index, r);
      } catch (e) {
        this.d.log.error({ shard: index, reply: r.t, err: e instanceof Error ? e.stack ?? e.message : String(e) }, 'shard reply failed');
      }
    }
  }

  private reply(index: number, r: ShardReply): void {
    switch (r.t) {
      case 'update':
        return this.update(r, index);
      case 'started':
        return this.announced(r.rec, null, 'gameStarted');
      case 'resumed':
        return this.announced(r.rec, r.tree, 'gameResumed');
      case 'write':
        this.write(r.results ? this.d.store.finishGame(r.rec, r.results) : this.d.store.putGame(r.rec), r.rec.id);
        return;
      case 'verdict': {
        // A verdict answered already (a duplicate, or one past its deadline) finds nothing here.
        const p = this.pending.get(r.rid);
        this.pending.delete(r.rid);
        if (p?.kind === 'verdict') p.resolve(r.verdict);
        return;
      }
      case 'synced':
        return this.synced(r);
      case 'heads':
        return this.heads(this.shards[index], r.seqs);
      case 'done':
      case 'failed': {
        const p = this.pending.get(r.rid);
        this.pending.delete(r.rid);
        if (p?.kind === 'sync') this.syncFailed(p);
        if (p?.kind !== 'done') return;
        if (r.t === 'done') p.resolve();
        else p.reject(new Error(r.error));
        return;
      }
      case 'stats':
        this.shards[index].cpuSeconds = r.cpuSeconds;
        this.shards[index].heap = { used: r.heapUsed, total: r.heapTotal };
        return;
    }
  }

  private announced(rec: GameRecord, tree: TreeWire | null, hook: 'gameStarted' | 'gameResumed'): void {
    let g = this.shelf.get(rec.id);
    if (g) {
      g.seq = 0;
      g.headSeq = 0;
      // Taken over elsewhere (a cluster node died) at a version this replica never showed: its
      // streams missed events, so they end (a reconnect starts from a fresh Snapshot).
      if (g.record().version !== rec.version) g.closeSubscribers();
      g.reset(rec, tree);
    } else {
      g = new GameReplica(rec, tree, this, this.d.clock, this.cfg.inlineLeafCap, this.d.log);
      if (!isEnded(rec)) this.shelf.add(g);
    }
    // A game that ended while it was being resumed is announced ended: it goes straight to the archive.
    if (isEnded(rec)) {
      this.shelf.retire(g, rec);
      this.shelf.notify('gameEnded', g, rec);
      return;
    }
    this.shelf.notify(hook, g);
  }

  private update(u: Extract<ShardReply, { t: 'update' }>, index: number): void {
    const g = this.shelf.get(u.id);
    if (!g) return this.adopt(u.id, index);
    // Only on top of the update before: an old or repeated one is dropped, a gap asks for the whole state.
    if (u.seq <= g.seq || g.syncing) return;
    if (u.seq !== g.seq + 1) return this.resync(g);
    g.seq = u.seq;
    const rec = g.recordOf(u);
    if (u.wrote) this.d.onStoreWrite?.(u.wrote[0], u.wrote[1]);
    if (u.treeSeconds !== undefined) this.d.onTree?.(u.treeSeconds);
    // Written before published: nobody sees a version the store does not hold.
    if (u.write) this.write(this.d.store.finishGame(rec, u.write.results), u.id);
    g.apply(u, rec);
    for (let i = 0; i < u.turns; i++) this.shelf.notify('turnApplied', g);
    for (const [, line] of u.lines) {
      const seat = refusedMoveSeat(line);
      if (seat !== null) this.shelf.notify('moveRefused', g, seat);
    }
    if (isEnded(rec)) {
      this.shelf.retire(g, rec);
      // The second game of a mirror pair ended: the first one's read handle may hold its reveal back.
      if (rec.mirrorOf !== null) this.shelf.forget(rec.mirrorOf);
      this.shelf.notify('gameEnded', g, rec);
    }
  }

  /**
   * A gap in a game's updates (one lost, or overtaken): its subscribers missed events, so their
   * streams end (a reconnect gets a fresh Snapshot), and the owner is asked for the whole state.
   */
  private resync(g: GameReplica): void {
    g.syncing = true;
    g.closeSubscribers();
    this.d.log.warn({ gameId: g.id, seq: g.seq }, 'gap in a game\'s updates: resyncing it from its shard');
    const shard = this.shardOfLive(g.id);
    const rid = this.nextRid++;
    this.wait(rid, { kind: 'sync', shard: shard.index, deadline: this.d.clock.now() + this.verdictTimeoutMs, id: g.id });
    this.enqueue(shard, { t: 'sync', rid, id: g.id });
  }

  /** A replica's large tree fell out of main's store: its owner sends it again (ReplicaLink). */
  refetchTree(id: string): void {
    const g = this.shelf.get(id);
    if (!g) return;
    if (this.pending.size >= this.pendingMax) {
      queueMicrotask(() => g.treeArrived()); // its reader gives up after a few tries
      return;
    }
    const shard = this.shardOfLive(id);
    const rid = this.nextRid++;
    this.wait(rid, { kind: 'sync', tree: true, shard: shard.index, deadline: this.d.clock.now() + this.verdictTimeoutMs, id });
    this.enqueue(shard, { t: 'sync', rid, id });
  }

  /** A game behind what its owner reported a `heads` ago lost its last update(s): resync it. */
  private heads(shard: Shard, seqs: readonly [string, number][]): void {
    // The games of the previous report have had a whole period for their updates to arrive.
    for (const id of shard.reported) {
      const g = this.shelf.get(id);
      if (g && g.headSeq > g.seq && !g.syncing) this.resync(g);
    }
    shard.reported = [];
    for (const [id, seq] of seqs) {
      const g = this.shelf.get(id);
      if (!g) {
        this.adopt(id, shard.index);
        continue;
      }
      g.headSeq = Math.max(g.headSeq, seq);
      shard.reported.push(id);
    }
  }

  /**
   * Cluster mode: a live game this node has no replica of (created before it started, or its
   * announcement lost) is asked for; the answer makes its replica. Also at start, for the live games
   * the store lists.
   */
  adopt(id: string, index?: number): void {
    if (!this.d.adoptUnknown || this.stopping || this.shelf.get(id) || this.adopting.has(id)) return;
    if (this.pending.size >= this.pendingMax) return;
    const shard = index === undefined ? this.shardOf(id, this.d.store.getGame(id)?.mirrorOf ?? null) : this.shards[index];
    const rid = this.nextRid++;
    this.adopting.add(id);
    this.wait(rid, { kind: 'sync', adopt: true, shard: shard.index, deadline: this.d.clock.now() + this.verdictTimeoutMs, id });
    this.enqueue(shard, { t: 'sync', rid, id });
  }

  private synced(r: Extract<ShardReply, { t: 'synced' }>): void {
    const p = this.pending.get(r.rid);
    this.pending.delete(r.rid);
    if (p?.kind === 'sync' && p.adopt) {
      this.adopting.delete(p.id);
      if (!this.shelf.get(r.rec.id) && !isEnded(r.rec)) {
        this.announced(r.rec, r.tree, 'gameResumed');
        const adopted = this.shelf.get(r.rec.id);
        if (adopted) adopted.seq = r.seq;
      }
      return;
    }
    const g = this.shelf.get(r.rec.id);
    if (p?.kind !== 'sync' || !g) return;
    if (p.tree) {
      // Only the tree was asked: it is taken at the version main holds; a newer update carried its own.
      g.treeArrived(r.seq === g.seq && !g.syncing && r.rec.version === g.record().version ? r.tree : undefined);
      return;
    }
    g.syncDone();
    if (r.seq < g.seq) return; // older than what main already applied (a sync overtaken by updates)
    g.seq = r.seq;
    g.reset(r.rec, r.tree);
    if (isEnded(r.rec)) {
      if (r.results) this.write(this.d.store.finishGame(r.rec, r.results), r.rec.id);
      this.shelf.retire(g, r.rec);
      if (r.rec.mirrorOf !== null) this.shelf.forget(r.rec.mirrorOf);
      this.shelf.notify('gameEnded', g, r.rec);
    }
  }

  /** A forwarded write: the memory store applies it at once; a failure is logged (it cannot be undone). */
  private write(p: Promise<void>, id: string): void {
    p.catch((e: unknown) => this.d.log.error({ gameId: id, err: String(e) }, 'could not store a shard write'));
  }

  // ---- a shard dies ---------------------------------------------------------------------------

  private died(index: number, err: Error): void {
    const shard = this.shards[index];
    shard.restarting = true;
    shard.generation++;
    this.d.log.error({ shard: index, err: err.stack ?? err.message }, 'shard died; restarting it');
    // Whatever was waiting on it gets an answer now.
    for (const [rid, p] of this.pending) if (p.shard === index) this.fail(rid, index);
    shard.out = [];
    shard.held = [];
    shard.channel.close().catch(() => {});
    // Events between what main saw and what the store holds are gone with the thread: the streams of
    // its games end, and a reconnecting subscriber starts from a fresh Snapshot.
    for (const g of this.shelf.live()) if (this.shardOfLive(g.id) === shard) g.closeSubscribers();
    if (this.stopping) return;
    const now = this.d.clock.now();
    shard.deaths = now - shard.lastDeath < RESTART_WINDOW_MS ? shard.deaths + 1 : 1;
    shard.lastDeath = now;
    const delay = shard.deaths <= 1 ? 0 : Math.min(RESTART_DELAY_MAX_MS, 250 * 2 ** shard.deaths);
    const generation = shard.generation;
    setTimeout(() => void this.restart(shard, err, generation), delay).unref();
  }

  /** A request its shard will never answer: a move is 'busy' (the bot may send it again). */
  private fail(rid: number, index: number): void {
    const p = this.pending.get(rid);
    this.pending.delete(rid);
    if (p?.kind === 'verdict') p.resolve('busy');
    else if (p?.kind === 'done') p.reject(new Error(`shard ${index} is restarting`));
    else if (p?.kind === 'sync') this.syncFailed(p);
  }

  /** A sync that will not be answered: the game may resync again, or its tree's readers try again. */
  private syncFailed(p: Extract<Pending, { kind: 'sync' }>): void {
    if (p.adopt) {
      this.adopting.delete(p.id);
      return;
    }
    const g = this.shelf.get(p.id);
    if (p.tree) g?.treeArrived();
    else g?.syncDone();
  }

  private async restart(shard: Shard, err: Error, generation: number): Promise<void> {
    if (this.stopping || generation !== shard.generation) return;
    shard.channel = this.open(shard.index);
    this.d.onRestart?.(shard.index, err);
    try {
      // A memory server's live versions are its replicas' records; LMDB's are in the store.
      const live = this.d.forwarded ? this.shelf.live().map((g) => g.record()) : this.d.store.listLiveGames();
      await this.resumeShard(shard, live.filter((r) => !isEnded(r)));
    } catch (e) {
      this.d.log.error({ shard: shard.index, err: String(e) }, 'restarted shard could not resume its games');
    }
    // Died again meanwhile: the newer restart takes over.
    if (generation !== shard.generation) return;
    // Its games are back: what waited meanwhile goes now, in the order it came.
    shard.restarting = false;
    const held = shard.held;
    shard.held = [];
    for (const c of held) this.enqueue(shard, c);
    // A game main still shows live whose end the store holds (the update was lost with the thread).
    for (const g of this.shelf.live()) {
      if (this.shardOfLive(g.id) !== shard) continue;
      const stored = this.d.store.getGame(g.id);
      if (stored && isEnded(stored)) {
        g.reset(stored, null);
        this.shelf.retire(g, stored);
        this.shelf.notify('gameEnded', g, stored);
      }
    }
    this.d.log.info({ shard: shard.index }, 'shard restarted');
  }
}
