// Rolls: the dice of a game's next roll, and the record and events a roll makes (a decision pending,
// or a forced pass played at once). Pure functions over the record; the actor decides when to roll
// and persists what they return. Also the rolls shared between records: one array per possible roll
// of three dice, so a long game (and a game read back from the store) holds no copy of its dice per turn.
import { parseDfen, passTurn, withDice } from '../engine/index.js';
import { hexToSeed, rollDice } from '../fair/index.js';
import { seatControlsOf, type GameRecord } from '../domain/records.js';
import type { GameEvent, HistoryEntry } from '../domain/types.js';
import { otherSeat } from '../domain/types.js';
import { banksAtRoll } from './clocks.js';
import { effectiveSeeds } from './view.js';

/** Engine results that can only fail on a bug (the input came from the engine itself). */
export function must<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }, what: string): T {
  if (!r.ok) throw new Error(`${what}: ${r.error.message}`);
  return r.value;
}

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

/** The roll of `rec`'s ply: the dice the server seed and both client seeds give, and the position with them. */
export function rollOf(rec: GameRecord): { dice: number[]; dfen: string } {
  const seeds = effectiveSeeds(rec);
  // The seed was checked when the actor was made: a malformed one never gets here.
  const dice = sharedRoll(rollDice(hexToSeed(rec.serverSeed)!, seeds.white, seeds.black, rec.ply));
  return { dice, dfen: must(withDice(rec.fen, dice), 'roll') };
}

/** A roll with a decision pending: the record that publishes it, the mover's clock started at `now`. */
export function pendingRoll(base: GameRecord, dice: number[], now: number): GameRecord {
  const clocks = banksAtRoll(seatControlsOf(base), base.clocks);
  return { ...base, ply: base.ply + 1, dice, clocks, clockStartedAt: now, version: base.version + 1 };
}

/**
 * A roll with no legal move (`dfen` holds its dice), its pass played at once: the record after both
 * (the other side to move, no clock running), their DiceRolled and TurnPlayed, and the halfmove
 * counter the draw rule reads.
 */
export function forcedPass(base: GameRecord, dice: number[], dfen: string): { next: GameRecord; events: GameEvent[]; halfmove: number } {
  const mover = base.activeSeat;
  const clocks = banksAtRoll(seatControlsOf(base), base.clocks);
  const v = base.version + 1;
  const out = passTurn(must(parseDfen(dfen), 'roll'));
  const entry: HistoryEntry = { seat: mover, dice, moves: [], fenAfter: out.fenAfter };
  const next: GameRecord = {
    ...base, ply: base.ply + 1, fen: out.fenAfter, activeSeat: otherSeat(mover), dice: null, clocks,
    clockStartedAt: null, version: v + 1, history: [...base.history, entry],
  };
  const events: GameEvent[] = [
    { DiceRolled: { v, seat: mover, dice, dfen, clocks, legalMoves: {} } },
    { TurnPlayed: { v: v + 1, seat: mover, moves: [], fenAfter: out.fenAfter } },
  ];
  return { next, events, halfmove: out.halfmove };
}
