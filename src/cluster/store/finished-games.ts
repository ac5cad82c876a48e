// Finished games of a cluster node, read on demand: the store's replica of `dc_store` no longer holds
// an ended game's head and turns (ClusterStore forgets them as they arrive), so a read of an ended game
// gets them from the bucket (from the stream's leader) and keeps the record in a bounded cache.
// Memory then follows the live games, not the archive. A record this node wrote itself is kept for
// WRITTEN_KEPT_MS only (its players read it right after the ending), not until the count pushes it
// out: under steady play the cache then holds a minute of endings plus what was read, instead of
// filling with every game ended here. Synchronous readers ask `get`, which answers
// from the cache only: whoever serves a read first awaits `load` (the cluster's game gate does).
// Invariant: a cached record is dropped whenever its head changes (a lifted reveal), so a read never
// answers older bytes than the bucket holds once this node has seen the change.
// (docs/CLUSTER.md, "The rest of the store across nodes", finished games).
import { LRUCache } from 'lru-cache';
import type { KV } from '@nats-io/kv';
import type { GameRecord } from '../../domain/records.js';
import { codec } from '../../domain/codec.js';
import { systemClock, type Clock } from '../../domain/clock.js';
import { retryTransient } from './bucket-copy.js';

/** Bounds of the cache of finished games (`cluster.finishedCache`): both hold, least recently read out first. */
export interface FinishedCacheBounds {
  /** Records at most. */
  entries: number;
  /** Encoded bytes at most, over all records kept. */
  bytes: number;
}

export const DEFAULT_FINISHED_CACHE: FinishedCacheBounds = { entries: 2000, bytes: 64 * 1024 * 1024 };

/** How long a record written here (not read back from the bucket) stays cached. */
export const WRITTEN_KEPT_MS = 60_000;

/** How a record is read from the bucket's keys (cluster-store.ts knows the layout). */
export type RecordReader = (id: string, get: (key: string) => Promise<Uint8Array | undefined>) => Promise<GameRecord | undefined>;

export class FinishedGames {
  /** Encoded records (one buffer each, measured exactly), decoded afresh on every read. */
  private readonly cache: LRUCache<string, Uint8Array>;
  /** Loads in flight, so that concurrent reads of one game make one set of requests. */
  private readonly loading = new Map<string, Promise<GameRecord | undefined>>();
  /** Bucket reads made (for tests and /metrics-like checks). */
  loads = 0;

  constructor(
    private readonly kv: KV,
    private readonly read: RecordReader,
    bounds: FinishedCacheBounds = DEFAULT_FINISHED_CACHE,
    clock: Pick<Clock, 'monotonic'> = systemClock,
  ) {
    this.cache = new LRUCache<string, Uint8Array>({
      max: Math.max(1, bounds.entries),
      maxSize: Math.max(1, bounds.bytes),
      sizeCalculation: (v) => Math.max(1, v.length),
      // Expiry of the records written here (WRITTEN_KEPT_MS) on the injected clock.
      perf: { now: () => clock.monotonic() },
      ttlResolution: 0,
    });
  }

  /** The cached record (a fresh copy), or undefined when not cached. */
  get(id: string): GameRecord | undefined {
    const bytes = this.cache.get(id);
    return bytes && codec.records.decode<GameRecord>(bytes);
  }

  /** Reads the game from the bucket unless cached; an ended record is kept. Undefined: no such game. */
  load(id: string): Promise<GameRecord | undefined> {
    const cached = this.get(id);
    if (cached) return Promise.resolve(cached);
    let p = this.loading.get(id);
    if (!p) {
      p = this.fetch(id).finally(() => this.loading.delete(id));
      this.loading.set(id, p);
    }
    return p;
  }

  /** An ended record this node just stored: kept, as its writer will likely read it soon. */
  keep(rec: GameRecord): void {
    if ('Active' in rec.status) return;
    this.cache.purgeStale();
    this.cache.set(rec.id, new Uint8Array(codec.records.encode(rec)), { ttl: WRITTEN_KEPT_MS });
  }

  /** The game's head changed (or went): a cached record of it is stale. */
  drop(id: string): void {
    this.cache.delete(id);
  }

  /** Records and encoded bytes held now. */
  use(): { records: number; bytes: number } {
    this.cache.purgeStale();
    return { records: this.cache.size, bytes: this.cache.calculatedSize };
  }

  private async fetch(id: string): Promise<GameRecord | undefined> {
    this.loads++;
    const rec = await this.read(id, async (key) => {
      const e = await retryTransient(() => this.kv.get(key));
      return e?.operation === 'PUT' ? e.value : undefined;
    });
    // Only ended records are kept: a live one changes (and is held by the replica anyway).
    if (rec && !('Active' in rec.status)) {
      // A copy of its own: encode returns a view into the codec's shared buffer.
      this.cache.set(id, new Uint8Array(codec.records.encode(rec)));
    }
    return rec;
  }
}
