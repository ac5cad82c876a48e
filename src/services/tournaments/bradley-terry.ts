// Bradley–Terry ratings of an event's players with 95% intervals (docs/EVENTS.md "Ratings"). Pure
// functions on the games' results; the event's view reads them through ratings.ts.
//
// The model: every game is one trial in which player i scores against player j with probability
// p = 1/(1 + e^(θj − θi)); a draw counts as half a win and half a loss (so only the total score
// between two players matters). θ is on the natural scale; the Elo scale is 400/ln 10 times it. The
// log-likelihood is concave and changes not at all when every θ moves by the same amount, so the
// ratings are anchored to a mean of 0.
//
// The maximum of the plain likelihood does not exist when a player won (or lost) everything: its
// rating would run off to infinity. So virtual drawn games are added before solving: PRIOR_DRAWS
// between every two players who met, and FAINT_DRAWS between every two who did not (only so that
// players who are not yet linked by real games, early in a gauntlet or a Swiss, are still tied to
// one field; it is small enough to leave their difference almost free, hence a very wide interval).
// With these the maximum always exists and is unique.

/** Virtual drawn games added between every two players who played each other. */
export const PRIOR_DRAWS = 1;
/** Virtual drawn games added between every two players who never met. */
export const FAINT_DRAWS = 0.01;
/** Elo points per natural-scale unit. */
export const ELO_PER_UNIT = 400 / Math.LN10;
const Z95 = 1.96;

/** What two players (i < j) did against each other: games, and i's total score in them. */
export interface Meeting {
  i: number;
  j: number;
  games: number;
  /** i's score: wins plus half the draws. */
  score: number;
}

export interface BtSolution {
  /** Elo of each player (mean 0). */
  elo: number[];
  /** Standard error of each player's Elo against the field's mean. */
  se: number[];
  /** Lower and upper ends of the 95% interval of each player's Elo. */
  low: number[];
  high: number[];
  iterations: number;
}

/** Options for tests: the virtual draws (the server always uses the defaults). */
export interface BtOptions {
  prior?: number;
  faint?: number;
}

/**
 * The ratings of `n` players from what they did against each other (meetings between the same two
 * players may repeat; they are added up). Players are 0 … n−1.
 */
export function bradleyTerry(n: number, meetings: readonly Meeting[], opts: BtOptions = {}): BtSolution {
  const prior = opts.prior ?? PRIOR_DRAWS;
  const faint = opts.faint ?? FAINT_DRAWS;
  // Games and score of the row player against the column player, virtual draws included.
  const games = Array.from({ length: n }, () => new Float64Array(n));
  const score = Array.from({ length: n }, () => new Float64Array(n));
  for (const m of meetings) {
    games[m.i][m.j] += m.games;
    games[m.j][m.i] += m.games;
    score[m.i][m.j] += m.score;
    score[m.j][m.i] += m.games - m.score;
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const extra = games[i][j] > 0 ? prior : faint;
      games[i][j] += extra;
      games[j][i] += extra;
      score[i][j] += extra / 2;
      score[j][i] += extra / 2;
    }
  }
  const theta = new Float64Array(n);
  const loglik = (t: Float64Array): number => {
    let s = 0;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        if (games[i][j] === 0) continue;
        const d = t[i] - t[j];
        // log σ(d) and log σ(−d), written so that neither overflows.
        s += -score[i][j] * softplus(-d) - score[j][i] * softplus(d);
      }
    }
    return s;
  };
  let iterations = 0;
  let current = loglik(theta);
  for (; iterations < 100; iterations++) {
    const { gradient, info } = derivatives(n, theta, games, score);
    if (Math.max(0, ...gradient.map(Math.abs)) < 1e-10) break;
    // The information matrix has the all-ones vector in its null space (the likelihood ignores a
    // shift); adding 1/n on every entry makes it invertible without changing the step, whose
    // components sum to 0 because the gradient's do.
    const step = solveSpd(withShift(info, n), gradient);
    let scale = 1;
    let next = theta.map((t, i) => t + step[i]);
    let value = loglik(next);
    // Newton may overshoot far from the maximum; halving the step until the likelihood rises keeps
    // every iteration an improvement, and a concave function then converges.
    while (value < current - 1e-12 && scale > 1e-6) {
      scale /= 2;
      next = theta.map((t, i) => t + scale * step[i]);
      value = loglik(next);
    }
    theta.set(next);
    current = value;
    if (Math.max(0, ...step.map((s) => Math.abs(s * scale))) < 1e-12) break;
  }
  const mean = theta.reduce((s, t) => s + t, 0) / Math.max(1, n);
  const { info } = derivatives(n, theta, games, score);
  // The covariance of ratings anchored to their mean is the pseudo-inverse of the information
  // matrix: (I + J/n)⁻¹ − J/n when its null space is the all-ones vector alone (always, with the
  // virtual draws linking every two players).
  const inverse = invertSpd(withShift(info, n));
  const elo: number[] = [];
  const se: number[] = [];
  for (let i = 0; i < n; i++) {
    elo.push((theta[i] - mean) * ELO_PER_UNIT);
    se.push(Math.sqrt(Math.max(0, inverse[i][i] - 1 / n)) * ELO_PER_UNIT);
  }
  return {
    elo,
    se,
    low: elo.map((e, i) => e - Z95 * se[i]),
    high: elo.map((e, i) => e + Z95 * se[i]),
    iterations,
  };
}

