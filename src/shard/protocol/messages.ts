// The messages between the edge's side of a shard (ShardedGames on the main thread) and a shard
// (ShardHost, in a worker thread or, for tests, in the same thread). Every message is plain data
// (structured-clone safe), so a transport may copy, pack or send it over a network unchanged.
// Messages travel in batches: one array per shard per event-loop turn, in order.
import type { GameRecord, ResultRecord } from '../../domain/records.js';
import type { HistoryEntry } from '../../domain/types.js';
import type { NewGameSpec } from '../../game/types.js';

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

/**
 * Main → shard. `rid` pairs a request with its reply and is the command's identity: main sends the
 * same command again, with the same `rid`, until it is answered (a lost command or reply), and a
 * shard that has seen that `rid` answers with its first reply instead of acting twice.
 */
export type Command =
  | { t: 'create'; rid: number; id: string; spec: NewGameSpec }
  | { t: 'pair'; rid: number; ids: [string, string]; spec: NewGameSpec }
  /**
   * Any game command (src/game/commands.ts: move, seed, resign, …) for game `id`, by name: the shard
   * hands `payload` to the game's actor through the command table and answers `answer`.
   */
  | { t: 'game'; rid: number; id: string; name: string; payload: unknown }
  /**
   * Main saw a gap in a game's updates (a lost or late one), or needs a game it was not told of: send
   * its whole current state (`synced`). A read, answered afresh each time it is asked.
   */
  | { t: 'sync'; rid: number; id: string }
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
export type ShardReply =
  /**
   * A game created here (create or pair), announced before its first roll; `rid`: the command that
   * created it (main takes an announcement only while that command waits, and only once).
   */
  | { t: 'started'; rid: number; rec: GameRecord; seq?: number }
  /**
   * A game taken over by `resume` (`rid`), once settled: its whole current record and pending tree.
   * (`seq`, on both: the update count the game starts from when it is not 0; see ShardHostDeps.seqBase.)
   */
  | { t: 'resumed'; rid: number; rec: GameRecord; tree: TreeWire | null; seq?: number }
  /**
   * The answer to `sync`: the game's whole record and pending tree, and the `seq` of the last update
   * it covers; an ended game comes with its result lines when main stores it (forwarding store).
   */
  | { t: 'synced'; rid: number; rec: GameRecord; tree: TreeWire | null; seq: number; results?: ResultRecord[] }
  | { t: 'failed'; rid: number; error: string }
  /** The reply of a `game` command (its type is the command's, in src/game/commands.ts). */
  | { t: 'answer'; rid: number; reply: unknown }
  | {
      t: 'update';
      id: string;
      /**
       * The game's update count since it was announced (1, 2, …): main applies an update only on top
       * of the one before, ignores one it already has, and asks for a `sync` on a gap. Versions alone
       * cannot tell, as a seed or a resumed clock changes the record without a new version.
       */
      seq: number;
      head: RecordHead;
      from: number;
      hist: HistoryEntry[];
      /** The pending roll's tree: a new one, null when none is pending, absent when unchanged. */
      tree?: TreeWire | null;
      /** [version, ndjson line] of each event, in order. */
      lines: [number, string][];
      /** How many of `lines` are TurnPlayed (metrics). */
      turns: number;
      /** How long the shard took to build this version's new tree (seconds), for /metrics. */
      treeSeconds?: number;
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
  /**
   * About once a second, the newest `seq` of the games updated lately and of some others, every
   * game of the shard in turn (host.ts: sendHeads): main resyncs a game still behind what the
   * previous `heads` said (its last update was lost, and no later one would show the gap).
   */
  | { t: 'heads'; seqs: HeadsEntry[] }
  /**
   * Cluster mode: a game ended, its final record as stored, for every node (the owner adds it after
   * the game's last update). A node that was not following the game retires its replica with it.
   */
  | { t: 'ended'; rec: GameRecord }
  /** Every second: the shard thread's CPU time so far (seconds) and its V8 heap. */
  | { t: 'stats'; cpuSeconds: number; heapUsed: number; heapTotal: number };

/** A game named by `heads`: its id, its newest `seq`, and 1 when it has ended on its owner. */
export type HeadsEntry = [id: string, seq: number, ended?: 1];

/**
 * A pending roll's tree as it crosses: the position with dice, its leaf count, and its JSON text as
 * UTF-8 bytes, made once by the shard that owns the game (main keeps and serves those bytes and never
 * runs the engine): `text`, absent when the update's DiceRolled line already carries it (at most the
 * inline cap of leaves), so it does not cross twice.
 */
export interface TreeWire {
  dfen: string;
  leaves: number;
  text?: Uint8Array;
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
