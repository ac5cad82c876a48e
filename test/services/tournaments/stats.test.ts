// The event statistics against an independent implementation written here: pair scores are summed
// directly (no pentanomial table), Φ is integrated numerically (Simpson's rule), Elo goes through
// natural logarithms. The edge cases (no pairs, every pair alike, a score of 0 or 1) must give
// numbers, never NaN. The SPRT's LLR has its own reference in llr.test.ts; here only its verdicts.
import t, { type Test } from 'tap';
import type { GameScore } from '../../../src/domain/tournaments.js';
import { ELO_LIMIT, llrOf, luckOf, normalCdf, pairStats, sprtBounds, sprtReport } from '../../../src/services/tournaments/stats.js';
import { prng } from '../../helpers/prng.js';

type Pair = [GameScore, GameScore];

// ---- the reference --------------------------------------------------------------------------------

function refPhi(x: number): number {
  // ½ + ∫₀ˣ φ(u) du by Simpson's rule on 2,000 intervals.
  const pdf = (u: number) => Math.exp(-u * u / 2) / Math.sqrt(2 * Math.PI);
  const n = 2000;
  const h = x / n;
  let s = pdf(0) + pdf(x);
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * pdf(i * h);
  return 0.5 + (s * h) / 3;
}

function refElo(mu: number): number {
  if (mu <= 0) return -ELO_LIMIT;
  if (mu >= 1) return ELO_LIMIT;
  return Math.min(ELO_LIMIT, Math.max(-ELO_LIMIT, (-400 * Math.log(1 / mu - 1)) / Math.LN10));
}

function refStats(pairs: Pair[]) {
  const scores = pairs.map(([x, y]) => (x + y) / 2);
  const n = scores.length;
  const mu = scores.reduce((a, b) => a + b, 0) / n;
  const draws = pairs.flat().filter((g) => g === 0.5).length;
  // The interval's variance counts 0.001 of a pair at every pair score no pair had.
  const missing = [0, 0.25, 0.5, 0.75, 1].filter((a) => !scores.includes(a));
  const weight = n + missing.length * 1e-3;
  const regMu = (scores.reduce((a, b) => a + b, 0) + missing.reduce((a, b) => a + b * 1e-3, 0)) / weight;
  const regVariance =
    (scores.reduce((a, s) => a + (s - regMu) ** 2, 0) + missing.reduce((a, s) => a + 1e-3 * (s - regMu) ** 2, 0)) / weight;
  // The LOS from the same regularised variance.
  const width = 1.96 * Math.sqrt(regVariance / n);
  const los = refPhi((mu - 0.5) / Math.sqrt(regVariance / n));
  return {
    score: mu, elo: refElo(mu), lo: refElo(mu - width), hi: refElo(mu + width), los, drawRatio: draws / (2 * n),
  };
}

function randomPairs(random: () => number, n: number, strength: number): Pair[] {
  const game = (): GameScore => {
    const r = random();
    return r < strength ? 1 : r < strength + 0.2 ? 0.5 : 0;
  };
  return Array.from({ length: n }, () => [game(), game()] as Pair);
}

const close = (t: Test, got: number, want: number, what: string, tol = 1e-6) =>
  t.ok(Math.abs(got - want) <= tol * Math.max(1, Math.abs(want)), `${what}: ${got} vs ${want}`);

// ---- the checks ------------------------------------------------------------------------------------

t.test('Φ agrees with numerical integration', async (t) => {
  for (const x of [-4, -2.5, -1.96, -1, -0.3, 0, 0.3, 1, 1.96, 2.5, 4]) close(t, normalCdf(x), refPhi(x), `Φ(${x})`, 2e-7);
});

