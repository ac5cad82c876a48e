// The messages between the edge's side of a shard (ShardedGames on the main thread) and a shard
// (ShardHost, in a worker thread or, for tests, in the same thread). Every message is plain data
// (structured-clone safe), so a transport may copy, pack or send it over a network unchanged.
// Messages travel in batches: one array per shard per event-loop turn, in order.
import type { GameRecord, ResultRecord } from '../domain/records.js';
import type { HistoryEntry, MoveVerdict, Seat } from '../domain/types.js';
import type { NewGameSpec } from '../game/types.js';

/** The fields of a game record that change from version to version (the rest is fixed at creation). */
export const MOVING_FIELDS = [
  'clientSeeds', 'ply', 'fen', 'activeSeat', 'dice', 'clocks', 'clockStartedAt', 'version', 'status',
  'revealedSeeds', 'finishedAt', 'revealHeld',
] as const satisfies readonly (keyof GameRecord)[];

/** What crosses the channel at every version: the moving fields only. */
export type RecordHead = Pick<GameRecord, (typeof MOVING_FIELDS)[number]>;

/** The moving fields of `rec`, copied. */
export function headOf(rec: GameRecord): RecordHead {
  const head: Partial<Record<keyof RecordHead, unknown>> = {};
  for (const k of MOVING_FIELDS) if (rec[k] !== undefined) head[k] = rec[k];
  return head as RecordHead;
}

/** Main → shard. `rid` pairs a request with its reply. */
export type Command =
  | { t: 'create'; rid: number; id: string; spec: NewGameSpec }
  | { t: 'pair'; rid: number; ids: [string, string]; spec: NewGameSpec }
  | { t: 'move'; rid: number; id: string; seat: Seat; moves: string[]; at: number; seen: number | null }
  | { t: 'seed'; id: string; seat: Seat; seed: string }
  | { t: 'resign'; id: string; seat: Seat }
  /** Live records to take over (a start or a restart); answered once each has settled. */
  | { t: 'resume'; rid: number; recs: GameRecord[] }
  | { t: 'idle'; rid: number }
  | { t: 'stop'; rid: number }
  /** Tests only: throw an uncaught error in the shard (a crash). */
  | { t: 'crash' };

/**
 * Shard → main. `update` carries a game's new version: its record head, the history entries main
 * does not have yet (from index `from`), the pending roll's tree when it changed, and the event lines
 * to publish, in version order. The store already holds that version, except with a forwarding
 * store (`write`), where main writes it before publishing.
 */
export type Reply =
  /** A game created here (create or pair), announced before its first roll. */
  | { t: 'started'; rec: GameRecord }
  /** A game taken over by `resume`, once settled: its whole current record and pending tree. */
  | { t: 'resumed'; rec: GameRecord; tree: TreeWire | null }
  | { t: 'failed'; rid: number; error: string }
  | { t: 'verdict'; rid: number; verdict: MoveVerdict | 'busy' }
  | {
      t: 'update';
      id: string;
      head: RecordHead;
      from: number;
      hist: HistoryEntry[];
      /** The pending roll's tree: a new one, null when none is pending, absent when unchanged. */
      tree?: TreeWire | null;
      /** [version, ndjson line] of each event, in order. */
      lines: [number, string][];
      /** How many of `lines` are TurnPlayed (metrics). */
      turns: number;
      /** The shard's store write behind this version and how long it took (seconds), for /metrics. */
      wrote?: ['putGame' | 'finishGame', number];
      /** With a forwarding store only: the game ended; main stores its final record and results. */
      write?: { kind: 'finish'; results: ResultRecord[] };
    }
  /**
   * With a forwarding store: an ended record to store on its own: written again (a mirror pair's
   * lifted reveal), or ended before main was told of the game (with its result lines).
   */
  | { t: 'write'; rec: GameRecord; results?: ResultRecord[] }
  | { t: 'done'; rid: number }
  /** Every second: the shard thread's CPU time so far (seconds), its live games and its V8 heap (bytes). */
  | { t: 'stats'; cpuSeconds: number; live: number; heapUsed: number; heapTotal: number };

/**
 * A pending roll's tree as it crosses: the position with dice and its leaf count, and its JSON text
 * (main serves it and never runs the engine): `json`, or `inLine` when the update's DiceRolled line
 * already carries it (at most the inline cap of leaves), so it does not cross twice.
 */
export interface TreeWire {
  dfen: string;
  leaves: number;
  json?: string;
  inLine?: true;
}

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
