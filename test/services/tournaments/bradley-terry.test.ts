// The Bradley–Terry ratings (src/services/tournaments/bradley-terry.ts) against references worked out
// here, independently of the solver:
// - two players: the maximum-likelihood estimate of a binomial proportion is W/N, so the difference
//   is 400·log10(W/(N−W)), and the standard error of the log-odds is 1/√(N·p·(1−p)) (the textbook
//   delta-method result for a logit, as in Agresti, "Categorical Data Analysis", on the logit model);
// - three players: the likelihood maximised by a plain coordinate search (golden sections), and its
//   curvature taken by finite differences, with the covariance of the mean-anchored ratings
//   derived by hand from the inverse of that 2×2 Hessian;
// - coverage: seeded simulated round-robins from known ratings, whose 95% intervals must hold the
//   true (mean-centred) rating about 95% of the time.
import t, { type Test } from 'tap';
import { bradleyTerry, ELO_PER_UNIT, type Meeting } from '../../../src/services/tournaments/bradley-terry.js';
import { prng } from '../../helpers/prng.js';

const close = (t: Test, got: number, want: number, what: string, tol = 1e-6) =>
  t.ok(Math.abs(got - want) <= tol * Math.max(1, Math.abs(want)), `${what}: ${got} vs ${want}`);

t.test('two players: the closed form, with and without the virtual draws', async (t) => {
  for (const [w, n] of [[7, 10], [3, 10], [50, 100], [91, 120], [1, 2]]) {
    const plain = bradleyTerry(2, [{ i: 0, j: 1, games: n, score: w }], { prior: 0, faint: 0 });
    const d = 400 * Math.log10(w / (n - w));
    close(t, plain.elo[0] - plain.elo[1], d, `${w}/${n}: difference`);
    close(t, plain.elo[0] + plain.elo[1], 0, `${w}/${n}: mean 0`);
    // Each rating is half the difference from the mean, so its error is half the log-odds' one.
    const p = w / n;
    close(t, plain.se[0], (0.5 * ELO_PER_UNIT) / Math.sqrt(n * p * (1 - p)), `${w}/${n}: standard error`);
    t.ok(plain.low[0] < plain.elo[0] && plain.elo[0] < plain.high[0], 'low < elo < high');
    // The default adds one virtual drawn game: half a point each.
    const prior = bradleyTerry(2, [{ i: 0, j: 1, games: n, score: w }]);
    close(t, prior.elo[0] - prior.elo[1], 400 * Math.log10((w + 0.5) / (n - w + 0.5)), `${w}/${n}: with the prior`);
  }
});

t.test('a player who won (or lost) everything gets a finite rating, and the solver converges', async (t) => {
  const all = bradleyTerry(2, [{ i: 0, j: 1, games: 40, score: 40 }]);
  close(t, all.elo[0] - all.elo[1], 400 * Math.log10(40.5 / 0.5), 'difference with the prior');
  t.ok(all.iterations < 100, `${all.iterations} iterations`);
  // Three players, one winning everything against both others, one losing everything.
  const three = bradleyTerry(3, [{ i: 0, j: 1, games: 20, score: 20 }, { i: 0, j: 2, games: 20, score: 20 }, { i: 1, j: 2, games: 20, score: 20 }]);
  t.ok(three.elo.every(Number.isFinite) && three.se.every(Number.isFinite), 'finite');
  t.ok(three.elo[0] > three.elo[1] && three.elo[1] > three.elo[2], 'ordered');
  // Players never linked by a game: the faint draws tie them, with a very wide interval.
  const apart = bradleyTerry(4, [{ i: 0, j: 1, games: 10, score: 8 }, { i: 2, j: 3, games: 10, score: 2 }]);
  t.ok(apart.elo.every(Number.isFinite), 'finite with two unlinked groups');
  t.ok(apart.se[0] > 500, `wide interval: ${apart.se[0]}`);
});

/** The log-likelihood with the same virtual draws, written from the definition. */
function reference(n: number, meetings: Meeting[], prior = 1) {
  const ll = (theta: number[]) => {
    let s = 0;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        let g = 0;
        let w = 0;
        for (const m of meetings) {
          if (m.i === i && m.j === j) (g += m.games), (w += m.score);
          if (m.i === j && m.j === i) (g += m.games), (w += m.games - m.score);
        }
        const extra = g > 0 ? prior : 0.01;
        const p = 1 / (1 + Math.exp(theta[j] - theta[i]));
        s += (w + extra / 2) * Math.log(p) + (g - w + extra / 2) * Math.log(1 - p);
      }
    }
    return s;
  };
  return ll;
}

