// Tournament records (matches, gauntlets, round-robins, Swiss, SPRT) in LMDB, laid out as
// tournament-parts.ts says: the `events` database holds each event's head (or, for events stored by
// earlier versions, the whole record), and `eventParts` its pairs under [eventId, 0, position] and
// its queue's chunks under [eventId, 1, k]. One write is one transaction.
import type { TournamentHead, TournamentPairRecord } from '../../domain/tournaments.js';
import type { TournamentKv } from '../tournament-table.js';
import type { QueueEntry } from '../tournament-parts.js';
import { keyFits, type Dbs } from './env.js';

const PAIR = 0;
const QUEUE = 1;

/** The events of one environment; `write` runs its body in one transaction. */
export function tournamentKv(db: Dbs, write: (body: () => void) => Promise<void>): TournamentKv {
  return {
    head: (id) => (keyFits(id) ? (db.events.get(id) as object | undefined) : undefined),
    pairs: (id, count) =>
      [...db.eventParts.getRange({ start: [id, PAIR, 0], end: [id, PAIR, count] })].map(({ value }) => value as TournamentPairRecord),
    queueChunk: (id, k) => db.eventParts.get([id, QUEUE, k]) as QueueEntry[] | undefined,
    write: (id, head: TournamentHead | undefined, pairs, chunks) =>
      write(() => {
        for (const [i, p] of pairs) db.eventParts.putSync([id, PAIR, i], p);
        for (const [k, c] of chunks) db.eventParts.putSync([id, QUEUE, k], c);
        if (head) db.events.putSync(id, head);
      }),
    scan: function* () {
      for (const { value } of db.events.getRange()) yield value as object;
    },
  };
}
