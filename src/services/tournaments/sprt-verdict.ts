// How an SPRT's verdict follows from its LLR path, in one place: the scheduler stops the test at the
// first finished pair whose LLR reaches a bound, and `dicechess verify-event` re-derives the verdict
// from an export by walking the same path (pairs in the order the server counted them).

/**
 * The name of the statistic the server's SPRT uses, published with every SPRT event: the exact
 * generalised log-likelihood ratio on pentanomial pair scores (stats.ts, glr.ts). An export without
 * it was made before the method was written down, and its verdict cannot be re-derived for sure.
 */
export const SPRT_METHOD = 'glr';

/**
 * What an encounter says of its Elo once its SPRT stopped at a bound. No median-unbiased estimate is
 * computed (docs/DECISIONS.md "Event statistics"), so the naive one is labelled for what it is.
 */
export const BIAS_NOTE =
  'The test stopped at a bound: elo, eloInterval and los are the naive estimates after a sequential stop, biased toward the accepted hypothesis (away from the rejected one), so they overstate how clear the result is; no corrected estimate is given.';

export interface SprtStop {
  verdict: 'H0' | 'H1' | null;
  /** The pairs finished when the verdict was reached (1-based), or null without one. */
  after: number | null;
}

/** The first LLR of the path at or beyond a bound: H1 at or above the upper one, H0 at or below the lower. */
export function firstCrossing(history: readonly number[], bounds: readonly [number, number]): SprtStop {
  for (const [i, llr] of history.entries()) {
    if (llr >= bounds[1]) return { verdict: 'H1', after: i + 1 };
    if (llr <= bounds[0]) return { verdict: 'H0', after: i + 1 };
  }
  return { verdict: null, after: null };
}
