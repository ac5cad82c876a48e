// Leases in a replicated key-value bucket whose max age is the lease's TTL (nats-server 2.9 has no
// per-key TTL), and LeaseCandidate, which keeps trying to hold one.
// Invariant: the holder never believes longer than the server keeps the key. held() reads the clock
// itself and counts `safety`·TTL from the moment the last good write was SENT. Every one of those
// times is the clock's monotonic reading, never its wall time: a wall clock stepped back would
// stretch the holder's belief past the key's expiry (two owners), stepped forward it would cut it.
// Nothing of the lease's timing is written for other nodes; the server ages the key on its own clock. Taking is a create,
// renewing an update naming the holder's own last revision, releasing a purge sent only while held()
// (never a delete: on 2.9 a create over its marker could have two winners).
// Why this is sound on 2.9: (docs/CLUSTER.md, "Leases").
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { Clock, TimerHandle } from '../../domain/clock.js';

/** The part of a NATS KV bucket a lease uses (an @nats-io/kv bucket fits it as it is). */
export interface LeaseKv {
  create(key: string, value: Uint8Array): Promise<number>;
  update(key: string, value: Uint8Array, revision: number, timeoutMs?: number): Promise<number>;
  /** Removes every trace of the key (no delete marker). */
  remove(key: string): Promise<void>;
  get(key: string): Promise<{ revision: number; value: Uint8Array; operation: string } | null>;
}