/** Maximises f along one coordinate at a time by golden-section search, player n−1 fixed at 0. */
function coordinateSearch(f: (x: number[]) => number, n: number): number[] {
  const x = new Array<number>(n).fill(0);
  const g = (Math.sqrt(5) - 1) / 2;
  for (let sweep = 0; sweep < 300; sweep++) {
    for (let k = 0; k < n - 1; k++) {
      let lo = x[k] - 5;
      let hi = x[k] + 5;
      const at = (v: number) => f(x.map((y, i) => (i === k ? v : y)));
      while (hi - lo > 1e-11) {
        const a = hi - g * (hi - lo);
        const b = lo + g * (hi - lo);
        if (at(a) > at(b)) hi = b;
        else lo = a;
      }
      x[k] = (lo + hi) / 2;
    }
  }
  return x;
}

t.test('three players: the same maximum and standard errors as a brute-force search', async (t) => {
  const cases: Meeting[][] = [
    [{ i: 0, j: 1, games: 30, score: 19.5 }, { i: 0, j: 2, games: 30, score: 24 }, { i: 1, j: 2, games: 30, score: 17 }],
    [{ i: 0, j: 1, games: 10, score: 2 }, { i: 0, j: 2, games: 6, score: 6 }, { i: 1, j: 2, games: 8, score: 3.5 }],
    // A gauntlet: 1 and 2 never meet.
    [{ i: 0, j: 1, games: 24, score: 15 }, { i: 0, j: 2, games: 24, score: 9 }],
  ];
  for (const meetings of cases) {
    const f = reference(3, meetings);
    const x = coordinateSearch(f, 3);
    const mean = (x[0] + x[1] + x[2]) / 3;
    const got = bradleyTerry(3, meetings);
    for (let i = 0; i < 3; i++) close(t, got.elo[i], (x[i] - mean) * ELO_PER_UNIT, `elo ${i}`, 1e-5);
    // The curvature in (θ0, θ1) with θ2 fixed, by central differences; its inverse is their covariance.
    const h = 1e-4;
    const at = (d0: number, d1: number) => f([x[0] + d0, x[1] + d1, 0]);
    const h00 = -(at(h, 0) - 2 * at(0, 0) + at(-h, 0)) / (h * h);
    const h11 = -(at(0, h) - 2 * at(0, 0) + at(0, -h)) / (h * h);
    const h01 = -(at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4 * h * h);
    const det = h00 * h11 - h01 * h01;
    const c00 = h11 / det;
    const c11 = h00 / det;
    const c01 = -h01 / det;
    // Player k's rating from the mean, θk − (θ0 + θ1 + θ2)/3 with θ2 = 0, is a linear form in (θ0, θ1).
    const forms = [[2 / 3, -1 / 3], [-1 / 3, 2 / 3], [-1 / 3, -1 / 3]];
    forms.forEach(([a, b], k) => {
      const variance = a * a * c00 + b * b * c11 + 2 * a * b * c01;
      close(t, got.se[k], Math.sqrt(variance) * ELO_PER_UNIT, `se ${k}`, 1e-4);
    });
  }
});

t.test('coverage: the 95% intervals hold the true ratings in about 95% of seeded round-robins', async (t) => {
  const random = prng(2024);
  const truth = [-120, 0, 40, 80];
  const mean = truth.reduce((a, b) => a + b, 0) / truth.length;
  const perEncounter = 80;
  let covered = 0;
  let total = 0;
  for (let run = 0; run < 400; run++) {
    const meetings: Meeting[] = [];
    for (let i = 0; i < truth.length; i++) {
      for (let j = i + 1; j < truth.length; j++) {
        const p = 1 / (1 + 10 ** ((truth[j] - truth[i]) / 400));
        let score = 0;
        for (let g = 0; g < perEncounter; g++) score += random() < p ? 1 : 0;
        meetings.push({ i, j, games: perEncounter, score });
      }
    }
    const sol = bradleyTerry(truth.length, meetings);
    truth.forEach((r, i) => {
      total++;
      if (sol.low[i] <= r - mean && r - mean <= sol.high[i]) covered++;
    });
  }
  const rate = covered / total;
  // 1,600 intervals: the binomial spread of the rate around 0.95 is about ±0.011 (two sigmas).
  t.ok(rate > 0.925 && rate < 0.975, `coverage ${rate}`);
});
