// Rolls shared between records: one array per possible roll of three dice, so a long game (and a
// game read back from the store) holds no copy of its dice per turn.
import type { GameRecord } from '../domain/records.js';

/**
 * One array per possible roll of three dice (6³ of them), shared by every record, history entry and
 * event that holds that roll: a game keeps one per turn for its whole life, and records are never
 * mutated. Not frozen: V8's structured clone (postMessage) turns a frozen array into a slow sparse one.
 */
const ROLLS: readonly number[][] = Array.from({ length: 216 }, (_, i) => [Math.floor(i / 36) + 1, (Math.floor(i / 6) % 6) + 1, (i % 6) + 1]);

/** The shared array of this roll (a copy for anything that is not three dice). */
export function sharedRoll(dice: number[]): number[] {
  const [a, b, c] = dice;
  const i = (a - 1) * 36 + (b - 1) * 6 + (c - 1);
  return dice.length === 3 && ROLLS[i] !== undefined ? ROLLS[i] : dice.slice();
}

/**
 * A record read back from the store with its history's rolls and seats shared (the decoder makes
 * a new array and string for each): a resumed game is then no bigger than one played here.
 */
export function sharing(rec: GameRecord): GameRecord {
  if (rec.history.length === 0) return rec;
  const history = rec.history.map((e) => ({ ...e, seat: e.seat === 'White' ? 'White' as const : 'Black' as const, dice: sharedRoll(e.dice) }));
  return { ...rec, history };
}
