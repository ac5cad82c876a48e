// Pure clock arithmetic for the four time controls (docs/API.md, "Clocks").
//
// The model: a game keeps two *banks* (remaining ms per side) and, while a real decision is pending,
// the instant the mover's clock started. Nothing ticks in between: the mover's elapsed time is always
// computed from that instant, so no timer has to run to keep the numbers right. Forced passes never
// start a clock, so they never reach these functions with a running clock.
//
// Each side reads its own control (SeatControls): a game with time odds gives the two sides different
// ones, every other game the same one to both. A game whose sides are both Unlimited has no banks; one
// Unlimited side against a timed one is never made (events refuse it), and would play untimed.
import type { Clocks, Seat, SeatControls, TimeControl } from '../domain/types.js';

const side = (seat: Seat): 'white' | 'black' => (seat === 'White' ? 'white' : 'black');

/** The same control for both sides (a game without odds). */
export const both = (tc: TimeControl): SeatControls => ({ white: tc, black: tc });

/** The per-turn budget of PerMove, or null for the other controls. */
function perMoveBudget(tc: TimeControl): number | null {
  return 'PerMove' in tc ? tc.PerMove.secondsPerMove * 1000 : null;
}

/** A side's bank at the start (Unlimited has none and never gets here). */
function startMs(tc: TimeControl): number {
  if ('SuddenDeath' in tc) return tc.SuddenDeath.initialSeconds * 1000;
  if ('Fischer' in tc) return tc.Fischer.initialSeconds * 1000;
  if ('PerMove' in tc) return tc.PerMove.secondsPerMove * 1000;
  return 0;
}

/** Banks at game creation; null for Unlimited (which has no clocks at all). */
export function initialBanks(tcs: SeatControls): Clocks | null {
  if ('Unlimited' in tcs.white || 'Unlimited' in tcs.black) return null;
  return { white: startMs(tcs.white), black: startMs(tcs.black) };
}

/** The side's bank with PerMove's fresh budget put back (any other control keeps `ms`). */
function refreshed(tc: TimeControl, ms: number): number {
  return perMoveBudget(tc) ?? ms;
}

/**
 * Banks at the instant of a roll. PerMove hands out a fresh budget every turn; a PerMove side's bank
 * reads its full budget then, waiting or not, since its next turn will start fresh too. Other controls
 * carry the bank over unchanged.
 */
export function banksAtRoll(tcs: SeatControls, banks: Clocks | null): Clocks | null {
  if (banks === null) return null;
  return { white: refreshed(tcs.white, banks.white), black: refreshed(tcs.black, banks.black) };
}

/**
 * How long the mover has for the pending decision, counted from its clock start: its bank on timed
 * controls, the anti-abandonment cap on Unlimited.
 */
export function decisionLimitMs(banks: Clocks | null, mover: Seat, unlimitedCapMs: number): number {
  return banks === null ? unlimitedCapMs : banks[side(mover)];
}

/** Milliseconds the mover has used so far (never negative, whatever the clock source does). */
export function elapsedMs(startedAt: number | null, at: number): number {
  return startedAt === null ? 0 : Math.max(0, at - startedAt);
}

/**
 * The mover's clock start with a credit (time the server itself held the turn) taken off: later by
 * `creditMs`, but by at most the time the clock has run at `at`.
 */
export function creditedStart(startedAt: number | null, creditMs: number, at: number): number | null {
  return startedAt === null ? null : startedAt + Math.min(Math.max(0, creditMs), elapsedMs(startedAt, at));
}

/** True when the decision's time is up at `at` (the bank reaching exactly zero counts as out). */
export function outOfTime(limitMs: number, startedAt: number | null, at: number): boolean {
  return startedAt !== null && elapsedMs(startedAt, at) >= limitMs;
}

/** Live values for state reads: the mover's elapsed time subtracted, floored at zero. */
export function liveClocks(banks: Clocks | null, mover: Seat, startedAt: number | null, at: number): Clocks | null {
  if (banks === null) return null;
  if (startedAt === null) return { ...banks };
  const k = side(mover);
  return { ...banks, [k]: Math.max(0, banks[k] - elapsedMs(startedAt, at)) };
}

/**
 * Banks after a completed (non-pass) turn that took `elapsed` ms, each side by its own control.
 * SuddenDeath subtracts from the mover; Fischer subtracts and then adds the increment; a PerMove side
 * is reset to its budget (the spent budget does not carry over); Unlimited stays null.
 */
export function banksAfterTurn(tcs: SeatControls, banks: Clocks | null, mover: Seat, elapsed: number): Clocks | null {
  if (banks === null) return null;
  const k = side(mover);
  const tc = tcs[k];
  const left = Math.max(0, banks[k] - Math.max(0, elapsed));
  const inc = 'Fischer' in tc ? tc.Fischer.incrementSeconds * 1000 : 0;
  const next = { ...banks, [k]: left + inc };
  return { white: refreshed(tcs.white, next.white), black: refreshed(tcs.black, next.black) };
}

/** Banks frozen at the end of a game: the mover's running time charged, no increment. */
export function banksAtEnd(banks: Clocks | null, mover: Seat, startedAt: number | null, at: number): Clocks | null {
  return liveClocks(banks, mover, startedAt, at);
}
