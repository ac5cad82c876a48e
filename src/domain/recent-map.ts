// A map of what was set lately: an entry lasts `windowMs` after it was last set, and there are at
// most `max` of them (the least recently set go first). Used where something is remembered only to
// answer a repeat that can come within a known time (a resend before its sender's deadline): a count
// alone would let such a map fill slowly for as long as traffic lasts, a window makes it follow the
// traffic of the last `windowMs`. Entries leave as others are set (no timer): a map left alone keeps
// at most a window's worth. Time is the clock's monotonic reading, so tests drive it.
import type { Clock } from './clock.js';

export interface RecentMapOptions {
  clock: Pick<Clock, 'monotonic'>;
  /** How long an entry lasts after it was last set. */
  windowMs: number;
  /** Entries at most. */
  max: number;
}

export class RecentMap<K, V> {
  /** Least recently set first (a set moves an entry to the end). */
  private readonly m = new Map<K, { v: V; at: number }>();

  constructor(private readonly o: RecentMapOptions) {
    if (!(o.windowMs > 0) || !(o.max >= 1)) throw new Error(`RecentMap: windowMs and max must be positive, got ${o.windowMs}, ${o.max}`);
  }

  get size(): number {
    return this.m.size;
  }

  /** The value, unless it is older than the window (it is then dropped). */
  get(k: K): V | undefined {
    const e = this.m.get(k);
    if (e === undefined) return undefined;
    if (this.o.clock.monotonic() - e.at >= this.o.windowMs) {
      this.m.delete(k);
      return undefined;
    }
    return e.v;
  }

  has(k: K): boolean {
    return this.get(k) !== undefined;
  }

  set(k: K, v: V): void {
    const now = this.o.clock.monotonic();
    this.m.delete(k);
    this.m.set(k, { v, at: now });
    this.prune(now);
  }

  /** Sets the value without making the entry last longer (kept where it was, or new). */
  replace(k: K, v: V): void {
    const e = this.m.get(k);
    if (e) e.v = v;
    else this.set(k, v);
  }

  delete(k: K): boolean {
    return this.m.delete(k);
  }

  /** Every entry still within the window, least recently set first. */
  *entries(): IterableIterator<[K, V]> {
    const now = this.o.clock.monotonic();
    for (const [k, e] of this.m) if (now - e.at < this.o.windowMs) yield [k, e.v];
  }

  *values(): IterableIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  /** Drops what is over the count or older than the window, oldest first. */
  prune(now = this.o.clock.monotonic()): void {
    for (const [k, e] of this.m) {
      if (this.m.size <= this.o.max && now - e.at < this.o.windowMs) return;
      this.m.delete(k);
    }
  }
}
