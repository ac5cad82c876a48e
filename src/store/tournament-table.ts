// The event part of the Store, once for every store: each store hands over how it reads and writes
// the parts of an event (TournamentKv: its head, its pairs, its queue's chunks; see
// tournament-parts.ts for the layout), and this writes only what changed, reads the parts back
// into a record, reads records stored whole by earlier versions, and keeps the index
// (tournament-index.ts) the lists and the scheduler use.
import type { TournamentHead, TournamentListing, TournamentPairRecord, TournamentRecord } from '../domain/tournaments.js';
import { assertReadable } from './schema.js';
import { TournamentIndex, type IndexedHead } from './tournament-index.js';
import {
  assemble, changesBetween, everything, fromWholeRecord, headOf, isWholeRecord, queueChunk, queueChunkCount,
  type QueueEntry,
} from './tournament-parts.js';

/** How one store keeps the parts of events. Reads are synchronous, as everywhere in the Store. */
export interface TournamentKv {
  /** The value under the event's head key: a head, a record stored whole by an earlier version, or undefined. */
  head(id: string): object | undefined;
  /** Pairs 0 … count − 1 of the event. */
  pairs(id: string, count: number): TournamentPairRecord[];
  queueChunk(id: string, k: number): QueueEntry[] | undefined;
  /** Stores the parts given, the head last (a reader never meets a head counting parts not stored yet). */
  write(id: string, head: TournamentHead | undefined, pairs: [number, TournamentPairRecord][], chunks: [number, QueueEntry[]][]): Promise<void>;
  /** Every head key's value, for building the index (a store whose index is fed otherwise need not). */
  scan?(): Iterable<object>;
}

export class TournamentTable {
  readonly index = new TournamentIndex();
  /** Records this table read from the whole shape: their next write must store every part. */
  private readonly whole = new WeakSet<TournamentRecord>();
  private scanned = false;

  /**
   * ownWrites: whether this table feeds the index with its own writes (memory, LMDB); a cluster
   * store feeds it from its replica instead, which sees every node's writes, this one's included.
   */
  constructor(private readonly kv: TournamentKv, private readonly ownWrites: boolean) {}

  async put(ev: TournamentRecord, previous?: TournamentRecord): Promise<void> {
    const change = previous && !this.whole.has(previous) ? changesBetween(previous, ev) : everything(ev);
    const head = change.head ? headOf(ev) : undefined;
    await this.kv.write(
      ev.id,
      head,
      change.pairs.map((i) => [i, ev.pairs[i]]),
      change.queueChunks.map((k) => [k, queueChunk(ev.queue, k)]),
    );
    if (this.ownWrites) {
      this.indexed().touched(ev.id);
      if (head) this.index.stored(head);
    }
  }

  get(id: string): TournamentRecord | undefined {
    const v = this.kv.head(id);
    if (v === undefined) return undefined;
    const h = assertReadable('event', id, v as TournamentHead);
    if (isWholeRecord(h)) {
      const rec = fromWholeRecord(h);
      this.whole.add(rec);
      return rec;
    }
    const queue: QueueEntry[] = [];
    for (let k = queueChunkCount(h.queueLength) - 1; k >= 0; k--) queue.push(...(this.kv.queueChunk(id, k) ?? []));
    return assemble(h, this.kv.pairs(id, h.pairCount), queue);
  }

  head(id: string): TournamentHead | undefined {
    const v = this.kv.head(id);
    if (v === undefined) return undefined;
    const h = assertReadable('event', id, v as TournamentHead);
    return isWholeRecord(h) ? headOf(fromWholeRecord(h)) : h;
  }

  openEvents(): TournamentListing[] {
    return this.indexed().openEvents();
  }

  recent(limit: number, bot?: string): string[] {
    return this.indexed().recent(limit, bot);
  }

  revision(id: string): number | undefined {
    return this.indexed().revision(id);
  }

  /** The index, built from every stored head on first use (a shard's worker never builds one). */
  private indexed(): TournamentIndex {
    if (!this.scanned) {
      this.scanned = true;
      for (const v of this.kv.scan?.() ?? []) this.index.stored(indexedOf(v));
    }
    return this.index;
  }
}

/** What the index reads of a stored head value (a record stored whole by an earlier version is read as today's). */
export const indexedOf = (v: unknown): IndexedHead => (isWholeRecord(v as object) ? headOf(fromWholeRecord(v as TournamentRecord)) : (v as IndexedHead));
