// How one committed version of a game is written to its log entry, compactly: the record without its
// history (the head, a few hundred bytes), the index in the history where the new entries start, and
// those entries. A game's history only grows, so each version carries just the turns played since the
// previous one; folding the entries in order rebuilds every field of the record exactly. The first
// version a writer appends (a new game, or the first after a takeover) may start anywhere at or
// before the end of what was folded so far, so the fold never depends on who wrote what.
//
// A final version carries its result lines too, so whoever finds a game ended in the log (the next
// owner, after a crash between the final append and the archive write) can finish storing it.
import { codec } from '../../domain/codec.js';
import type { GameRecord, ResultRecord } from '../../domain/records.js';
import type { HistoryEntry } from '../../domain/types.js';
import { assertReadable } from '../../store/schema.js';

type Head = Omit<GameRecord, 'history'>;

interface VersionEntry {
  head: Head;
  /** Index in the history of the first entry of `add`. */
  from: number;
  add: HistoryEntry[];
  /** Set on the version stored by finishGame: the game's result lines (possibly none). */
  results?: ResultRecord[];
}

/** One folded state: the record, and the result lines when its last version was a finishing one. */
export interface Folded {
  rec: GameRecord;
  results: ResultRecord[] | undefined;
}

/** The entry of `next`, relative to `prev` (the last version appended, undefined for the first). */
export function encodeVersion(prev: GameRecord | undefined, next: GameRecord, results?: ResultRecord[]): Uint8Array {
  const { history, ...head } = next;
  let from = 0;
  if (prev !== undefined && prev.history.length <= history.length) {
    from = prev.history.length;
    // A history that is not an extension of the previous one (never seen) is written whole.
    for (let i = 0; i < from; i++) {
      if (prev.history[i] !== history[i]) {
        from = 0;
        break;
      }
    }
  }
  const entry: VersionEntry = { head, from, add: history.slice(from) };
  if (results !== undefined) entry.results = results;
  return codec.records.encode(entry);
}

/** Applies one entry to the state folded so far; throws on an entry that does not fit it. */
export function foldVersion(prev: Folded | undefined, data: Uint8Array): Folded {
  const e = codec.records.decode<VersionEntry>(data);
  const before = prev?.rec.history ?? [];
  if (!Number.isInteger(e.from) || e.from < 0 || e.from > before.length || !Array.isArray(e.add)) {
    throw new Error(`log entry of game ${String(e.head?.id)} starts its history at ${String(e.from)}, after ${before.length} entries`);
  }
  const rec = assertReadable('game', String(e.head.id), { ...e.head, history: [...before.slice(0, e.from), ...e.add] } as GameRecord);
  return { rec, results: e.results };
}
