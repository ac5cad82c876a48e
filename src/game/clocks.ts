// Pure clock arithmetic for the four time controls (docs/API.md, "Clocks").
//
// The model: a game keeps two *banks* (remaining ms per side) and, while a real decision is pending,
// the instant the mover's clock started. Nothing ticks in between: the mover's elapsed time is always
// computed from that instant, so no timer has to run to keep the numbers right. Forced passes never
// start a clock, so they never reach these functions with a running clock.
import type { Clocks, Seat, TimeControl } from '../domain/types.js';

const side = (seat: Seat): 'white' | 'black' => (seat === 'White' ? 'white' : 'black');

/** The per-turn budget of PerMove, or null for the other controls. */
function perMoveBudget(tc: TimeControl): number | null {
  return 'PerMove' in tc ? tc.PerMove.secondsPerMove * 1000 : null;
}

/** Banks at game creation; null for Unlimited (which has no clocks at all). */
export function initialBanks(tc: TimeControl): Clocks | null {
  if ('Unlimited' in tc) return null;
  const ms =
    'SuddenDeath' in tc
      ? tc.SuddenDeath.initialSeconds * 1000
      : 'Fischer' in tc
        ? tc.Fischer.initialSeconds * 1000
        : tc.PerMove.secondsPerMove * 1000;
  return { white: ms, black: ms };
}

/**
 * Banks at the instant of a roll. PerMove hands out a fresh budget every turn; both banks read the
 * full budget then, since the waiting side's next turn will start fresh too. Other controls carry the
 * banks over unchanged.
 */
export function banksAtRoll(tc: TimeControl, banks: Clocks | null): Clocks | null {
  if (banks === null) return null;
  const budget = perMoveBudget(tc);
  return budget === null ? { ...banks } : { white: budget, black: budget };
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
 * Banks after a completed (non-pass) turn that took `elapsed` ms. SuddenDeath subtracts; Fischer
 * subtracts and then adds the increment; PerMove resets both sides to the budget (the spent budget
 * does not carry over); Unlimited stays null.
 */
export function banksAfterTurn(tc: TimeControl, banks: Clocks | null, mover: Seat, elapsed: number): Clocks | null {
  if (banks === null) return null;
  const budget = perMoveBudget(tc);
  if (budget !== null) return { white: budget, black: budget };
  const k = side(mover);
  const left = Math.max(0, banks[k] - Math.max(0, elapsed));
  const inc = 'Fischer' in tc ? tc.Fischer.incrementSeconds * 1000 : 0;
  return { ...banks, [k]: left + inc };
}

/** Banks frozen at the end of a game: the mover's running time charged, no increment. */
export function banksAtEnd(banks: Clocks | null, mover: Seat, startedAt: number | null, at: number): Clocks | null {
  return liveClocks(banks, mover, startedAt, at);
}