t.test('score, Elo, interval, LOS and draw ratio agree on random events', async (t) => {
  const random = prng(20);
  for (let k = 0; k < 40; k++) {
    const pairs = randomPairs(random, 2 + Math.floor(random() * 300), 0.2 + random() * 0.5);
    const got = pairStats(pairs);
    const want = refStats(pairs);
    close(t, got.score, want.score, 'score');
    close(t, got.elo, want.elo, 'elo');
    close(t, got.eloInterval[0], want.lo, 'elo low');
    close(t, got.eloInterval[1], want.hi, 'elo high');
    close(t, got.los, want.los, 'los', 2e-6);
    close(t, got.drawRatio, want.drawRatio, 'draw ratio');
    t.equal(got.pentanomial.reduce((a, b) => a + b, 0), pairs.length, 'every pair in one bin');
  }
});

t.test('the SPRT bounds and verdicts', async (t) => {
  const [lo, hi] = sprtBounds(0.05, 0.05);
  close(t, lo, -Math.log(19), 'lower bound');
  close(t, hi, Math.log(19), 'upper bound');
  // A clear winner crosses the upper bound, a clear loser the lower one, in either model.
  const winning: Pair[] = Array.from({ length: 200 }, (_, i) => (i % 5 === 0 ? [1, 0] : [1, 1]) as Pair);
  const losing: Pair[] = winning.map(([x, y]) => [1 - x, 1 - y] as Pair);
  for (const model of ['logistic', 'normalized'] as const) {
    const s = { elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05, model };
    t.equal(sprtReport(pairStats(winning).pentanomial, s).verdict, 'H1', `${model}: H1`);
    t.equal(sprtReport(pairStats(losing).pentanomial, s).verdict, 'H0', `${model}: H0`);
  }
  // Pairs that each decide nothing add up: 40 pairs like [1, 3, 20, 46, 130]/5 at [0, 100].
  const report = sprtReport([1, 3, 20, 46, 130], { elo0: 0, elo1: 100, alpha: 0.05, beta: 0.05, model: 'logistic' });
  t.equal(report.verdict, 'H1');
  t.equal(report.llr, llrOf([1, 3, 20, 46, 130], 0, 100, 'logistic'));
});

t.test('edge cases give defined numbers', async (t) => {
  const none = pairStats([]);
  t.same(
    { score: none.score, elo: none.elo, interval: none.eloInterval, los: none.los, draws: none.drawRatio },
    { score: 0.5, elo: 0, interval: [-ELO_LIMIT, ELO_LIMIT], los: 0.5, draws: 0 },
    'no pairs: nothing known',
  );
  t.equal(llrOf([0, 0, 0, 0, 0], 0, 5, 'logistic'), 0, 'no pairs: LLR 0');
  const allWon = pairStats([[1, 1], [1, 1], [1, 1]]);
  t.same([allWon.score, allWon.elo, allWon.eloInterval[1]], [1, ELO_LIMIT, ELO_LIMIT], 'all won: the limit');
  t.ok(allWon.los > 0.999999, `all won: LOS about 1 (${allWon.los})`);
  t.ok(allWon.eloInterval[0] < 700, `all won: the interval is not a point (${allWon.eloInterval})`);
  // One even pair: the regularised variance is small (the empty bins weigh 0.001 of a pair each), so
  // the interval is narrow (about ±34), but no longer a point.
  const onePair = pairStats([[1, 0]]);
  t.ok(onePair.eloInterval[0] < -30 && onePair.eloInterval[1] > 30, `one even pair: not a point (${onePair.eloInterval})`);
  const allLost = pairStats([[0, 0], [0, 0]]);
  t.equal(allLost.elo, -ELO_LIMIT, 'all lost');
  t.ok(allLost.los < 1e-6, `all lost: LOS about 0 (${allLost.los})`);
  const allEven = pairStats([[1, 0], [0, 1], [0.5, 0.5]]);
  t.same([allEven.score, allEven.elo, allEven.los], [0.5, 0, 0.5], 'every pair even: σ² = 0, LOS ½');
  for (const counts of [[0, 0, 0, 0, 3], [3, 0, 0, 0, 0], [0, 0, 3, 0, 0]]) {
    for (const model of ['logistic', 'normalized'] as const) {
      t.ok(Number.isFinite(llrOf(counts, 0, 5, model)), `σ² = 0 still gives a finite LLR (${model}, ${counts})`);
    }
  }
});

