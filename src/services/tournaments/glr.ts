// The exact generalised likelihood ratio of the SPRT, for a distribution on a few known scores (the
// five pair scores of the pentanomial model). Pure functions, no state.
//
// The data are observed frequencies p̂ᵢ (every one > 0: the caller regularises empty bins) of scores aᵢ
// over N pairs. A hypothesis fixes one number of the true distribution: its mean (logistic Elo) or its
// t-value (μ − ref)/σ (normalised Elo). Its log-likelihood is that of the most likely distribution
// satisfying it, and the SPRT's statistic is LLR = N·(ℓ1 − ℓ0) with ℓ = max Σ p̂ᵢ·ln(pᵢ/p̂ᵢ) over those
// distributions (ℓ ≤ 0; it is 0 when p̂ itself satisfies the hypothesis).
//
// Every maximiser here is a tilt of the data, pᵢ = p̂ᵢ/(1 + θ·cᵢ) for one linear condition Σ pᵢcᵢ = 0
// (Lagrange's condition), with θ the one root of a monotone equation (`secularRoot`), and then
// ℓ = −Σ p̂ᵢ·ln(1 + θcᵢ). A fixed mean s is the condition cᵢ = aᵢ − s. A fixed t-value is not linear;
// `tValuePositive` turns it into a one-dimensional search over linear conditions (its tangents).
//
// Fishtest and fastchess find the t-value's maximum by a fixed-point iteration (M. Van den Bergh,
// "Comments on normalized Elo", section 4.1) started from the uniform distribution. That finds a
// stationary point, and usually the maximum; but the t-value problem is not concave and has other
// stationary points (one pair at ½, very lopsided data, or a t beyond about 0.9 per pair can show
// them), so this module searches, and keeps the iteration's answer only as one more candidate.
// Where the iteration finds the maximum both give the same number.

/** Largest number of steps of any loop here; each one normally stops far earlier. */
const MAX_STEPS = 200;

function largest(xs: readonly number[]): number {
  let m = -Infinity;
  for (const x of xs) if (x > m) m = x;
  return m;
}

function smallest(xs: readonly number[]): number {
  let m = Infinity;
  for (const x of xs) if (x < m) m = x;
  return m;
}

/**
 * The root θ of Σ wᵢcᵢ/(1 + θcᵢ) = 0 on the interval where every 1 + θcᵢ > 0, i.e.
 * (−1/max c, −1/min c). The function falls from +∞ to −∞ there (its derivative is −Σ wᵢcᵢ²/(1+θcᵢ)²),
 * so the root is unique: Newton's method, falling back to bisection whenever a step would leave the
 * bracket. Needs every wᵢ > 0 and c taking both signs; `start` is a first guess (0 if outside).
 */
export function secularRoot(w: readonly number[], c: readonly number[], start = 0): number {
  let lo = -1 / largest(c);
  let hi = -1 / smallest(c);
  if (!(lo < 0 && hi > 0)) throw new RangeError('secularRoot: the shifted scores must take both signs');
  let x = start > lo && start < hi ? start : 0;
  for (let step = 0; step < MAX_STEPS; step++) {
    let f = 0;
    let slope = 0;
    for (let i = 0; i < c.length; i++) {
      const r = c[i] / (1 + x * c[i]);
      f += w[i] * r;
      slope -= w[i] * r * r;
    }
    if (f === 0) return x;
    if (f > 0) lo = x;
    else hi = x;
    let next = x - f / slope;
    if (!(next > lo && next < hi)) next = lo / 2 + hi / 2;
    // Convergence is quadratic: a step this small leaves an error far below rounding.
    if (Math.abs(next - x) <= 1e-12 * Math.max(1, Math.abs(x)) || next === lo || next === hi) return next;
    x = next;
  }
  return x;
}

