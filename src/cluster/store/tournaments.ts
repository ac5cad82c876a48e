// Events in the cluster's store bucket, laid out as src/store/tournament-parts.ts says, so that no
// value grows with an event's pairs (a bucket value is limited to 1 MB) and a change writes only
// what changed:
//   e.<event>        the head (or, stored by an earlier version, the whole record)
//   f.<event>.<n>    pair n, by position in the pair list
//   q.<event>.<k>    chunk k of the queue
// The index (pending and running events, the newest ones) is fed from the replica's changes, which
// are every node's writes, this node's included.
import { codec } from '../../domain/codec.js';
import type { TournamentPairRecord } from '../../domain/tournaments.js';
import { indexedOf, TournamentTable } from '../../store/tournament-table.js';
import type { QueueEntry } from '../../store/tournament-parts.js';
import type { Change, BucketCopy } from './bucket-copy.js';

const { encode, decode } = codec.records;
const b64 = (id: string): string => Buffer.from(id, 'utf8').toString('base64url');
const unb64 = (s: string): string => Buffer.from(s, 'base64url').toString('utf8');

export const tournamentKeys = {
  head: (id: string) => `e.${b64(id)}`,
  pair: (id: string, n: number) => `f.${b64(id)}.${n}`,
  queue: (id: string, k: number) => `q.${b64(id)}.${k}`,
};

/** The events of the bucket `replica()` follows (a getter: the replica opens after the store is made). */
export function clusterTournaments(replica: () => BucketCopy): TournamentTable {
  const read = <T>(key: string): T | undefined => {
    const bytes = replica().get(key);
    return bytes && decode<T>(bytes);
  };
  return new TournamentTable({
    head: (id) => (id ? read<object>(tournamentKeys.head(id)) : undefined),
    pairs: (id, count) => Array.from({ length: count }, (_, n) => {
      const p = read<TournamentPairRecord>(tournamentKeys.pair(id, n));
      if (!p) throw new Error(`event ${id}: pair ${n} of ${count} not stored`);
      return p;
    }),
    queueChunk: (id, k) => read<QueueEntry[]>(tournamentKeys.queue(id, k)),
    write: async (id, head, pairs, chunks) => {
      const r = replica();
      await Promise.all([
        ...pairs.map(([n, p]) => r.put(tournamentKeys.pair(id, n), encode(p))),
        ...chunks.map(([k, c]) => r.put(tournamentKeys.queue(id, k), encode(c))),
      ]);
      if (head) await r.put(tournamentKeys.head(id), encode(head));
    },
  }, false);
}

/** Keeps the index in step with one change of the replica; false when the key is not an event's. */
export function tournamentChanged(table: TournamentTable, c: Change): boolean {
  const [kind, id] = c.key.split('.');
  if (kind === 'e') {
    if (c.after) table.index.stored(indexedOf(decode<unknown>(c.after)));
    return true;
  }
  if (kind === 'f' || kind === 'q') {
    table.index.touched(unb64(id));
    return true;
  }
  return false;
}
