// Keeping main's replicas current from what their shards say: a game announced (created, resumed,
// or fetched whole), each `update` applied only on top of the one before, a gap (an update lost or
// overtaken, or a last one `heads` shows missing) resynced from the owner, and a large tree main let
// go asked of the owner again. Written before published: nobody on main sees a version the store lacks.
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { GameRecord } from '../../domain/records.js';
import type { GameIndex } from '../../game/game-index.js';
import { isEnded, refusedMoveSeat } from '../../game/view.js';
import type { Store } from '../../store/types.js';
import { GameReplica, type ReplicaLink } from './replica.js';
import type { HeadsEntry, ShardReply, TreeWire } from '../protocol/messages.js';
import type { Requests } from './requests.js';
import type { ShardLink } from './shard-links.js';

export interface ReplicaFeedDeps {
  gameIndex: GameIndex<GameReplica>;
  store: Store;
  clock: Clock;
  log: Logger;
  link: ReplicaLink;
  requests: Requests;
  inlineLeafCap: number;
  /** How long a `sync` may take. */
  syncTimeoutMs: number;
  /** The shard of a live game. */
  shardOf(id: string): number;
  write(p: Promise<void>, id: string): void;
  /** Cluster mode: a game named by its owner that this node has no replica of is asked for. */
  requestGame?: (id: string, shard: number) => void;
  /** Cluster mode: whether this node follows the game now (the cluster's followed games); else its updates are not applied. */
  followed?: (id: string) => boolean;
  /** A replica retired (its game ended). */
  retired?: (id: string) => void;
  onTree?: (seconds: number) => void;
  onStoreWrite?: (op: 'putGame' | 'finishGame', seconds: number) => void;
}

/** How many games' early `seq`s are kept (see ReplicaFeed.early). */
const EARLY_KEPT = 10_000;
/** Games awaited at most (see ReplicaFeed.awaited): the cluster's live games, not clients', fill it. */
export const AWAITED_KEPT = 100_000;
/** How long a game named live by the cluster is awaited here without being named again. */
export const AWAITED_MS = 5 * 60_000;

export class ReplicaFeed {
  /** Updates applied to replicas since the start (for /metrics: in a cluster, only followed games'). */
  applied = 0;
  /** Games asked for by `fetchUnknown`, until their answer (reads of the game wait on `settled`). */
  private readonly fetching = new Map<string, { settled: Promise<void>; done(): void }>();
  /**
   * Cluster mode: the games the cluster says are live (its live index, listed at start, or their
   * owner naming them) that have no replica here yet, with their shard and when they were last
   * named. Such a game is not unknown: its shard may be between two owners (after a whole-cluster
   * restart, until the dead owner's lease runs out), so its reads wait for it rather than answer
   * 404 (see `fetched`). Bounded, oldest first out; an entry goes when the replica is made or the
   * game is known to have ended, or AWAITED_MS after it was last named.
   */
  private readonly awaited = new Map<string, { shard: number; at: number }>();
  /**
   * The newest `seq` an update or a `heads` named for a game before this node had its replica (its
   * announcement delayed or lost, overtaken by them): the announcement then knows it is already
   * behind. Bounded, oldest first out.
   */
  private readonly early = new Map<string, number>();
  /**
   * Reads waiting for a game's replica to reach the `seq` its owner said it is at (see `current`),
   * by game. Each is a request in flight, ended by the update that brings the seq or by its timer.
   */
  private readonly behind = new Map<string, { seq: number; done(): void }[]>();

  constructor(private readonly deps: ReplicaFeedDeps) {}

  /** A game's whole record, announced (or fetched) at its `seq`: a new replica, or one started over. */
  announced(rec: GameRecord, tree: TreeWire | null, hook: 'gameStarted' | 'gameResumed', seq = 0): void {
    const gameIndex = this.deps.gameIndex;
    let g = gameIndex.get(rec.id);
    if (g) {
      g.seq = seq;
      g.headSeq = 0;
      // Taken over elsewhere (a cluster node died) at a version this replica never showed: its
      // streams missed events, so they end (a reconnect starts from a fresh Snapshot).
      if (g.record().version !== rec.version) g.closeSubscribers();
      g.reset(rec, tree);
    } else {
      g = new GameReplica(rec, tree, this.deps.link, this.deps.clock, this.deps.inlineLeafCap, this.deps.log);
      g.seq = seq;
      if (!isEnded(rec)) gameIndex.add(g);
    }
    const early = this.early.get(rec.id);
    this.early.delete(rec.id);
    this.awaited.delete(rec.id);
    // Reads waiting for this game's fetched go on now (the owner's announcement came first).
    this.fetching.get(rec.id)?.done();
    // A game that ended while it was being resumed is announced ended: it goes straight to the archive.
    if (isEnded(rec)) return this.endReplica(g, rec);
    gameIndex.notify(hook, g);
    // Updates already came and went for it (no later one may come: the game waits on a move this
    // replica cannot show): ask for the whole state now.
    if (early !== undefined && early > seq && !g.syncing) this.resync(g);
  }