/** ℓ = −Σ p̂ᵢ·ln(1 + uᵢ): the log-likelihood of the tilt u relative to the data. */
function logLikelihood(phat: readonly number[], u: readonly number[]): number {
  let l = 0;
  for (let i = 0; i < phat.length; i++) l -= phat[i] * Math.log1p(u[i]);
  return l;
}

/** ℓ of the most likely distribution with mean s (min a < s < max a). */
export function meanLogLikelihood(phat: readonly number[], a: readonly number[], s: number): number {
  const c = a.map((ai) => ai - s);
  const theta = secularRoot(phat, c);
  return logLikelihood(phat, c.map((ci) => theta * ci));
}

/**
 * ℓ of the most likely distribution that satisfies one linear condition Σ pᵢcᵢ = 0 (c of both
 * signs), or null when no distribution with every pᵢ > 0 does (c of one sign).
 */
function lineLogLikelihood(phat: readonly number[], c: readonly number[], start = 0): { l: number; theta: number } | null {
  if (!(smallest(c) < 0 && largest(c) > 0)) return null;
  const theta = secularRoot(phat, c, start);
  return { l: logLikelihood(phat, c.map((ci) => theta * ci)), theta };
}

/**
 * Brent's search for the largest value of g on [lo, hi]: a parabola through the three best points so
 * far when it is trustworthy, a golden-section step otherwise, down to a bracket of about 1e-9 of x.
 * Returns the best value seen (g may be −∞ somewhere; those points only ever shrink the bracket).
 */
function brentMax(g: (x: number) => number, lo: number, hi: number): number {
  const golden = (3 - Math.sqrt(5)) / 2;
  let x = lo + golden * (hi - lo);
  let w = x;
  let v = x;
  let gx = g(x);
  let gw = gx;
  let gv = gx;
  let step = 0; // the step before last: a parabola must beat half of it
  let last = 0;
  for (let k = 0; k < MAX_STEPS; k++) {
    const mid = (lo + hi) / 2;
    const tol = 1e-9 * Math.abs(x) + 1e-15;
    if (Math.abs(x - mid) <= 2 * tol - (hi - lo) / 2) break;
    let parabola = false;
    if (Math.abs(step) > tol) {
      // The vertex of the parabola through (x, gx), (w, gw), (v, gv) is x − p/q here; the signs are
      // then moved so that it reads x + p/q with q ≥ 0.
      const r = (x - w) * (gx - gv);
      let q = (x - v) * (gx - gw);
      let p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0) p = -p;
      q = Math.abs(q);
      const before = step;
      step = last;
      if (Number.isFinite(p / q) && Math.abs(p) < Math.abs(0.5 * q * before) && p > q * (lo - x) && p < q * (hi - x)) {
        last = p / q;
        if (x + last - lo < 2 * tol || hi - (x + last) < 2 * tol) last = mid > x ? tol : -tol;
        parabola = true;
      }
    }
    if (!parabola) {
      step = x >= mid ? lo - x : hi - x;
      last = golden * step;
    }
    const u = Math.abs(last) >= tol ? x + last : x + (last > 0 ? tol : -tol);
    const gu = g(u);
    if (gu >= gx) {
      if (u >= x) lo = x;
      else hi = x;
      [v, gv, w, gw, x, gx] = [w, gw, x, gx, u, gu];
    } else {
      if (u < x) lo = u;
      else hi = u;
      if (gu >= gw || w === x) [v, gv, w, gw] = [w, gw, u, gu];
      else if (gu >= gv || v === x || v === w) [v, gv] = [u, gu];
    }
  }
  return gx;
}

/** Samples per factor e of β: a ratio of about 1.2 between neighbours. */
const SAMPLES_PER_E = 5.5;

/**
 * The extremum of f over (lo, hi), 0 < lo < hi: samples spaced evenly in ln β (the maxima of
 * concentrated data sit at small multiples of lo, however wide the span) and crowded towards both
 * ends (where ℓ turns sharply), then Brent's search between the neighbours of each of the three best
 * local extrema among them. f may be −∞ where it is undefined (sign 1).
 */
