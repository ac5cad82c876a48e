// The statistics of an event, from its mirror pairs. Pure functions; the formulas, their sources and
// the edge cases are written out in docs/DECISIONS.md ("Event statistics").
//
// A pair's score `a` for the first player is the mean of its two games (1 win, ½ draw, 0 loss), so it
// is one of 0, ¼, ½, ¾, 1: the pentanomial counts [LL, LD, WL+DD, WD, WW] are how many pairs fell on
// each. Over N pairs with frequencies pᵢ: μ = Σ aᵢpᵢ, σ² = Σ pᵢ(aᵢ−μ)², SE = √(σ²/N).
import { sprtModelOf, type GameScore, type SprtModel, type SprtSettings } from '../../domain/tournaments.js';
import { meanLogLikelihood, tValueLogLikelihood } from './glr.js';

/** The pair score of each pentanomial bin. */
export const PAIR_SCORES = [0, 0.25, 0.5, 0.75, 1] as const;
export type Pentanomial = [number, number, number, number, number];

/** Elo is reported within ±ELO_LIMIT: a score of exactly 0 or 1 has no finite Elo. */
export const ELO_LIMIT = 1200;
/** The 97.5% quantile of the normal distribution: a 95% two-sided interval. */
export const Z95 = 1.96;
/**
 * Fishtest's regularisation of the LLR: an empty pentanomial bin counts as this many pairs there. The
 * Elo interval's variance is regularised the same way, so that one pair does not give a zero width.
 */
export const LLR_EMPTY_BIN = 1e-3;
/** Normalised Elo per unit of per-game t-value (μ − ½)/σ: 800/ln 10. */
export const NELO_PER_T = 800 / Math.LN10;

export interface SprtReport {
  llr: number;
  /** [ln(β/(1−α)), ln((1−β)/α)]: H0 is accepted at or below the first, H1 at or above the second. */
  bounds: [number, number];
  verdict: 'H0' | 'H1' | null;
}

export interface Luck {
  /** Pearson correlation of the first and the second game's result within pairs (0 when undefined). */
  correlation: number;
  /** The share of the variance of two independent games that pairing removes: −2·cov/(var₁+var₂). */
  varianceSaved: number;
}

export interface PairStats {
  pairs: number;
  pentanomial: Pentanomial;
  score: number;
  elo: number;
  eloInterval: [number, number];
  los: number;
  drawRatio: number;
  luck: Luck;
}

export function pentanomialOf(pairs: readonly (readonly [GameScore, GameScore])[]): Pentanomial {
  const counts: Pentanomial = [0, 0, 0, 0, 0];
  for (const [x, y] of pairs) counts[Math.round((x + y) * 2)]++;
  return counts;
}

/** Mean and variance of the pair score for these counts (both 0 without pairs). */
export function moments(counts: readonly number[]): { n: number; mu: number; variance: number } {
  const n = counts.reduce((s, c) => s + c, 0);
  if (n === 0) return { n: 0, mu: 0, variance: 0 };
  let mu = 0;
  for (let i = 0; i < 5; i++) mu += PAIR_SCORES[i] * (counts[i] / n);
  let variance = 0;
  for (let i = 0; i < 5; i++) variance += (counts[i] / n) * (PAIR_SCORES[i] - mu) ** 2;
  return { n, mu, variance };
}

/** −400·log10(1/μ − 1), within ±ELO_LIMIT (μ of 0 or 1 gives the limit). */
export function eloOf(mu: number): number {
  const e = -400 * Math.log10(1 / mu - 1);
  if (Number.isNaN(e)) return 0;
  return Math.max(-ELO_LIMIT, Math.min(ELO_LIMIT, e));
}

/** The expected score of an Elo difference on the logistic curve: 1/(1+10^(−elo/400)). */
export const logisticScore = (elo: number): number => 1 / (1 + 10 ** (-elo / 400));

/**
 * The standard normal distribution function, Φ(x) = ½·erfc(−x/√2), with erfc from the Chebyshev
 * fit of Numerical Recipes (`erfcc`, fractional error below 1.2·10⁻⁷ everywhere).
 */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -z * z - 1.26551223 +
    t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 +
    t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const erfc = t * Math.exp(poly);
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** The statistics of one encounter from the first player's side; `games` are its pairs' two results. */
export function pairStats(games: readonly (readonly [GameScore, GameScore])[]): PairStats {
  const pentanomial = pentanomialOf(games);
  const { n, mu, variance } = moments(pentanomial);
  const luck = luckOf(games);
  if (n === 0) {
    return { pairs: 0, pentanomial, score: 0.5, elo: 0, eloInterval: [-ELO_LIMIT, ELO_LIMIT], los: 0.5, drawRatio: 0, luck };
  }
  // The interval's width and the LOS come from the regularised variance (as the LLR's does): with
  // every pair alike the plain one is 0, and a single pair would claim an exact Elo and a certain
  // winner. The pseudo-counts weigh 0.001 of a pair, so a sample that has every bin is unchanged and
  // one that lacks a bin moves by well under a tenth of its standard error.
  const se = Math.sqrt(moments(regularised(pentanomial)).variance / n);
  const width = Z95 * se;
  const lo = Math.max(0, mu - width);
  const hi = Math.min(1, mu + width);
  // An even score is an even chance by symmetry (the erfc fit gives Φ(0) only to 10⁻⁷).
  const los = mu === 0.5 ? 0.5 : normalCdf((mu - 0.5) / se);
  let draws = 0;
  for (const [x, y] of games) draws += (x === 0.5 ? 1 : 0) + (y === 0.5 ? 1 : 0);
  return { pairs: n, pentanomial, score: mu, elo: eloOf(mu), eloInterval: [eloOf(lo), eloOf(hi)], los, drawRatio: draws / (2 * n), luck };
}