/** log(1 + eˣ) without overflow. */
const softplus = (x: number): number => (x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x)));

/** σ(x) = 1/(1 + e^(−x)). */
const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** The log-likelihood's gradient, and its information matrix (the negated Hessian). */
function derivatives(n: number, theta: Float64Array, games: Float64Array[], score: Float64Array[]) {
  const gradient = new Array<number>(n).fill(0);
  const info = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const g = games[i][j];
      if (g === 0) continue;
      const p = sigmoid(theta[i] - theta[j]);
      gradient[i] += score[i][j] - g * p;
      gradient[j] -= score[i][j] - g * p;
      const w = g * p * (1 - p);
      info[i][i] += w;
      info[j][j] += w;
      info[i][j] -= w;
      info[j][i] -= w;
    }
  }
  return { gradient, info };
}

function withShift(m: Float64Array[], n: number): Float64Array[] {
  return m.map((row) => row.map((x) => x + 1 / n));
}

/** The Cholesky factor L (lower triangular, L·Lᵀ = m) of a symmetric positive definite matrix. */
function cholesky(m: Float64Array[]): Float64Array[] {
  const n = m.length;
  const l = Array.from({ length: n }, () => new Float64Array(n));
  for (let j = 0; j < n; j++) {
    let d = m[j][j];
    for (let k = 0; k < j; k++) d -= l[j][k] * l[j][k];
    // Rounding can leave a tiny negative pivot on a nearly singular matrix: keep it positive.
    l[j][j] = Math.sqrt(Math.max(d, 1e-300));
    for (let i = j + 1; i < n; i++) {
      let s = m[i][j];
      for (let k = 0; k < j; k++) s -= l[i][k] * l[j][k];
      l[i][j] = s / l[j][j];
    }
  }
  return l;
}

function solveWith(l: Float64Array[], b: readonly number[]): number[] {
  const n = l.length;
  const y = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= l[i][k] * y[k];
    y[i] = s / l[i][i];
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i];
    for (let k = i + 1; k < n; k++) s -= l[k][i] * x[k];
    x[i] = s / l[i][i];
  }
  return x;
}

function solveSpd(m: Float64Array[], b: readonly number[]): number[] {
  return solveWith(cholesky(m), b);
}

function invertSpd(m: Float64Array[]): number[][] {
  const l = cholesky(m);
  const n = m.length;
  const columns: number[][] = [];
  for (let c = 0; c < n; c++) columns.push(solveWith(l, Array.from({ length: n }, (_, i) => (i === c ? 1 : 0))));
  // Column c of the inverse is columns[c]; the inverse is symmetric, so rows read the same.
  return columns;
}
