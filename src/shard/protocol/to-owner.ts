// Main → owner: the commands main's ShardedGames sends a shard's host, one batch per shard per
// event-loop turn, in order. Plain data, so any transport may copy, pack or send them unchanged.
import type { GameRecord } from '../../domain/records.js';
import type { NewGameSpec } from '../../game/types.js';

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