/** True when a write was refused because the key is not at the expected revision. */
export function isRevisionConflict(e: unknown): boolean {
  return (
    e instanceof JetStreamApiError &&
    (e.code === JetStreamApiCodes.StreamWrongLastSequence || e.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

export type LeaseLoss = 'expired' | 'taken';

export interface LeaseOptions {
  kv: LeaseKv;
  key: string;
  /** Who holds it (a node name); shown to others in the key's value. */
  holder: string;
  /** The bucket's max age: how long the key lives after its last write. */
  ttlMs: number;
  clock: Clock;
  /** Fraction of the TTL, after the send of the last good write, at which the holder gives up (default 0.75). */
  safety?: number;
  /**
   * How often the holder renews (default TTL/3). Renewing more often than that leaves more retries
   * inside the holder's own deadline when a server fails over; it must be below safety·TTL.
   */
  renewEveryMs?: number;
  /**
   * Called once each time a held lease is lost (never after release(); by release() itself when the
   * lease had already run out unnoticed).
   */
  onLost?: (why: LeaseLoss) => void;
}

interface Attempt {
  n: number;
  sentAt: number;
  bytes: Uint8Array;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** What a lease key holds: the holder's name, its incarnation and the number of the write. */
export interface LeaseValue {
  holder: string;
  incarnation: string;
  n: number;
}

export function readLeaseValue(bytes: Uint8Array): LeaseValue | undefined {
  try {
    const v = JSON.parse(dec.decode(bytes)) as Partial<LeaseValue>;
    if (typeof v.holder === 'string' && typeof v.incarnation === 'string' && typeof v.n === 'number') return v as LeaseValue;
  } catch {
    /* not a lease value */
  }
  return undefined;
}

/**
 * One lease key as seen by one would-be holder. acquire() tries once; while held it renews itself
 * and calls onLost when it can no longer be sure it holds the key. Work done under the lease must
 * check held() right before acting (and, where it writes, be fenced by the store as well).
 */
export class Lease {
  readonly key: string;
  private readonly kv: LeaseKv;
  private readonly holder: string;
  private readonly incarnation = Math.random().toString(36).slice(2, 10);
  private readonly ttlMs: number;
  private readonly clock: Clock;
  private readonly safety: number;
  private readonly renewEveryMs: number;
  private readonly onLost: ((why: LeaseLoss) => void) | undefined;
  private state: 'idle' | 'held' | 'released' = 'idle';
  private revision = 0;
  private validUntil = 0;
  private writes = 0;
  /** Writes sent whose outcome is unknown (timed out): one of them may have landed. */
  private unsure: Attempt[] = [];
  private renewTimer: TimerHandle | undefined;
  private deadlineTimer: TimerHandle | undefined;
  private renewing = false;

  constructor(opts: LeaseOptions) {
    this.kv = opts.kv;
    this.key = opts.key;
    this.holder = opts.holder;
    this.ttlMs = opts.ttlMs;
    this.clock = opts.clock;
    this.safety = opts.safety ?? 0.75;
    if (!(this.safety > 0 && this.safety < 1)) throw new Error('lease safety must be between 0 and 1');
    this.renewEveryMs = opts.renewEveryMs ?? this.ttlMs / 3;
    if (!(this.renewEveryMs > 0 && this.renewEveryMs < this.ttlMs * this.safety)) throw new Error('lease renewal period must be positive and below safety·TTL');
    this.onLost = opts.onLost;
  }

  /** True while the holder may act under the lease (also false once the deadline passed, timer or not). */
  held(): boolean {
    return this.state === 'held' && this.clock.monotonic() < this.validUntil;
  }

  /** The revision of the holder's last write (0 when not held). */
  currentRevision(): number {
    return this.held() ? this.revision : 0;
  }

  /** Milliseconds the holder may still act without another successful renewal. */
  remainingMs(): number {
    return this.held() ? this.validUntil - this.clock.monotonic() : 0;
  }

  /** One attempt to take the lease. True if it is now held by this holder. */
  async acquire(): Promise<boolean> {
    if (this.held()) return true;
    // Held until a deadline that passed unseen: that was a loss, reported as such (see release()).
    if (this.state === 'held') this.lose('expired');
    this.state = 'idle';
    const a = this.attempt();
    try {
      const rev = await this.kv.create(this.key, a.bytes);
      this.unsure = [];
      return this.gained(rev, a.sentAt);
    } catch (e) {
      if (!isRevisionConflict(e)) {
        this.unsure.push(a);
        throw e;
      }
      // Someone holds it, or an earlier create of ours landed though its answer was lost.
      const claimed = await this.claimUnsure();
      return claimed ? this.gained(claimed.revision, claimed.sentAt) : false;
    }
  }

  /**
   * Stops acting at once, then removes the key if it is still certainly ours. A lease whose deadline
   * passed before any timer could say so (the process was paused, and what it does first on waking
   * is let the lease go) was lost, not released: onLost is told first, as its deadline timer would
   * have, so whoever acted under it stops.
   */
  /**
   * Gives the lease up. Never rejects: a removal the bucket refuses (a server electing its leader
   * answers "temporarily unavailable") leaves the key to expire at its TTL, which is all a removal
   * saves. Resolves false then. (Callers such as a candidate's timer do not await it: a rejection
   * there ended the node process.)
   */
  async release(): Promise<boolean> {
    const wasHeld = this.held();
    if (this.state === 'held' && !wasHeld) this.lose('expired');
    this.state = 'released';
    this.stopTimers();
    if (!wasHeld) return true;
    try {
      await this.kv.remove(this.key);
      return true;
    } catch {
      return false;
    }
  }

  /** The current holder as the bucket says (undefined when nobody holds it). */
  async currentHolder(): Promise<LeaseValue | undefined> {
    const e = await this.kv.get(this.key);
    if (!e || e.operation !== 'PUT') return undefined;
    return readLeaseValue(e.value);
  }

  private attempt(): Attempt {
    const n = ++this.writes;
    const value: LeaseValue = { holder: this.holder, incarnation: this.incarnation, n };
    return { n, sentAt: this.clock.monotonic(), bytes: enc.encode(JSON.stringify(value)) };
  }

  /** If the key's current value is one of our unanswered writes, returns its revision and send time. */
  private async claimUnsure(): Promise<{ revision: number; sentAt: number } | undefined> {
    if (this.unsure.length === 0) return undefined;
    const e = await this.kv.get(this.key);
    const v = e && e.operation === 'PUT' ? readLeaseValue(e.value) : undefined;
    const mine = v && v.incarnation === this.incarnation ? this.unsure.find((a) => a.n === v.n) : undefined;
    this.unsure = [];
    return mine && e ? { revision: e.revision, sentAt: mine.sentAt } : undefined;
  }

  private gained(revision: number, sentAt: number): boolean {
    this.revision = revision;
    this.validUntil = sentAt + this.ttlMs * this.safety;
    if (this.clock.monotonic() >= this.validUntil) return false; // the answer came too late to act on
    this.state = 'held';
    this.armDeadline();
    this.scheduleRenew(this.renewEveryMs);
    return true;
  }

  private armDeadline(): void {
    this.deadlineTimer?.cancel();
    this.deadlineTimer = this.clock.schedule(this.validUntil - this.clock.monotonic(), () => {
      if (this.state === 'held' && this.clock.monotonic() >= this.validUntil) this.lose('expired');
    });
  }

  private scheduleRenew(ms: number): void {
    this.renewTimer?.cancel();
    this.renewTimer = this.clock.schedule(ms, () => void this.renew());
  }

  private async renew(): Promise<void> {
    if (this.state !== 'held' || this.renewing) return;
    if (!this.held()) return this.lose('expired');
    this.renewing = true;
    const a = this.attempt();
    try {
      // A renewal must come back before the holder's own deadline to be of any use.
      const rev = await this.kv.update(this.key, a.bytes, this.revision, Math.max(1, this.validUntil - a.sentAt));
      if (this.state !== 'held') return;
      this.unsure = [];
      this.revision = rev;
      this.validUntil = a.sentAt + this.ttlMs * this.safety;
      if (!this.held()) return this.lose('expired');
      this.armDeadline();
      this.scheduleRenew(this.renewEveryMs);
    } catch (e) {
      if (this.state !== 'held') return;
      if (isRevisionConflict(e)) {
        let claimed: { revision: number; sentAt: number } | undefined;
        try {
          claimed = await this.claimUnsure();
        } catch {
          // The key could not be read (a server failing over): that proves nothing about who holds
          // it. The earlier unanswered attempts stay unsure; try again, the deadline timer decides loss.
          if (this.state === 'held' && this.held()) this.scheduleRenew(Math.min(this.ttlMs / 10, this.remainingMs()));
          else this.lose('expired');
          return;
        }
        if (this.state !== 'held') return;
        if (!claimed) return this.lose('taken');
        this.revision = claimed.revision;
        this.validUntil = claimed.sentAt + this.ttlMs * this.safety;
        if (!this.held()) return this.lose('expired');
        this.armDeadline();
        this.scheduleRenew(0);
        return;
      }
      // No answer (timeout, server unreachable): try again soon; the deadline timer decides loss.
      this.unsure.push(a);
      if (this.held()) this.scheduleRenew(Math.min(this.ttlMs / 10, this.remainingMs()));
      else this.lose('expired');
    } finally {
      this.renewing = false;
    }
  }

  private lose(why: LeaseLoss): void {
    if (this.state !== 'held') return;
    this.state = 'idle';
    this.stopTimers();
    this.onLost?.(why);
  }

  private stopTimers(): void {
    this.renewTimer?.cancel();
    this.deadlineTimer?.cancel();
    this.renewTimer = this.deadlineTimer = undefined;
  }
}

export interface CandidateOptions extends LeaseOptions {
  /** How often a non-holder tries to take the lease (default TTL/3). */
  retryMs?: number;
  onGained?: () => void;
}

/**
 * Keeps trying to hold one lease: a singleton job (or a shard) runs while onGained → onLost, and
 * another node's candidate takes over once the holder's key expires.
 */
export class LeaseCandidate {
  readonly lease: Lease;
  private readonly clock: Clock;
  private readonly retryMs: number;
  private readonly onGained: (() => void) | undefined;
  private timer: TimerHandle | undefined;
  private running = false;

  constructor(opts: CandidateOptions) {
    this.clock = opts.clock;
    this.retryMs = opts.retryMs ?? opts.ttlMs / 3;
    this.onGained = opts.onGained;
    const userLost = opts.onLost;
    this.lease = new Lease({
      ...opts,
      onLost: (why) => {
        userLost?.(why);
        if (this.running) this.later(this.retryMs);
      },
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.later(0);
  }

  /** Stops trying and releases the lease if held; false when the bucket refused the removal (see Lease.release). */
  async stop(): Promise<boolean> {
    this.running = false;
    this.timer?.cancel();
    return this.lease.release();
  }

  private later(ms: number): void {
    this.timer?.cancel();
    this.timer = this.clock.schedule(ms, () => void this.tryOnce());
  }

  private async tryOnce(): Promise<void> {
    if (!this.running || this.lease.held()) return;
    let got = false;
    try {
      got = await this.lease.acquire();
    } catch {
      got = false; // unreachable bucket: try again later
    }
    if (!this.running) {
      if (got) await this.lease.release();
      return;
    }
    if (got) this.onGained?.();
    else this.later(this.retryMs);
  }
}
