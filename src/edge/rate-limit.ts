// Per-key sliding-window limiter ("so many per hour per address"). It keeps the instants of the
// last `limit` accepted actions per key, so "at most limit in any window" holds exactly, with no
// burst at a window boundary. Memory is bounded twice: at most `limit` instants per key and at
// most `maxKeys` keys; the least recently used key goes first. Evicting a live key forgets its
// history, which is the price of a bounded table under a flood of distinct keys (the alternative,
// refusing new keys, would lock everyone out).
import type { Clock } from '../domain/clock.js';

export interface RateLimiterOptions {
  /** Actions allowed per window. */
  readonly limit: number;
  readonly windowMs: number;
  /** Most keys remembered at once. */
  readonly maxKeys: number;
  readonly clock: Clock;
}

export type RateVerdict = { readonly ok: true; readonly remaining: number } | { readonly ok: false; readonly retryAfterSeconds: number };

export class RateLimiter {
  private readonly keys = new Map<string, number[]>();

  constructor(private readonly opts: RateLimiterOptions) {
    if (!(opts.limit >= 1 && opts.windowMs > 0 && opts.maxKeys >= 1)) {
      throw new RangeError('RateLimiter: limit, windowMs and maxKeys must be positive');
    }
  }

  /** Actions allowed per window (refusal messages say it). */
  get limit(): number {
    return this.opts.limit;
  }

  /** Counts one action if the budget allows it. */
  take(key: string): RateVerdict {
    const verdict = this.peek(key);
    if (verdict.ok) this.record(key);
    return verdict;
  }

  /** Says whether an action would be allowed, without counting it. */
  peek(key: string): RateVerdict {
    const hits = this.live(key);
    if (hits === undefined || hits.length < this.opts.limit) {
      return { ok: true, remaining: this.opts.limit - (hits?.length ?? 0) - 1 };
    }
    const freeAt = hits[0] + this.opts.windowMs;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - this.opts.clock.now()) / 1000)) };
  }

  /**
   * Gives back the most recent action of a key. For limits that count only successes: take() before
   * the attempt (so concurrent attempts cannot all slip through), refund() when it is refused.
   */
  refund(key: string): void {
    const hits = this.keys.get(key);
    if (hits === undefined) return;
    hits.pop();
    if (hits.length === 0) this.keys.delete(key);
  }

  /** Number of keys currently remembered. */
  get size(): number {
    return this.keys.size;
  }

  private record(key: string): void {
    let hits = this.keys.get(key);
    if (hits === undefined) {
      if (this.keys.size >= this.opts.maxKeys) this.evict();
      hits = [];
    } else {
      this.keys.delete(key); // re-inserted below: Map order is least recently used first
    }
    hits.push(this.opts.clock.now());
    this.keys.set(key, hits);
  }

  /** The key's instants still inside the window (expired ones dropped). */
  private live(key: string): number[] | undefined {
    const hits = this.keys.get(key);
    if (hits === undefined) return undefined;
    const cutoff = this.opts.clock.now() - this.opts.windowMs;
    let n = 0;
    while (n < hits.length && hits[n] <= cutoff) n++;
    if (n > 0) hits.splice(0, n);
    if (hits.length === 0) {
      this.keys.delete(key);
      return undefined;
    }
    return hits;
  }

  // Map order is order of last action, so the first key is the least recently active one; if even
  // its window is still running, it is the least costly history to forget.
  private evict(): void {
    const oldest = this.keys.keys().next();
    if (!oldest.done) this.keys.delete(oldest.value);
  }
}
