// Knobs of the game actors, with the defaults the contract names. The composition root passes a
// full GameConfig; tests override single fields with `{ ...DEFAULT_GAME_CONFIG, ... }`.

export interface GameConfig {
  /** Wait for both client seeds before the opening roll at most this long (3 s by default). */
  seedGraceMs: number;
  /** Unlimited games: a pending turn not played within this ends the game by Timeout (120 s). */
  unlimitedCapMs: number;
  /** Inline copies of the tree are null above this many leaves (1000; docs/ENGINE.md, the legal-move tree). */
  inlineLeafCap: number;
  /** Ended records kept in memory for GameDirectory.finalRecord when the store has none. */
  archiveSize: number;
  /** And their encoded bytes at most (per thread that keeps games: main and each shard). */
  archiveBytes?: number;
  /** Commands one game may have waiting before move() answers 'busy'. */
  mailboxSize: number;
  /** House players wait this long before submitting (0 in tests; small for humans watching). */
  houseMoveDelayMs: number;
  /** The roll-count draw (5000; docs/ENGINE.md, counters and draws). Configurable only so tests can reach it quickly. */
  maxRolls?: number;
}

export const DEFAULT_GAME_CONFIG: Required<GameConfig> = {
  seedGraceMs: 3000,
  unlimitedCapMs: 120_000,
  inlineLeafCap: 1000,
  archiveSize: 1000,
  archiveBytes: 8 * 1024 * 1024,
  mailboxSize: 256,
  houseMoveDelayMs: 0,
  maxRolls: 5000,
};

/** Filled-in configs by the config they came from: every actor of a registry shares one object. */
const filled = new WeakMap<GameConfig, Required<GameConfig>>();

/** `c` with every missing field defaulted; the same object for the same `c` (treat both as read-only). */
export function withDefaults(c: GameConfig): Required<GameConfig> {
  let full = filled.get(c);
  if (full === undefined) {
    full = { ...DEFAULT_GAME_CONFIG, ...Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) };
    filled.set(c, full);
    filled.set(full, full);
  }
  return full;
}

/** The game logs with the server's one logger shape. */
export type { Logger as GameLog } from '../domain/log.js';