function scanExtremum(f: (x: number) => number, lo: number, hi: number, sign: 1 | -1): number {
  const steps = Math.max(8, Math.ceil(Math.log(hi / lo) * SAMPLES_PER_E));
  const xs: number[] = [];
  for (const e of [1e-9, 1e-6, 1e-3]) xs.push(lo + (hi - lo) * e);
  for (let k = 1; k < steps; k++) xs.push(lo * (hi / lo) ** (k / steps));
  for (const e of [1e-3, 1e-6, 1e-9]) xs.push(hi - (hi - lo) * e);
  xs.sort((p, q) => p - q);
  const fs = xs.map((x) => sign * f(x));
  const last = xs.length - 1;
  const peaks = xs
    .map((_, j) => j)
    .filter((j) => Number.isFinite(fs[j]) && (j === 0 || fs[j] >= fs[j - 1]) && (j === last || fs[j] >= fs[j + 1]))
    .sort((p, q) => fs[q] - fs[p])
    .slice(0, 3);
  let best = -Infinity;
  for (const j of peaks) {
    const found = brentMax((x) => sign * f(x), j === 0 ? lo : xs[j - 1], j === last ? hi : xs[j + 1]);
    best = Math.max(best, fs[j], found);
  }
  return sign * best;
}

function meanAndSd(p: readonly number[], a: readonly number[]): [number, number] {
  let mu = 0;
  for (let i = 0; i < p.length; i++) mu += p[i] * a[i];
  let v = 0;
  for (let i = 0; i < p.length; i++) v += p[i] * (a[i] - mu) ** 2;
  return [mu, Math.sqrt(v)];
}

/**
 * Fishtest's and fastchess's fixed-point iteration for a t-value, from the uniform distribution: with
 * the current mean μ and deviation σ, a maximum satisfies pᵢ = p̂ᵢ/(1 + x·φᵢ) with
 * φᵢ = aᵢ − ref − (t/2)·(σ + (aᵢ − μ)²/σ) and x the secular root for φ. The ℓ of the distribution it
 * settles on (a stationary point on the constraint), or null when it cannot go on (φ of one sign),
 * does not settle, or settles off the constraint.
 */
function tValueIterated(phat: readonly number[], a: readonly number[], ref: number, t: number): number | null {
  let p: number[] = a.map(() => 1 / a.length);
  let x = 0;
  for (let step = 0; step < MAX_STEPS; step++) {
    const [mu, sd] = meanAndSd(p, a);
    const phi = a.map((ai) => ai - ref - (t / 2) * (sd + (ai - mu) ** 2 / sd));
    if (!(smallest(phi) < 0 && largest(phi) > 0)) return null;
    x = secularRoot(phat, phi, x);
    const next = phat.map((w, i) => w / (1 + x * phi[i]));
    let moved = 0;
    for (let i = 0; i < p.length; i++) moved = Math.max(moved, Math.abs(next[i] - p[i]));
    p = next;
    if (moved < 1e-11) {
      const [m, sdEnd] = meanAndSd(p, a);
      return Math.abs(m - ref - t * sdEnd) < 1e-10 ? logLikelihood(phat, phi.map((f) => x * f)) : null;
    }
  }
  return null;
}

