// How an event is laid out in a key-value store (docs/STORAGE.md "Events"): its head under one key,
// each pair under its own (by position in the pair list), and the queue in chunks counted from its
// end. A change then writes only the parts it touched, and no stored value grows with the number of
// pairs: a pair's result rewrites one small pair value, a pair started adds one and rewrites the
// head and the queue's last chunk or two.
//
// Why the queue is chunked from its end: pairs are taken from near its front (the scheduler takes
// the first encounters whose players have free seats), and removing an entry moves only the entries
// before it. Counted from the end, the chunks behind a removed entry keep their contents.
//
// Pure functions shared by the memory, LMDB and cluster stores (tournament-table.ts uses them).
import { pairFinished, pairRunning, type TournamentHead, type TournamentPairRecord, type TournamentRecord } from '../domain/tournaments.js';

/** Queue entries per stored chunk. */
export const QUEUE_CHUNK = 64;

export type QueueEntry = TournamentRecord['queue'][number];

/** What one write of an event stores: its head or not, and which pairs (by position) and queue chunks. */
export interface TournamentChange {
  head: boolean;
  pairs: number[];
  queueChunks: number[];
}

export const queueChunkCount = (length: number): number => Math.ceil(length / QUEUE_CHUNK);

/** Chunk k of a queue: the k-th run of QUEUE_CHUNK entries from its end (the first may be shorter), in queue order. */
export function queueChunk(queue: readonly QueueEntry[], k: number): QueueEntry[] {
  const end = queue.length - k * QUEUE_CHUNK;
  return queue.slice(Math.max(0, end - QUEUE_CHUNK), Math.max(0, end));
}

const finished = (p: TournamentPairRecord | undefined): boolean => p !== undefined && pairFinished(p);

/** The head of an event: everything but its pairs and its queue, with their counts. */
export function headOf(ev: TournamentRecord): TournamentHead {
  const { pairs, queue, ...rest } = ev;
  let done = 0;
  for (const p of pairs) if (finished(p)) done++;
  return { ...rest, pairCount: pairs.length, pairsFinished: done, queueLength: queue.length };
}

/** The event from its parts as stored (the queue's chunks in queue order: the last chunk first). */
export function assemble(head: TournamentHead, pairs: TournamentPairRecord[], queue: QueueEntry[]): TournamentRecord {
  const { pairCount: _pairCount, pairsFinished: _pairsFinished, queueLength: _queueLength, ...rest } = head;
  return { ...rest, pairs, queue };
}

/** Every part of the event (its first write, or the first after reading the older whole shape). */
export function everything(ev: TournamentRecord): TournamentChange {
  return {
    head: true,
    pairs: ev.pairs.map((_, i) => i),
    queueChunks: Array.from({ length: queueChunkCount(ev.queue.length) }, (_, k) => k),
  };
}

/**
 * The parts in which `next` differs from `prev`, the version stored before it. Changes make new
 * objects for what they change and keep the others (records are never changed in place), so a pair
 * or a queue entry that is the same object is the same value; the head's fields are compared one by
 * one the same way.
 */
export function changesBetween(prev: TournamentRecord, next: TournamentRecord): TournamentChange {
  const pairs: number[] = [];
  let finishedDelta = 0;
  for (let i = 0; i < next.pairs.length; i++) {
    if (next.pairs[i] === prev.pairs[i]) continue;
    pairs.push(i);
    finishedDelta += Number(finished(next.pairs[i])) - Number(finished(prev.pairs[i]));
  }
  const queueChunks: number[] = [];
  for (let k = 0; k < queueChunkCount(next.queue.length); k++) if (!sameChunk(prev.queue, next.queue, k)) queueChunks.push(k);
  let head = finishedDelta !== 0 || prev.pairs.length !== next.pairs.length || prev.queue.length !== next.queue.length;
  const a = prev as unknown as Record<string, unknown>;
  const b = next as unknown as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (head) break;
    if (key !== 'pairs' && key !== 'queue' && a[key] !== b[key]) head = true;
  }
  return { head, pairs, queueChunks };
}

function sameChunk(x: readonly QueueEntry[], y: readonly QueueEntry[], k: number): boolean {
  const endX = x.length - k * QUEUE_CHUNK;
  const endY = y.length - k * QUEUE_CHUNK;
  const fromX = Math.max(0, endX - QUEUE_CHUNK);
  const fromY = Math.max(0, endY - QUEUE_CHUNK);
  if (endX <= 0 || endX - fromX !== endY - fromY) return false;
  for (let i = 0; i < endY - fromY; i++) if (x[fromX + i] !== y[fromY + i]) return false;
  return true;
}

/** A value under an event's head key written by an earlier version: the whole record, pairs and all. */
export const isWholeRecord = (v: object): v is TournamentRecord => Array.isArray((v as { pairs?: unknown }).pairs);

/**
 * An event stored whole by an earlier version, in today's shape: its pairs' lists of refused moves
 * become per-player counts (records stored whole before refusals were kept have no lists), and one
 * cancelled while pairs still ran (earlier versions ended an event at once) is `cancelling`: its
 * pairs play on, and its seed waits for them.
 */
export function fromWholeRecord(rec: TournamentRecord): TournamentRecord {
  let refused = rec.refused ? [...rec.refused] : undefined;
  const pairs = rec.pairs.map((p) => {
    if (p.refusals === undefined) return p;
    const { refusals, ...rest } = p;
    for (const who of refusals) {
      refused ??= rec.players.map(() => 0);
      refused[who] = (refused[who] ?? 0) + 1;
    }
    return rest;
  });
  const running = pairs.some((p) => p.games !== null && pairRunning(p));
  const state = rec.state === 'cancelled' && running ? { state: 'cancelling' as const, finishedAt: null } : {};
  return { ...rec, ...state, queue: rec.queue ?? [], pairs, ...(refused ? { refused } : {}) };
}
