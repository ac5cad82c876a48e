// Counts of things a client holds open (streams, requests in flight), per key (an identity or an
// address), each key capped. A key lives only while something is open under it, so the table is
// bounded by what the server holds open, which the caps themselves bound.
export class OpenCounts {
  private readonly counts = new Map<string, number>();

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError('OpenCounts: the limit must be at least 1');
  }

  /** Counts one more under `key`; false, and nothing counted, when the key is at its cap. */
  tryOpen(key: string): boolean {
    const n = this.counts.get(key) ?? 0;
    if (n >= this.limit) return false;
    this.counts.set(key, n + 1);
    return true;
  }

  /** Gives back one; call exactly once for every tryOpen() that returned true. */
  close(key: string): void {
    const n = this.counts.get(key);
    if (n === undefined) return;
    if (n > 1) this.counts.set(key, n - 1);
    else this.counts.delete(key);
  }

  /** How many are open under `key`. */
  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** Open things under every key together (metrics). */
  total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }
}
