// Owner → main: what a shard's host answers and announces (replies, updates at every version, heads,
// endings and the thread's stats), one batch per event-loop turn, in order. Plain data, like the commands.
import type { GameRecord, ResultRecord } from '../../domain/records.js';
import type { HistoryEntry } from '../../domain/types.js';

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
