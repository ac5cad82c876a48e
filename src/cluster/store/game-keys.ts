// The keys of a game in the store's bucket (`dc_store`) and how a record is put back together from
// them: a head `g.<id>` (the record without its history, the history's length and its last turns) and
// one key per 32 turns `h.<id>.<k>`. Shared by ClusterStore and its cache of finished games.
// (docs/CLUSTER.md, "The rest of the store across nodes": keys).
import { codec } from '../../domain/codec.js';
import type { GameRecord } from '../../domain/records.js';
import type { HistoryEntry } from '../../domain/types.js';
import { assertReadable } from '../../store/schema.js';

const { decode } = codec.records;

/** Turns per chunk key. */
export const CHUNK = 32;

const b64 = (id: string): string => Buffer.from(id, 'utf8').toString('base64url');
export const unb64 = (s: string): string => Buffer.from(s, 'base64url').toString('utf8');
export const keys = {
  head: (id: string) => `g.${b64(id)}`,
  chunk: (id: string, k: number) => `h.${b64(id)}.${k}`,
  results: (id: string) => `r.${b64(id)}`,
  rating: (id: string) => `p.${b64(id)}`,
  stats: (botId: string) => `s.${b64(botId)}`,
  webhook: (id: string) => `w.${b64(id)}`,
};

export type StoredHead = Omit<GameRecord, 'history'> & { historyLength: number; tail: HistoryEntry[] };

/** A game record from its head and its chunks of turns (a chunk missing is a broken store: thrown). */
export function assembleGame(id: string, headBytes: Uint8Array, chunk: (k: number) => Uint8Array | undefined): GameRecord {
  const { historyLength, tail, ...rest } = assertReadable('game', id, decode<StoredHead>(headBytes));
  const full = Math.floor(historyLength / CHUNK);
  const history: HistoryEntry[] = [];
  for (let k = 0; k < full; k++) {
    const bytes = chunk(k);
    if (!bytes) throw new Error(`game ${id}: turns ${k * CHUNK}.. of ${historyLength} not stored`);
    history.push(...decode<HistoryEntry[]>(bytes));
  }
  history.push(...tail);
  return { ...rest, history } as GameRecord;
}

/** The same, read from the bucket (its leader): the head, then its chunks at once. */
export async function readGame(id: string, get: (key: string) => Promise<Uint8Array | undefined>): Promise<GameRecord | undefined> {
  const head = await get(keys.head(id));
  if (!head) return undefined;
  const full = Math.floor(decode<StoredHead>(head).historyLength / CHUNK);
  const chunks = await Promise.all(Array.from({ length: full }, (_, k) => get(keys.chunk(id, k))));
  return assembleGame(id, head, (k) => chunks[k]);
}
