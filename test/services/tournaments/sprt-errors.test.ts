// The SPRT's error rates, measured: thousands of simulated tests run on the statistics module, each
// drawing pairs from a pentanomial distribution whose true strength is exactly elo0 (an accepted H1 is
// a false positive) or exactly elo1 (an accepted H0 is a false negative), the LLR checked after every
// pair as the scheduler does. A sound SPRT keeps the rates at about α and β or below (the overshoot
// past a bound only helps); the quadratic approximation with a 0.001 pseudo-count used before decided
// after a pair or two and failed this badly (0.32 false H1 and 0.42 false H0 at [0, 40]).
import t, { type Test } from 'tap';
import type { SprtModel } from '../../../src/domain/tournaments.js';
import { llrOf, logisticScore, pairTValue, sprtBounds } from '../../../src/services/tournaments/stats.js';
import { prng } from '../../helpers/prng.js';

const A = [0, 0.25, 0.5, 0.75, 1];
/** A drawish pentanomial shape of mean ½, which each true strength tilts. */
const SHAPE = [0.08, 0.22, 0.4, 0.22, 0.08];
const MAX_PAIRS = 5000;

const meanOf = (p: number[]) => p.reduce((s, q, i) => s + q * A[i], 0);
const tValueOf = (p: number[]) => {
  const mu = meanOf(p);
  return (mu - 0.5) / Math.sqrt(p.reduce((s, q, i) => s + q * (A[i] - mu) ** 2, 0));
};

/** SHAPE tilted by e^(λa), λ found by bisection so that `stat` (rising with λ) equals `goal`. */
function tilted(stat: (p: number[]) => number, goal: number): number[] {
  const at = (lambda: number) => {
    const w = SHAPE.map((q, i) => q * Math.exp(lambda * A[i]));
    const total = w.reduce((x, y) => x + y, 0);
    return w.map((x) => x / total);
  };
  let [lo, hi] = [-30, 30];
  for (let k = 0; k < 200; k++) {
    const mid = (lo + hi) / 2;
    if (stat(at(mid)) < goal) lo = mid;
    else hi = mid;
  }
  return at((lo + hi) / 2);
}

/** The distribution whose strength is `elo` in the model's units. */
const truth = (model: SprtModel, elo: number) => (model === 'logistic' ? tilted(meanOf, logisticScore(elo)) : tilted(tValueOf, pairTValue(elo)));

interface Outcome {
  H0: number;
  H1: number;
  none: number;
  pairs: number;
}

function simulate(model: SprtModel, elo0: number, elo1: number, trueElo: number, runs: number, seed: number): Outcome {
  const p = truth(model, trueElo);
  const cdf = p.map((_, i) => p.slice(0, i + 1).reduce((x, y) => x + y, 0));
  const [lower, upper] = sprtBounds(0.05, 0.05);
  const random = prng(seed);
  const out: Outcome = { H0: 0, H1: 0, none: 0, pairs: 0 };
  for (let r = 0; r < runs; r++) {
    const counts = [0, 0, 0, 0, 0];
    let verdict: 'H0' | 'H1' | 'none' = 'none';
    for (let n = 1; n <= MAX_PAIRS && verdict === 'none'; n++) {
      const u = random();
      counts[cdf.findIndex((c) => u < c) === -1 ? 4 : cdf.findIndex((c) => u < c)]++;
      const llr = llrOf(counts, elo0, elo1, model);
      if (llr >= upper) verdict = 'H1';
      else if (llr <= lower) verdict = 'H0';
      out.pairs++;
    }
    out[verdict]++;
  }
  return out;
}

/** α plus three binomial standard errors of a rate measured over `runs`. */
const ceiling = (alpha: number, runs: number) => alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / runs);

function check(t: Test, model: SprtModel, elo0: number, elo1: number, runs: number, seed: number) {
  const atH0 = simulate(model, elo0, elo1, elo0, runs, seed);
  const atH1 = simulate(model, elo0, elo1, elo1, runs, seed + 1);
  const falseH1 = atH0.H1 / runs;
  const falseH0 = atH1.H0 / runs;
  const what = `${model} [${elo0}, ${elo1}], ${runs} tests each`;
  t.comment(`${what}: false H1 ${falseH1.toFixed(4)} (mean ${(atH0.pairs / runs).toFixed(1)} pairs), false H0 ${falseH0.toFixed(4)} (mean ${(atH1.pairs / runs).toFixed(1)} pairs)`);
  t.ok(falseH1 <= ceiling(0.05, runs), `${what}: false H1 rate ${falseH1} ≤ ${ceiling(0.05, runs).toFixed(4)}`);
  t.ok(falseH0 <= ceiling(0.05, runs), `${what}: false H0 rate ${falseH0} ≤ ${ceiling(0.05, runs).toFixed(4)}`);
  t.ok(atH0.none + atH1.none <= runs / 100, `${what}: almost every test decides within ${MAX_PAIRS} pairs`);
  // Both hypotheses are accepted often: a test that always answered the same would pass the two
  // checks above only by luck of the bounds.
  t.ok(atH0.H0 / runs > 0.8 && atH1.H1 / runs > 0.8, `${what}: the right answer mostly (${atH0.H0}, ${atH1.H1})`);
}

t.test('logistic: the error rates stay within α = β = 0.05', async (t) => {
  check(t, 'logistic', 0, 40, 2000, 7);
});

t.test('normalized: the error rates stay within α = β = 0.05', async (t) => {
  // Fewer and shorter tests: a normalised LLR is a search, some 0.1 ms each.
  check(t, 'normalized', 0, 120, 500, 17);
});