/** The SPRT's stopping bounds for error rates α and β. */
export function sprtBounds(alpha: number, beta: number): [number, number] {
  return [Math.log(beta / (1 - alpha)), Math.log((1 - beta) / alpha)];
}

/** The counts with every empty bin given LLR_EMPTY_BIN pairs. */
const regularised = (counts: readonly number[]): number[] => counts.map((c) => (c === 0 ? LLR_EMPTY_BIN : c));

/**
 * The t-value (μ − ½)/σ of one pair's score that a normalised Elo means. Normalised Elo is the per-game
 * t-value times 800/ln 10; a pair's score is the mean of two games, whose deviation the pentanomial
 * model takes as the per-game one over √2 (Fishtest's σ_pg = √(2·var) of the pair scores), so the
 * pair's t-value is √2 times the per-game one.
 */
export const pairTValue = (nelo: number): number => (Math.SQRT2 * nelo) / NELO_PER_T;

/**
 * The exact generalised log-likelihood ratio of H1 against H0 on pentanomial counts: the counts are
 * regularised (an empty bin gets LLR_EMPTY_BIN pairs; N is the regularised total, p̂ the frequencies),
 * each hypothesis gets the most likely pentanomial distribution satisfying it, and
 * LLR = N·Σ p̂ᵢ·ln(p1ᵢ/p0ᵢ). A logistic bound fixes the mean score, 1/(1+10^(−elo/400)); a normalised
 * one fixes the pair's t-value (`pairTValue`). The solvers are in glr.ts. No pairs: 0.
 */
export function llrOf(counts: readonly number[], elo0: number, elo1: number, model: SprtModel): number {
  // One join makes a flat string: a key built by concatenation keeps its pieces and takes twice the room.
  const key = [model, elo0, elo1, ...counts].join(' ');
  const known = llrCache.get(key);
  if (known !== undefined) return known;
  const llr = exactLlr(counts, elo0, elo1, model);
  if (llrCache.size >= LLR_CACHE_SIZE) llrCache.clear();
  llrCache.set(key, llr);
  return llr;
}

/**
 * LLRs already computed, by model, bounds and counts (all forgotten when it fills). An event's LLR
 * history is recomputed from its pairs on every view and every finished pair; a normalised LLR costs
 * a search (about 0.1 ms) and a logistic one two secular roots (a few µs, a lookup about 1 µs), so
 * each prefix of a running test is solved once. About 100 bytes an entry: 13 MB when full.
 */
const LLR_CACHE_SIZE = 1 << 17;
const llrCache = new Map<string, number>();

function exactLlr(counts: readonly number[], elo0: number, elo1: number, model: SprtModel): number {
  if (counts.reduce((s, c) => s + c, 0) === 0) return 0;
  const reg = regularised(counts);
  const n = reg.reduce((s, c) => s + c, 0);
  const phat = reg.map((c) => c / n);
  const best = (elo: number): number =>
    model === 'logistic'
      ? meanLogLikelihood(phat, PAIR_SCORES, logisticScore(elo))
      : tValueLogLikelihood(phat, PAIR_SCORES, 0.5, pairTValue(elo));
  return n * (best(elo1) - best(elo0));
}

/** The SPRT on these counts; settings without a model are a record from before models (logistic). */
export function sprtReport(counts: readonly number[], s: SprtSettings): SprtReport {
  const llr = llrOf(counts, s.elo0, s.elo1, sprtModelOf(s));
  const bounds = sprtBounds(s.alpha, s.beta);
  return { llr, bounds, verdict: llr >= bounds[1] ? 'H1' : llr <= bounds[0] ? 'H0' : null };
}

/** How the two games of a pair move together, and the variance that saves (0 with under two pairs). */
export function luckOf(games: readonly (readonly [GameScore, GameScore])[]): Luck {
  const n = games.length;
  if (n < 2) return { correlation: 0, varianceSaved: 0 };
  let mx = 0;
  let my = 0;
  for (const [x, y] of games) {
    mx += x / n;
    my += y / n;
  }
  let vx = 0;
  let vy = 0;
  let cov = 0;
  for (const [x, y] of games) {
    vx += (x - mx) ** 2 / n;
    vy += (y - my) ** 2 / n;
    cov += ((x - mx) * (y - my)) / n;
  }
  const correlation = vx === 0 || vy === 0 ? 0 : cov / Math.sqrt(vx * vy);
  const varianceSaved = vx + vy === 0 ? 0 : (-2 * cov) / (vx + vy);
  return { correlation, varianceSaved };
}
