// Cluster mode: which games a node keeps current. Every node knows every live game (its start and its
// end are told to all nodes: who plays, so the account streams, the profile and the game lists work
// anywhere), but a node applies a game's updates only while someone asks it about the game: a stream
// or another subscriber on its replica, a recent read, a command sent through it; or while it owns the
// game's shard (it then gets every update of the shard anyway). A game asked about while it is not
// followed is followed first: its updates subscribed, then its state asked of its owner (a `sync`,
// which the owner answers from what its log holds), and the read waits for that. A followed game nobody
// asked about for `idleMs` is dropped (unsubscribed; its replica stays, unchanged, as the node's record
// of a live game), and at most `max` games are followed, the least recently asked going first.
import type { Clock } from '../../domain/clock.js';

export interface GameInterestDeps {
  clock: Clock;
  /** A followed game nobody asked about for this long is dropped. */
  idleMs: number;
  /** Games followed at most (those with subscribers, or still being brought up to date, are kept over it). */
  max: number;
  /** True while this node owns the game's shard. */
  owned(id: string): boolean;
  /** Subscribers (streams, a webhook delivery) on the game's replica now. */
  subscribers(id: string): number;
  /** Starts or stops receiving the game's updates; resolves once in effect. */
  subscribe(id: string, on: boolean): Promise<void>;
  /**
   * Starts receiving the game's updates, then brings its replica up to date from its owner (no update
   * is applied before that answer); resolves when done, also when that failed.
   */
  catchUp(id: string): Promise<void>;
}

interface Followed {
  lastUse: number;
  /** Until the replica is up to date after the game was followed. */
  ready: Promise<void> | null;
}

export class GameInterest {
  /** Least recently asked first. */
  private readonly followed = new Map<string, Followed>();
  private timer: { cancel(): void } | undefined;
  private stopped = false;
  /** Games followed, and dropped, since the start (for /metrics and the tests). */
  follows = 0;
  drops = 0;

  constructor(private readonly deps: GameInterestDeps) {
    if (!(deps.idleMs > 0) || !(deps.max >= 1)) throw new Error(`game interest: idleMs and max must be positive, got ${deps.idleMs}, ${deps.max}`);
  }

  /** Games followed one by one now (those of the shards this node owns are not counted). */
  get size(): number {
    return this.followed.size;
  }

  /** True while the game's updates reach this node. */
  has(id: string): boolean {
    return this.followed.has(id) || this.deps.owned(id);
  }

  /** Someone asks about the game: undefined when its replica is current, else a promise that it will be. */
  touch(id: string): Promise<void> | undefined {
    if (this.stopped || this.deps.owned(id)) return undefined;
    const now = this.deps.clock.monotonic();
    const known = this.followed.get(id);
    if (known) {
      this.followed.delete(id);
      this.followed.set(id, known);
      known.lastUse = now;
      return known.ready ?? undefined;
    }
    const f: Followed = { lastUse: now, ready: null };
    this.followed.set(id, f);
    this.follows++;
    const ready = this.deps.catchUp(id)
      .catch(() => {})
      .finally(() => {
        if (f.ready === ready) f.ready = null;
      });
    f.ready = ready;
    this.trim();
    this.arm();
    return ready;
  }

  /** The game's updates reach this node already and its replica is current (its shard was owned here). */
  keep(id: string): void {
    if (this.stopped || this.followed.has(id)) return;
    this.followed.set(id, { lastUse: this.deps.clock.monotonic(), ready: null });
    void this.deps.subscribe(id, true).catch(() => {});
    this.trim();
    this.arm();
  }

  /** The game ended: nothing more to follow. */
  retire(id: string): void {
    if (this.followed.delete(id)) void this.deps.subscribe(id, false).catch(() => {});
  }

  /** Drops the games nobody asked about for `idleMs` (a subscriber counts as asking). */
  sweep(): void {
    const now = this.deps.clock.monotonic();
    for (const [id, f] of this.followed) {
      if (f.ready) continue;
      if (this.deps.subscribers(id) > 0) f.lastUse = now;
      else if (now - f.lastUse >= this.deps.idleMs) this.drop(id);
    }
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private drop(id: string): void {
    this.followed.delete(id);
    this.drops++;
    void this.deps.subscribe(id, false).catch(() => {});
  }

  /** Over `max`: the least recently asked go first. */
  private trim(): void {
    for (const [id, f] of this.followed) {
      if (this.followed.size <= this.deps.max) return;
      if (f.ready || this.deps.subscribers(id) > 0) continue;
      this.drop(id);
    }
  }

  private arm(): void {
    if (this.timer || this.stopped || this.followed.size === 0) return;
    this.timer = this.deps.clock.schedule(Math.max(1, Math.floor(this.deps.idleMs / 2)), () => {
      this.timer = undefined;
      this.sweep();
      this.arm();
    });
  }
}
