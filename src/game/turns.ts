// A turn played on the pending roll: the record after it and its TurnPlayed. Pure; the actor has
// already checked that the turn is the mover's, in time and legal, and persists what this returns.
import { applyTurn, parseDfen } from '../engine/index.js';
import { seatControlsOf, type GameRecord } from '../domain/records.js';
import type { GameEvent, HistoryEntry, Seat } from '../domain/types.js';
import { otherSeat } from '../domain/types.js';
import { banksAfterTurn, elapsedMs } from './clocks.js';
import { must } from './rolls.js';

export interface PlayedTurn {
  next: GameRecord;
  played: GameEvent;
  /** The history entry of the turn (its `moves` are the ones published). */
  entry: HistoryEntry;
  /** The turn took the opponent's king: the game is won. */
  kingCaptured: boolean;
  /** The position's halfmove counter after the turn, for the draw rule. */
  halfmove: number;
}

/**
 * `moves` (legal in `dfen`, the pending roll's position with its `dice`) played by `seat` on `rec`:
 * the mover's clock, started at `started`, is charged up to `at`.
 */
export function playedTurn(rec: GameRecord, dice: number[], dfen: string, seat: Seat, moves: readonly string[], started: number | null, at: number): PlayedTurn {
  const out = must(applyTurn(must(parseDfen(dfen), 'pending roll'), moves), 'legal turn');
  const v = rec.version + 1;
  const entry: HistoryEntry = { seat, dice, moves: [...moves], fenAfter: out.fenAfter };
  const next: GameRecord = {
    ...rec,
    fen: out.fenAfter,
    // After a king capture the position is not turned over (docs/ENGINE.md: counters and draws): the capturer stays to move.
    activeSeat: out.kingCaptured ? seat : otherSeat(seat),
    dice: null,
    clocks: banksAfterTurn(seatControlsOf(rec), rec.clocks, seat, elapsedMs(started, at)),
    clockStartedAt: null,
    version: v,
    history: [...rec.history, entry],
  };
  const played: GameEvent = { TurnPlayed: { v, seat, moves: entry.moves, fenAfter: out.fenAfter } };
  return { next, played, entry, kingCaptured: out.kingCaptured, halfmove: out.halfmove };
}