  private noteEarly(id: string, seq: number): void {
    if (seq <= (this.early.get(id) ?? 0)) return;
    this.early.delete(id);
    this.early.set(id, seq);
    if (this.early.size > EARLY_KEPT) this.early.delete(this.early.keys().next().value!);
  }

  private endReplica(g: GameReplica, rec: GameRecord): void {
    this.caughtUp(g.id, Infinity);
    this.deps.retired?.(g.id); // before the game index forgets which shard the game is on
    this.deps.gameIndex.retire(g, rec);
    // The second game of a mirror pair ended: the first one's read handle may hold its reveal back.
    if (rec.mirrorOf !== null) this.deps.gameIndex.forget(rec.mirrorOf);
    this.deps.gameIndex.notify('gameEnded', g, rec);
  }

  update(u: Extract<ShardReply, { t: 'update' }>, shard: number): void {
    const g = this.deps.gameIndex.get(u.id);
    if (!g) {
      this.noteEarly(u.id, u.seq);
      return this.deps.requestGame?.(u.id, shard);
    }
    // A game this node stopped following: one still on its way is not applied (its replica stays as it was).
    if (this.deps.followed && !this.deps.followed(u.id)) return;
    // Only on top of the update before: an old or repeated one is dropped, a gap asks for the whole state.
    if (u.seq <= g.seq || g.syncing) return;
    if (u.seq !== g.seq + 1) return this.resync(g);
    g.seq = u.seq;
    this.applied++;
    const rec = g.recordOf(u);
    if (u.wrote) this.deps.onStoreWrite?.(u.wrote[0], u.wrote[1]);
    if (u.treeSeconds !== undefined) this.deps.onTree?.(u.treeSeconds);
    // Written before published: nobody sees a version the store does not hold.
    if (u.write) this.deps.write(this.deps.store.finishGame(rec, u.write.results), u.id);
    g.apply(u, rec);
    this.caughtUp(g.id, u.seq);
    for (let i = 0; i < u.turns; i++) this.deps.gameIndex.notify('turnApplied', g);
    for (const [, line] of u.lines) {
      const seat = refusedMoveSeat(line);
      if (seat !== null) this.deps.gameIndex.notify('moveRefused', g, seat);
    }
    if (isEnded(rec)) this.endReplica(g, rec);
  }

  /**
   * A gap in a game's updates (one lost, or overtaken): its subscribers missed events, so their
   * streams end (a reconnect gets a fresh Snapshot), and the owner is asked for the whole state.
   */
  private resync(g: GameReplica): void {
    g.syncing = true;
    g.closeSubscribers();
    this.deps.log.warn({ gameId: g.id, seq: g.seq }, 'gap in a game\'s updates: resyncing it from its shard');
    const id = g.id;
    const sent = this.askSync(id, this.deps.shardOf(id), (r) => (r ? this.synced(r) : this.deps.gameIndex.get(id)?.syncDone()));
    if (!sent) g.syncDone();
  }

  /**
   * Cluster mode: a live game this node has no replica of (created before it started, elsewhere, or
   * its announcement lost) is asked of its owner (shard `index`); the answer makes its replica. Also
   * at start, for the live games the cluster lists. Until the replica is made the game is awaited here.
   */
  fetchUnknown(id: string, index: number): void {
    if (this.deps.gameIndex.get(id)) return;
    this.await(id, index);
    this.ask(id, index);
  }

  /** Asks the owner for an awaited game's whole state (one request at a time). */
  private ask(id: string, index: number): void {
    if (this.deps.gameIndex.get(id) || this.fetching.has(id)) return;
    let done!: () => void;
    const a = { settled: new Promise<void>((r) => (done = r)), done: () => done() };
    this.fetching.set(id, a);
    const over = (): void => {
      if (this.fetching.get(id) === a) this.fetching.delete(id);
      a.done();
    };
    const sent = this.askSync(id, index, (r) => {
      if (r && isEnded(r.rec)) this.awaited.delete(id);
      if (r && !this.deps.gameIndex.get(r.rec.id) && !isEnded(r.rec)) this.announced(r.rec, r.tree, 'gameResumed', r.seq);
      over();
    });
    if (!sent) over();
  }