/**
 * ℓ of the most likely distribution with t-value (μ − ref)/σ = t > 0. With bᵢ = aᵢ − ref and
 * κ = t²/(1 + t²), in the plane of (B1, B2) = (Σ pᵢbᵢ, Σ pᵢbᵢ²) the condition is the arc B2 = B1²/κ,
 * B1 > 0, part of the boundary of the convex set K = {B2 ≥ B1²/κ}; the log-likelihood, as a function
 * of (B1, B2), is concave with its maximum at the data's own point D. The tangent to the arc at
 * B1 = β is the linear condition Σ pᵢcᵢ(β) = 0 with cᵢ(β) = bᵢ² − 2βbᵢ/κ + β²/κ, whose best
 * distribution is one secular root away; call its ℓ h(β).
 *  - The data's t-value below t (D in K, or beyond the other arc): the region under the arc (B2 ≤ B1²/κ,
 *    B1 > 0) is the union of the half-planes beyond the tangents at β > 0, and D lies in none of them,
 *    so the best point of the region is on the arc and the best of each half-plane on its tangent:
 *    ℓ = max over β of h(β).
 *  - The data's t-value at or above t (D under the arc): the best point of the convex K lies on the
 *    arc (a point of the other arc is beaten where the segment from it to D crosses this one), and it
 *    is the least, over the tangents with D beyond them, of the best on the tangent: ℓ = min of h(β)
 *    over the β with Σ p̂ᵢcᵢ(β) < 0.
 * Either way a one-dimensional search over β, each step one secular root.
 */
function tValuePositive(phat: readonly number[], a: readonly number[], ref: number, t: number): number {
  const kappa = (t * t) / (1 + t * t);
  const b = a.map((ai) => ai - ref);
  const c = (beta: number) => b.map((bi) => bi * bi - (2 * beta * bi) / kappa + (beta * beta) / kappa);
  // Each search step is close to the one before: its root starts the next.
  let theta = 0;
  const h = (beta: number): number => {
    const found = lineLogLikelihood(phat, c(beta), theta);
    if (!found) return -Infinity;
    theta = found.theta;
    return found.l;
  };
  let b1 = 0;
  let b2 = 0;
  for (let i = 0; i < b.length; i++) {
    b1 += phat[i] * b[i];
    b2 += phat[i] * b[i] * b[i];
  }
  if (b1 > 0 && b1 * b1 >= kappa * b2) {
    // D under the arc: Σ p̂ᵢcᵢ(β) = (β² − 2·B1·β + κ·B2)/κ is negative between its roots, where h is 0.
    const r = Math.sqrt(b1 * b1 - kappa * b2);
    return r === 0 ? 0 : scanExtremum(h, b1 - r, b1 + r, -1);
  }
  // cᵢ(β) < 0 exactly for bᵢ in (β·(1 − s)/κ, β·(1 + s)/κ), s = 1/√(1 + t²): a tangent meets the
  // distributions (c of both signs) when some bᵢ > 0 lies inside; the bᵢ ≤ 0 never do. 1 − s is
  // written without the cancellation that would make it 0 for a tiny t.
  const root = Math.sqrt(1 + t * t);
  const s = 1 / root;
  const oneMinusS = (t * t) / (root * (1 + root));
  const spans = b
    .filter((bi) => bi > 0)
    .map((bi) => [(bi * kappa) / (1 + s), (bi * kappa) / oneMinusS] as [number, number])
    .sort((p, q) => p[0] - q[0]);
  const merged: [number, number][] = [];
  for (const [lo, hi] of spans) {
    const top = merged[merged.length - 1];
    if (top && lo <= top[1]) top[1] = Math.max(top[1], hi);
    else merged.push([lo, hi]);
  }
  // The iteration's stationary point is one more candidate: it is a distribution on the arc, so its ℓ
  // can only raise the search's when the search missed a close pair of maxima.
  const searched = Math.max(...merged.map(([lo, hi]) => scanExtremum(h, lo, hi, 1)));
  return Math.max(searched, tValueIterated(phat, a, ref, t) ?? -Infinity);
}

/**
 * ℓ of the most likely distribution with t-value (μ − ref)/σ = t (min a < ref < max a, a sorted
 * ascending). t = 0 is the mean ref; a negative t is the mirror image (scores and ref negated).
 */
export function tValueLogLikelihood(phat: readonly number[], a: readonly number[], ref: number, t: number): number {
  if (t === 0) return meanLogLikelihood(phat, a, ref);
  if (t < 0) return tValuePositive([...phat].reverse(), a.map((ai) => -ai).reverse(), -ref, -t);
  return tValuePositive(phat, a, ref, t);
}
