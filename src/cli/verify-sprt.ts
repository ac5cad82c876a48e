// The SPRT part of `dicechess verify-event`: the order in which the server counted the pairs, read
// from the export and checked for sense, and the verdict re-derived from the LLR path in that order
// with the same statistics the server uses (never copied from the export).
import { sprtBounds } from '../services/tournaments/stats.js';
import { firstCrossing, SPRT_METHOD, type SprtStop } from '../services/tournaments/sprt-verdict.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Compares two numbers of a published statistic (they were computed the same way, so closely). */
const same = (a: number, b: number): boolean => typeof a === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));

const finished = (p: Json): boolean => p.scores?.[0] !== null && p.scores?.[1] !== null && p.void !== true;

/**
 * Each exported pair's place in the finishing order (0: not finished), by position in `ev.pairs`. An
 * export made before the order was published has none: its pairs are taken in index order, which is
 * the finishing order only when one pair ran at a time.
 */
export function finishingOrder(ev: Json): { seq: number[]; problems: string[] } {
  const pairs: Json[] = ev.pairs;
  if (pairs.some((p) => typeof p.finishedSeq !== 'number')) {
    let n = 0;
    return { seq: pairs.map((p) => (finished(p) ? ++n : 0)), problems: [] };
  }
  const problems: string[] = [];
  const seen = new Map<number, number>();
  for (const p of pairs) {
    if (!finished(p)) {
      if (p.finishedSeq !== 0) problems.push(`pair ${p.index}: not finished, yet number ${p.finishedSeq} in the finishing order`);
      continue;
    }
    const other = seen.get(p.finishedSeq);
    if (!Number.isInteger(p.finishedSeq) || p.finishedSeq < 1) problems.push(`pair ${p.index}: finished, but its place in the finishing order is ${p.finishedSeq}`);
    else if (other !== undefined) problems.push(`pair ${p.index}: number ${p.finishedSeq} in the finishing order, as pair ${other} was`);
    else seen.set(p.finishedSeq, p.index);
  }
  const count = pairs.filter(finished).length;
  if (problems.length === 0 && [...seen.keys()].some((k) => k > count)) problems.push(`finishing order: ${count} pairs finished, numbered beyond ${count}`);
  return { seq: pairs.map((p) => p.finishedSeq), problems };
}

const told = (v: SprtStop): string => (v.verdict === null ? 'no verdict' : `${v.verdict} after ${v.after} pairs`);

/**
 * The SPRT checked from its recomputed LLR path (`history`, pairs in finishing order): the bounds,
 * every LLR, and the verdict with the pair it came at. `notes` are said but are no failure.
 */
export function checkSprt(ev: Json, history: readonly number[]): { problems: string[]; notes: string[] } {
  const problems: string[] = [];
  const notes: string[] = [];
  const s = ev.sprt;
  if (!s) return { problems, notes };
  if (s.method === undefined) {
    notes.push(
      `sprt: this export is of the old method (made before the server published its SPRT method and finishing order): its verdict (${ev.verdict ?? 'none'}) cannot be re-derived and is not checked`,
    );
    return { problems, notes };
  }
  if (s.method !== SPRT_METHOD) {
    problems.push(`sprt: unknown method ${JSON.stringify(s.method)} (this verifier knows ${SPRT_METHOD})`);
    return { problems, notes };
  }
  const bounds = sprtBounds(s.alpha, s.beta);
  if (!Array.isArray(s.llrBounds) || !same(s.llrBounds[0], bounds[0]) || !same(s.llrBounds[1], bounds[1])) {
    problems.push(`sprt: LLR bounds published ${JSON.stringify(s.llrBounds)}, recomputed [${bounds.join(', ')}]`);
  }
  const published: number[] = ev.llrHistory ?? [];
  if (published.length !== history.length) problems.push(`llrHistory: published ${published.length} values, recomputed ${history.length}`);
  const k = history.findIndex((x, i) => !same(published[i], x));
  if (k >= 0 && k < published.length) problems.push(`llrHistory: after ${k + 1} pairs published ${published[k]}, recomputed ${history[k]}`);
  const mine = firstCrossing(history, bounds);
  const theirs: SprtStop = { verdict: ev.verdict ?? null, after: ev.verdictAfter ?? null };
  if (mine.verdict === theirs.verdict && mine.after === theirs.after) return { problems, notes };
  // The server gives no verdict once the host cancelled: a bound reached by a pair that finished
  // while the cancelled event waited for its running pairs is no verdict.
  if (theirs.verdict === null && ev.state === 'cancelled') {
    notes.push(`sprt: the LLR reached a bound (${told(mine)}), but the event was cancelled: no verdict, as published`);
  } else {
    problems.push(`verdict published ${told(theirs)}, recomputed ${told(mine)}`);
  }
  return { problems, notes };
}