  private await(id: string, shard: number): void {
    this.awaited.delete(id);
    this.awaited.set(id, { shard, at: this.deps.clock.now() });
    if (this.awaited.size > AWAITED_KEPT) this.awaited.delete(this.awaited.keys().next().value!);
  }

  /** The awaited entry of a game with no replica here, unless it has lapsed. */
  private awaitedEntry(id: string): { shard: number; at: number } | undefined {
    const e = this.awaited.get(id);
    if (e === undefined || this.deps.gameIndex.get(id)) return undefined;
    if (this.deps.clock.now() - e.at < AWAITED_MS) return e;
    this.awaited.delete(id);
    return undefined;
  }

  /**
   * Cluster mode: a read of game `id`, which this node has no replica of. When the cluster says the
   * game is live, a promise that settles once its owner was asked for it (the replica is then made,
   * unless the owner could not be reached: its shard not served yet); undefined otherwise.
   */
  fetched(id: string): Promise<void> | undefined {
    const e = this.awaitedEntry(id);
    if (e === undefined) return undefined;
    this.ask(id, e.shard);
    return this.fetching.get(id)?.settled;
  }

  /** Cluster mode: true while game `id` is live in the cluster and not on this node's replicas yet. */
  awaiting(id: string): boolean {
    return this.awaitedEntry(id) !== undefined;
  }

  /**
   * Cluster mode: a game followed again after a while (the cluster's followed games), brought up to date from its
   * owner; resolves when done, also when that failed (the replica then stays as it was).
   */
  refresh(id: string): Promise<void> {
    return this.syncNow(id).then(() => {});
  }

  /**
   * Cluster mode: after a partition, a live replica (followed or not) is asked of its owner again, as
   * its updates or its end may have been missed meanwhile. True once the owner answered (the replica
   * shows what it said) or the replica is gone; false otherwise (then the caller looks elsewhere, or
   * asks again later), also while another sync of it is on its way.
   */
  recheck(id: string): Promise<boolean> {
    const g = this.deps.gameIndex.get(id);
    return !g || g.syncing ? Promise.resolve(!g) : this.syncNow(id);
  }

  /** Asks the owner for the game's whole state and applies it: true when it was answered. */
  private syncNow(id: string): Promise<boolean> {
    const g = this.deps.gameIndex.get(id);
    if (!g) return Promise.resolve(false);
    g.syncing = true;
    return new Promise((resolve) => {
      const sent = this.askSync(id, this.deps.shardOf(id), (r) => {
        if (r) this.synced(r);
        else this.deps.gameIndex.get(id)?.syncDone();
        resolve(r !== undefined);
      });
      if (!sent) {
        g.syncDone();
        resolve(false);
      }
    });
  }

  /**
   * Cluster mode: a read that must show game `id` as its owner has it now, not as this node's replica
   * has it (a bot told of a roll by the owner's webhook fetches the roll's large tree here: a replica
   * one update behind would answer the tree of the turn before, and the bot would answer that one).
   * The owner is asked how far the game is (a `sync`, of which only the seq is used: applying its
   * state would cut the streams open here); when the replica is behind, the read waits for the
   * updates on their way, up to `syncTimeoutMs`. Resolves in every case, at worst as the replica was.
   */
  current(id: string): Promise<void> {
    const g = this.deps.gameIndex.get(id);
    if (!g || g.syncing) return Promise.resolve();
    return new Promise((resolve) => {
      const sent = this.askSync(id, this.deps.shardOf(id), (r) => (r ? this.waitFor(id, isEnded(r.rec) ? Infinity : r.seq, resolve) : resolve()));
      if (!sent) resolve();
    });
  }

  private waitFor(id: string, seq: number, done: () => void): void {
    const g = this.deps.gameIndex.get(id);
    if (!g || g.seq >= seq) return done();
    const list = this.behind.get(id) ?? [];
    const entry = { seq, done };
    list.push(entry);
    this.behind.set(id, list);
    this.deps.clock.schedule(this.deps.syncTimeoutMs, () => {
      const now = this.behind.get(id);
      const at = now?.indexOf(entry) ?? -1;
      if (at < 0) return;
      now!.splice(at, 1);
      if (now!.length === 0) this.behind.delete(id);
      done();
    });
  }

  /** Game `id`'s replica reached `seq`: the reads waiting for it go on. */
  private caughtUp(id: string, seq: number): void {
    const list = this.behind.get(id);
    if (list === undefined) return;
    const left = list.filter((w) => w.seq > seq);
    for (const w of list) if (w.seq <= seq) w.done();
    if (left.length === 0) this.behind.delete(id);
    else this.behind.set(id, left);
  }

