// A bounded map whose entries expire. Anonymous identities and guest seat tokens live only here:
// memory must stay bounded under a flood of mints, so the map has a hard cap and makes room by
// dropping expired entries first, then the oldest ones.
//
// Entries are kept in insertion order. With one TTL per map and a clock that does not go back,
// insertion order is also expiry order, so both sweeps only ever look at the front of the map.

export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    /** Told about every entry that leaves (expired, evicted or deleted), to keep side indexes exact. */
    private readonly onRemove: (key: K, value: V) => void = () => {},
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The live value, or undefined; an expired entry found here is removed on the spot. */
  get(key: K, now: number): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= now) {
      this.remove(key);
      return undefined;
    }
    return e.value;
  }

  /** Adds (or refreshes) an entry, first making room if the map is full. */
  set(key: K, value: V, now: number): void {
    if (this.entries.has(key)) this.remove(key);
    this.sweep(now);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.remove(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
  }

  delete(key: K): void {
    this.remove(key);
  }

  /** Drops expired entries from the front; stops at the first live one. */
  sweep(now: number): void {
    for (const [key, e] of this.entries) {
      if (e.expiresAt > now) break;
      this.remove(key);
    }
  }

  private remove(key: K): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.onRemove(key, e.value);
  }
}
