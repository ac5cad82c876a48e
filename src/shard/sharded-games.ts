// The main thread's side of the shards: the GameFactory, MirrorPairFactory and GameDirectory the
// edge and the services use, with every actor in a shard. A game's shard is fixed by its id
// (protocol.ts: shardIndex), so main needs no routing table and a restarted server finds the same
// shard for the same game. Commands leave in one batch per shard per event-loop turn; replies are
// applied in order: a version is written (forwarding store), adopted by its mirror, then published.
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
import { isEnded } from '../game/view.js';
import type { Store } from '../store/types.js';
import type { HeapFigures } from './cpu.js';
import { MirrorGame, type MirrorLink } from './mirror.js';
import { shardIndex, shardKey, type Command, type Reply, type TreeWire } from './protocol.js';
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
  /** A shard's store write (reported with the version it persisted). */
  onStoreWrite?: (op: 'putGame' | 'finishGame', seconds: number) => void;
  /** Wraps the handling of each batch of replies (the edge gathers the stream writes it makes). */
  aroundBatch?: (fn: () => void) => void;
}

type Pending =
  | { kind: 'verdict'; shard: number; resolve: (v: MoveVerdict | 'busy') => void }
  | { kind: 'done'; shard: number; resolve: () => void; reject: (e: Error) => void };

/** After this many deaths in a row within RESTART_WINDOW_MS, restarts wait (doubling, capped). */
const RESTART_WINDOW_MS = 10_000;
const RESTART_DELAY_MAX_MS = 30_000;

interface Shard {
  index: number;
  channel: ShardChannel;
  out: Command[];
  flushing: boolean;
  cpuSeconds: number;
  /** V8 heap from the shard's last stats (zero until the first). */
  heap: HeapFigures;
  deaths: number;
  lastDeath: number;
  /** Between its death and the end of its games' resume: commands wait in `held`, not sent. */
  restarting: boolean;
  held: Command[];
  /** Grows at every death, so a restart overtaken by another death stands down. */
  generation: number;
}

/** Commands one restarting shard may hold for later; past it they are answered at once. */
export const HELD_MAX = 10_000;

export class ShardedGames extends ShelvedGames<MirrorGame> implements GameFactory, MirrorPairFactory, GameDirectory, MirrorLink {
  protected readonly shelf: GameShelf<MirrorGame>;
  private readonly cfg;
  private readonly shards: Shard[];
  private readonly pending = new Map<number, Pending>();
  /** Main-thread seconds spent applying shard replies (mirrors, store writes, the fan-out to streams). */
  applySeconds = 0;
  private nextRid = 1;
  private stopping = false;

  constructor(private readonly d: ShardedGamesDeps) {
    super();
    if (!Number.isInteger(d.shards) || d.shards < 1) throw new Error(`shards must be a positive integer, got ${d.shards}`);
    this.cfg = withDefaults(d.config);
    this.shelf = new GameShelf(d.store, this.cfg.archiveSize, d.listeners, d.log);
    this.shards = Array.from({ length: d.shards }, (_, index) => ({
      index, channel: this.open(index), out: [], flushing: false, cpuSeconds: 0, heap: { used: 0, total: 0 }, deaths: 0, lastDeath: 0, restarting: false, held: [], generation: 0,
    }));
  }

  /** Per-shard CPU seconds (from the shards' last stats), for /metrics. */
  shardCpuSeconds(): number[] {
    return this.shards.map((s) => s.cpuSeconds);
  }

  /** Per-shard V8 heap (from the shards' last stats), for /metrics. */
  shardHeap(): HeapFigures[] {
    return this.shards.map((s) => s.heap);
  }

  get shardCount(): number {
    return this.shards.length;
  }

  private shardOf(id: string, mirrorOf: string | null): Shard {
    return this.shards[shardIndex(shardKey(id, mirrorOf), this.shards.length)];
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
    await Promise.all(this.shards.map((s) => s.channel.close()));
  }

  /** Tests: makes shard `index` throw an uncaught error, as a bug would. */
  crash(index: number): void {
    this.enqueue(this.shards[index], { t: 'crash' });
  }

  // ---- the mirrors' commands --------------------------------------------------------------------

  move(id: string, seat: Seat, moves: string[], at: number, seen: number | null): Promise<MoveVerdict | 'busy'> {
    const shard = this.shardOfLive(id);
    return new Promise((resolve) => {
      const rid = this.nextRid++;
      this.pending.set(rid, { kind: 'verdict', shard: shard.index, resolve });
      this.enqueue(shard, { t: 'move', rid, id, seat, moves, at, seen });
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
    return new Promise((resolve, reject) => {
      const rid = this.nextRid++;
      this.pending.set(rid, { kind: 'done', shard: shard.index, resolve, reject });
      this.enqueue(shard, make(rid), bypass);
    });
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
      if (batch.length > 0) shard.channel.send(batch);
    });
  }

  private receive(index: number, batch: readonly Reply[]): void {
    const t0 = performance.now();
    if (this.d.aroundBatch) this.d.aroundBatch(() => this.replies(index, batch));
    else this.replies(index, batch);
    this.applySeconds += (performance.now() - t0) / 1000;
  }

  private replies(index: number, batch: readonly Reply[]): void {
    for (const r of batch) {
      try {
        this.reply(index, r);
      } catch (e) {
        this.d.log.error({ shard: index, reply: r.t, err: e instanceof Error ? e.stack ?? e.message : String(e) }, 'shard reply failed');
      }
    }
  }

  private reply(index: number, r: Reply): void {
    switch (r.t) {
      case 'update':
        return this.update(r);
      case 'started':
        return this.announced(r.rec, null, 'gameStarted');
      case 'resumed':
        return this.announced(r.rec, r.tree, 'gameResumed');
      case 'write':
        this.write(r.results ? this.d.store.finishGame(r.rec, r.results) : this.d.store.putGame(r.rec), r.rec.id);
        return;
      case 'verdict': {
        const p = this.pending.get(r.rid);
        this.pending.delete(r.rid);
        if (p?.kind === 'verdict') p.resolve(r.verdict);
        return;
      }
      case 'done':
      case 'failed': {
        const p = this.pending.get(r.rid);
        this.pending.delete(r.rid);
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
      g.reset(rec, tree);
    } else {
      g = new MirrorGame(rec, tree, this, this.d.clock, this.cfg.inlineLeafCap, this.d.log);
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

  private update(u: Extract<Reply, { t: 'update' }>): void {
    const g = this.shelf.get(u.id);
    if (!g) return;
    const rec = g.recordOf(u);
    if (u.wrote) this.d.onStoreWrite?.(u.wrote[0], u.wrote[1]);
    // Written before published: nobody sees a version the store does not hold.
    if (u.write) this.write(this.d.store.finishGame(rec, u.write.results), u.id);
    g.apply(u, rec);
    for (let i = 0; i < u.turns; i++) this.shelf.notify('turnApplied', g);
    if (isEnded(rec)) {
      this.shelf.retire(g, rec);
      // The second game of a mirror pair ended: the first one's read handle may hold its reveal back.
      if (rec.mirrorOf !== null) this.shelf.forget(rec.mirrorOf);
      this.shelf.notify('gameEnded', g, rec);
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
    else p?.reject(new Error(`shard ${index} is restarting`));
  }

  private async restart(shard: Shard, err: Error, generation: number): Promise<void> {
    if (this.stopping || generation !== shard.generation) return;
    shard.channel = this.open(shard.index);
    this.d.onRestart?.(shard.index, err);
    try {
      // A memory server's live versions are its mirrors' records; LMDB's are in the store.
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
