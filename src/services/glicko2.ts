// Glicko-2 as Glickman describes it in "Example of the Glicko-2 system": one rating period, pure
// functions, no I/O. The batch (services/ratings.ts) decides what a period is; this only computes.
import type { Rating } from '../domain/records.js';

/** Ratings are kept on the familiar scale; the algorithm works on this many points per unit. */
export const GLICKO_SCALE = 173.7178;
const BASE = 1500;
/** Convergence tolerance of the volatility search. */
export const GLICKO_EPSILON = 1e-6;

export interface Glicko2Options {
  /** System constant τ: how far the volatility may move in one period. */
  tau: number;
}

/** One game of the period from the rated player's side: the opponent's pre-period rating and the score. */
export interface PeriodGame {
  opponent: Rating;
  /** 1 win, 0.5 draw, 0 loss. */
  score: number;
}

const g = (phi: number): number => 1 / Math.sqrt(1 + (3 * phi * phi) / (Math.PI * Math.PI));
const expected = (mu: number, muJ: number, phiJ: number): number => 1 / (1 + Math.exp(-g(phiJ) * (mu - muJ)));

/**
 * The player's rating after one period of `games`. A period without games leaves the rating as it
 * is: the ladder does not grow idle bots' deviations (the paper's step 6 alone would).
 */
export function ratePeriod(player: Rating, games: readonly PeriodGame[], opts: Glicko2Options): Rating {
  if (games.length === 0) return { ...player };
  // Step 2: onto the Glicko-2 scale.
  const mu = (player.rating - BASE) / GLICKO_SCALE;
  const phi = player.rd / GLICKO_SCALE;
  const sigma = player.volatility;

  // Steps 3 and 4: the estimated variance v and the improvement Δ from the period's games.
  let invV = 0;
  let sum = 0;
  for (const { opponent, score } of games) {
    const muJ = (opponent.rating - BASE) / GLICKO_SCALE;
    const phiJ = opponent.rd / GLICKO_SCALE;
    const gJ = g(phiJ);
    const e = expected(mu, muJ, phiJ);
    invV += gJ * gJ * e * (1 - e);
    sum += gJ * (score - e);
  }
  const v = 1 / invV;
  const delta = v * sum;

  // Step 5: the new volatility, by the Illinois variant of regula falsi on f.
  const sigmaNext = newVolatility(delta, phi, v, sigma, opts.tau);

  // Steps 6 to 8: pre-period deviation, then the new deviation and rating, back on the usual scale.
  const phiStar = Math.sqrt(phi * phi + sigmaNext * sigmaNext);
  const phiNext = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
  const muNext = mu + phiNext * phiNext * sum;
  return { rating: GLICKO_SCALE * muNext + BASE, rd: GLICKO_SCALE * phiNext, volatility: sigmaNext };
}

function newVolatility(delta: number, phi: number, v: number, sigma: number, tau: number): number {
  const a = Math.log(sigma * sigma);
  const d2 = delta * delta;
  const p2v = phi * phi + v;
  const f = (x: number): number => {
    const ex = Math.exp(x);
    return (ex * (d2 - p2v - ex)) / (2 * (p2v + ex) * (p2v + ex)) - (x - a) / (tau * tau);
  };
  let A = a;
  let B: number;
  if (d2 > p2v) {
    B = Math.log(d2 - p2v);
  } else {
    let k = 1;
    while (f(a - k * tau) < 0) k++;
    B = a - k * tau;
  }
  let fA = f(A);
  let fB = f(B);
  while (Math.abs(B - A) > GLICKO_EPSILON) {
    const C = A + ((A - B) * fA) / (fB - fA);
    const fC = f(C);
    if (fC * fB <= 0) {
      A = B;
      fA = fB;
    } else {
      // The Illinois step: halving the kept end's value stops the search stalling on one side.
      fA /= 2;
    }
    B = C;
    fB = fC;
  }
  return Math.exp(A / 2);
}

/** A game between two rated players, from White's side. */
export interface PairGame {
  white: string;
  black: string;
  /** White's score: 1, 0.5 or 0. */
  whiteScore: number;
}

/**
 * One rating period for everyone who played in it: each player's games are rated against the
 * opponents' ratings from before the period. Players without games are not in the answer.
 */
export function rateAll(
  before: ReadonlyMap<string, Rating>,
  games: readonly PairGame[],
  opts: Glicko2Options,
  fallback: Rating,
): Map<string, Rating> {
  const ratingOf = (id: string): Rating => before.get(id) ?? fallback;
  const byPlayer = new Map<string, PeriodGame[]>();
  const add = (id: string, game: PeriodGame): void => {
    const list = byPlayer.get(id);
    if (list) list.push(game);
    else byPlayer.set(id, [game]);
  };
  for (const game of games) {
    add(game.white, { opponent: ratingOf(game.black), score: game.whiteScore });
    add(game.black, { opponent: ratingOf(game.white), score: 1 - game.whiteScore });
  }
  const after = new Map<string, Rating>();
  for (const [id, list] of byPlayer) after.set(id, ratePeriod(ratingOf(id), list, opts));
  return after;
}