t.test('luck: the correlation of the two games within pairs', async (t) => {
  t.same(luckOf([[1, 0]]), { correlation: 0, varianceSaved: 0 }, 'one pair: nothing to say');
  const opposite = luckOf([[1, 0], [0, 1], [1, 0], [0, 1]]);
  close(t, opposite.correlation, -1, 'always opposite: −1');
  close(t, opposite.varianceSaved, 1, 'all the variance cancels');
  const same = luckOf([[1, 1], [0, 0]]);
  close(t, same.correlation, 1, 'always alike: +1');
  close(t, same.varianceSaved, -1, 'pairing doubles the variance');
  t.same(luckOf([[1, 1], [1, 1]]), { correlation: 0, varianceSaved: 0 }, 'no variance: 0, not NaN');
});

t.test('one pair, or every pair alike: the interval has a width and the LOS is no certainty', async (t) => {
  // One pair 1–1, as a win and a loss or as two draws: both are the middle bin. Without the 0.001
  // pseudo-counts (Fishtest regularises its pentanomial variance the same way) σ² would be 0 and
  // the interval the single point 0.
  for (const pair of [[1, 0], [0.5, 0.5]] as Pair[]) {
    const s = pairStats([pair]);
    const [lo, hi] = s.eloInterval;
    t.ok(lo < -20 && hi > 20 && Math.abs(lo + hi) < 1e-9, `one pair ${pair}: a symmetric interval around 0 with a width (${lo}, ${hi})`);
    t.equal(s.los, 0.5, 'and an even LOS');
  }
  // One pair won 1½–½, and five alike: the variance is positive, so the interval has a width; the LOS
  // comes from that variance too (the pseudo-counts are small, so it stays close to 1).
  const one = pairStats([[1, 0.5]]);
  t.ok(one.eloInterval[1] - one.eloInterval[0] > 50, `one pair 1½–½: an interval of width (${one.eloInterval})`);
  const alike = pairStats(Array.from({ length: 5 }, () => [1, 0.5] as Pair));
  t.ok(alike.los > 0.5 && alike.eloInterval[0] < alike.elo && alike.elo < alike.eloInterval[1], `five pairs alike: ${alike.eloInterval}, LOS ${alike.los}`);
});

t.test('ordinary samples: the pseudo-counts change nothing that matters', async (t) => {
  // Every bin filled: the regularised variance is the plain one; a missing bin moves the interval's
  // ends by less than 0.5 Elo and the LOS by less than 0.001 on 200 pairs (the stated tolerance).
  const random = prng(99);
  for (let i = 0; i < 20; i++) {
    const pairs = randomPairs(random, 200, 0.3 + 0.02 * i);
    const s = pairStats(pairs);
    const scores = pairs.map(([x, y]) => (x + y) / 2);
    const mu = scores.reduce((a, b) => a + b, 0) / scores.length;
    const se = Math.sqrt(scores.reduce((a, x) => a + (x - mu) ** 2, 0) / scores.length / scores.length);
    const plain = [refElo(mu - 1.96 * se), refElo(mu + 1.96 * se)];
    close(t, s.eloInterval[0], plain[0], `sample ${i}: low end`, 0.5 / Math.max(1, Math.abs(plain[0])));
    close(t, s.eloInterval[1], plain[1], `sample ${i}: high end`, 0.5 / Math.max(1, Math.abs(plain[1])));
    t.ok(Math.abs(s.los - refPhi((mu - 0.5) / se)) < 1e-3, `sample ${i}: LOS`);
  }
});
