// Which games of each logical shard are live: one key per live game, `s<shard>.<gameId>`, in a
// replicated bucket. The owner of a shard adds a game's key before the game's first version is
// appended and removes it once the game's ending is stored for good, so a node that takes the shard
// over finds every game it must resume (and, after a crash in between, games that have no version
// yet or have ended without being archived: it settles those). Removing a key deletes its one message (no marker), so
// the bucket holds nothing for games that are over.
import type { NatsConnection } from '@nats-io/transport-node';
import { leaseBucket, openBucket, subjectToken } from '../transport/nats.js';

export interface LiveIndex {
  add(shard: number, gameId: string): Promise<void>;
  remove(shard: number, gameId: string): Promise<void>;
  /** The live games of a shard, as the bucket holds them now. */
  list(shard: number): Promise<string[]>;
}

export interface LiveIndexOptions {
  /** Copies kept by the cluster (3 in a three-server cluster). */
  replicas: number;
  /** Bucket name (default dc-live). */
  bucket?: string;
  timeoutMs?: number;
}

const keyOf = (shard: number, gameId: string): string => `s${shard}.${subjectToken(gameId, 'live index')}`;

/** Opens (creating on first use) the live-games bucket. */
export async function openLiveIndex(nc: NatsConnection, o: LiveIndexOptions): Promise<LiveIndex> {
  const kv = await openBucket(nc, { bucket: o.bucket ?? 'dc-live', replicas: o.replicas, timeoutMs: o.timeoutMs });
  // Listing writes the `barrier` key first (one value, overwritten): see subjectKeys.
  const b = leaseBucket(kv, { barrierKey: 'barrier' });
  const ONE = new Uint8Array([49]);
  return {
    add: async (shard, gameId) => {
      await kv.put(keyOf(shard, gameId), ONE);
    },
    remove: (shard, gameId) => b.remove(keyOf(shard, gameId)),
    list: async (shard) => {
      const prefix = `s${shard}.`;
      const out: string[] = [];
      for await (const k of await b.keys(`${prefix}*`)) out.push(k.slice(prefix.length));
      return out;
    },
  };
}
