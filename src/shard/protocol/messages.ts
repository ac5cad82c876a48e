// What both sides of a shard share about its messages: where a game's shard is, and how batches are
// sized. The messages of each direction are in
// to-owner.ts (main's commands) and to-main.ts (the owner's replies and announcements).
import type { GameRecord } from '../../domain/records.js';
import type { Command } from './to-owner.js';
import type { ShardReply, TreeWire } from './to-main.js';

export type { Command } from './to-owner.js';
export { headOf, MOVING_FIELDS, type HeadsEntry, type RecordHead, type ShardReply, type TreeWire } from './to-main.js';

const LEGAL_MOVES_KEY = '"legalMoves":';

/** The tree JSON of a DiceRolled line (diceRolledLine's format: legalMoves is its last field). */
export function treeJsonOfLine(line: string): string | undefined {
  if (!line.startsWith('{"DiceRolled"') || !line.endsWith('}}\n')) return undefined;
  // The tree's own text is move keys and braces: the last occurrence of the key is the field.
  const at = line.lastIndexOf(LEGAL_MOVES_KEY);
  if (at < 0) return undefined;
  const json = line.slice(at + LEGAL_MOVES_KEY.length, -3);
  return json.startsWith('{') ? json : undefined;
}

/** Which shard owns a game: a mirror pair's two games hash by their smaller id, so they share one. */
export function shardKey(id: string, mirrorOf: string | null): string {
  return mirrorOf !== null && mirrorOf < id ? mirrorOf : id;
}

/** FNV-1a over the key's UTF-16 units, reduced to a shard index. */
export function shardIndex(key: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

/** A batch is cut before it passes either bound (one message bigger than the byte bound goes alone). */
export const BATCH_MAX_BYTES = 1 << 20;
export const BATCH_MAX_MESSAGES = 4096;

/** Assumed size of a history entry and of a record's fixed part when a message is measured. */
const ENTRY_BYTES = 160;
const RECORD_BYTES = 1024;

const recordBytes = (rec: GameRecord): number => RECORD_BYTES + rec.history.length * ENTRY_BYTES;
const treeBytes = (t: TreeWire | null | undefined): number => (t?.text?.byteLength ?? 0) + (t ? 64 : 0);

/**
 * About how many bytes a message takes on the wire: exact for its text (event lines, tree JSON),
 * estimated for the rest. Cheap: nothing is serialised to measure it.
 */
export function messageBytes(m: Command | ShardReply): number {
  switch (m.t) {
    case 'update': {
      let n = 256 + m.hist.length * ENTRY_BYTES + treeBytes(m.tree);
      for (const [, line] of m.lines) n += line.length;
      return n;
    }
    case 'started':
    case 'write':
    case 'ended':
      return recordBytes(m.rec);
    case 'resumed':
    case 'synced':
      return recordBytes(m.rec) + treeBytes(m.tree);
    case 'resume':
      return m.recs.reduce((n, r) => n + recordBytes(r), 64);
    case 'create':
    case 'pair':
      return RECORD_BYTES;
    default:
      return 128;
  }
}

/** `batch` cut into batches within BATCH_MAX_BYTES and BATCH_MAX_MESSAGES, in order. */
export function chunked<T extends Command | ShardReply>(batch: T[]): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let bytes = 0;
  for (const m of batch) {
    const b = messageBytes(m);
    if (cur.length > 0 && (bytes + b > BATCH_MAX_BYTES || cur.length >= BATCH_MAX_MESSAGES)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(m);
    bytes += b;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}