  /**
   * Cluster mode: the owner says the game ended, with its final record. A replica that has not ended
   * yet (this node did not follow the game, or missed its last update) ends with it.
   */
  endedElsewhere(rec: GameRecord): void {
    if (isEnded(rec)) this.awaited.delete(rec.id);
    const g = this.deps.gameIndex.get(rec.id);
    if (!g || !isEnded(rec)) return;
    if (g.record().version !== rec.version) g.closeSubscribers();
    g.reset(rec, null);
    this.endReplica(g, rec);
  }

  /** A replica's large tree fell out of main's store: its owner sends it again (ReplicaLink). */
  refetchTree(id: string): void {
    const g = this.deps.gameIndex.get(id);
    if (!g) return;
    const sent = this.askSync(id, this.deps.shardOf(id), (r) => {
      const now = this.deps.gameIndex.get(id);
      if (!r || !now) return now?.treeArrived();
      // Only the tree was asked: it is taken at the version main holds; a newer update carried its own.
      now.treeArrived(r.seq === now.seq && !now.syncing && r.rec.version === now.record().version ? r.tree : undefined);
    });
    // Too many waiting: its reader gives up after a few tries.
    if (!sent) queueMicrotask(() => g.treeArrived());
  }

  /** A game behind what its owner reported a `heads` ago lost its last update(s): resync it. */
  heads(shard: ShardLink, seqs: readonly HeadsEntry[]): void {
    // The games of the previous report have had a whole period for their updates to arrive; one
    // still being synced is checked again at the next report (its sync may predate the update).
    const again: string[] = [];
    for (const id of shard.reported) {
      const g = this.deps.gameIndex.get(id);
      if (!g || g.headSeq <= g.seq || (this.deps.followed && !this.deps.followed(id))) continue;
      if (g.syncing) again.push(id);
      else this.resync(g);
    }
    shard.reported = again;
    for (const [id, seq, ended] of seqs) {
      const g = this.deps.gameIndex.get(id);
      if (!g) {
        // An ended game with no live replica here: nothing to catch up (it was retired, or never
        // followed); the owner names it only so that a replica still live here ends.
        if (ended) {
          this.awaited.delete(id);
          continue;
        }
        this.noteEarly(id, seq);
        this.deps.requestGame?.(id, shard.index);
        continue;
      }
      if (this.deps.followed && !this.deps.followed(id)) continue;
      // The owner's seq now (a report names a game again and again): not the greatest ever seen, so
      // a late report from an earlier instance of the shard cannot keep a replica resyncing.
      g.headSeq = seq;
      if (!again.includes(id)) shard.reported.push(id);
    }
  }

  /**
   * Asks shard `index` for game `id`'s whole state (a `sync`): `done` gets the `synced` answer, or
   * undefined for any other answer, a failure or the deadline. False when it could not be sent
   * (too many requests waiting), and then `done` is never called.
   */
  private askSync(id: string, index: number, done: (r: Extract<ShardReply, { t: 'synced' }> | undefined) => void): boolean {
    return this.deps.requests.open(index, (rid) => ({ t: 'sync', rid, id }), { timeoutMs: this.deps.syncTimeoutMs }, {
      settle: (r) => done(r.t === 'synced' ? r : undefined),
      fail: () => done(undefined),
    });
  }

  private synced(r: Extract<ShardReply, { t: 'synced' }>): void {
    const g = this.deps.gameIndex.get(r.rec.id);
    if (!g) return;
    g.syncDone();
    if (r.seq < g.seq) return; // older than what main already applied (a sync overtaken by updates)
    const before = g.seq;
    g.seq = r.seq;
    this.caughtUp(g.id, r.seq);
    // A stream opened while the sync was on its way began at the version this replica held then:
    // when the sync brings another, it missed events, so it ends (a reconnect starts from a Snapshot).
    if (g.record().version !== r.rec.version) g.closeSubscribers();
    g.reset(r.rec, r.tree);
    if (isEnded(r.rec)) {
      if (r.results) this.deps.write(this.deps.store.finishGame(r.rec, r.results), r.rec.id);
      this.endReplica(g, r.rec);
      return;
    }
    // The owner already reported a newer update than this state (made, and lost, while the sync was
    // on its way): ask again now, as no later report may name the game. Only after progress, so a
    // report that cannot be reached (a stale one) never makes a loop.
    if (g.headSeq > g.seq && g.seq > before) this.resync(g);
  }
}
