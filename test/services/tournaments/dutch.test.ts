// The Swiss pairing (src/services/tournaments/dutch.ts) on hand-made score tables, each checking a
// rule of the FIDE Dutch system (handbook C.04.3, numbered as in the 2017 text): A.2 order (points,
// then seed), B.2 top half (S1) against bottom half (S2) in order, A.4 floaters moved down and paired
// first, D.1 transpositions and D.2 exchanges to avoid a repeat, [C1] no rematch (C.04.1.b), [C2] no
// second bye (C.04.1.d), the bye to the lowest ranked player who may take it (C.04.1.c), [C4]
// completion. Then a seeded simulation of whole Swisses with random results, against the early
// endings of the pairing this replaced.
import t from 'tap';
import { meetingKey, swissRound, type SwissInput, type SwissRound } from '../../../src/services/tournaments/pairing.js';
import { dutchRound } from '../../../src/services/tournaments/dutch.js';
import { prng } from '../../helpers/prng.js';

/** Players 0 … n−1 in seed order with these points. */
const table = (points: number[], met: [number, number][] = [], hadBye: number[] = [], roundsAfter = 0): SwissInput => ({
  standings: points.map((p, player) => ({ player, points: p })),
  met: new Set(met.map(([a, b]) => meetingKey(a, b))),
  hadBye: new Set(hadBye),
  roundsAfter,
});
const sorted = (r: SwissRound | null) => r && { pairs: r.pairs.map(([a, b]) => (a < b ? [a, b] : [b, a])).sort((x, y) => x[0] - y[0]), bye: r.bye };

t.test('B.2: in a score group the top half meets the bottom half in order', async (t) => {
  // The pairing this replaced met neighbours (0-1, 2-3, …).
  t.same(sorted(swissRound(table([0, 0, 0, 0, 0, 0, 0, 0]))), { pairs: [[0, 4], [1, 5], [2, 6], [3, 7]], bye: null });
  // A.2: points first, the seed order within equal points.
  // 1, 3, 5 on 2 points: 1-3 and 5 floats down, meets 0 first; then 2-4.
  t.same(sorted(swissRound(table([0, 2, 0, 2, 0, 2]))), { pairs: [[0, 5], [1, 3], [2, 4]], bye: null }, 'points first, then seed');
});

t.test('A.4: the odd player of a group floats down and is paired first in the next', async (t) => {
  // 0, 1, 2 on 4 points: 0-1, and 2 floats down; on 2 points 2 meets the top resident (3), then 4-6, 5-7.
  t.same(sorted(swissRound(table([4, 4, 4, 2, 2, 2, 2, 2]))), { pairs: [[0, 1], [2, 3], [4, 6], [5, 7]], bye: null });
});

t.test('D.1: a repeat is avoided by the first transposition of S2 that has none', async (t) => {
  // S1 = 0 1 2, S2 = 3 4 5; 0 has met 3: S2 in the order 4 3 5.
  t.same(sorted(swissRound(table([0, 0, 0, 0, 0, 0], [[0, 3]]))), { pairs: [[0, 4], [1, 3], [2, 5]], bye: null });
});

t.test('D.2: when no transposition helps, a player is exchanged between S1 and S2', async (t) => {
  // 0 has met both of S2 (2 and 3): only 0-1 and 2-3 remain.
  t.same(sorted(swissRound(table([0, 0, 0, 0], [[0, 2], [0, 3]]))), { pairs: [[0, 1], [2, 3]], bye: null });
});

t.test('[C4]: a group floats rather than leave the groups below unpairable', async (t) => {
  // 0-1 on top would leave 2 and 3, who have met: both top players float and meet 2 and 3.
  t.same(sorted(swissRound(table([4, 4, 0, 0], [[2, 3]]))), { pairs: [[0, 2], [1, 3]], bye: null });
});

t.test('C.04.1.c/[C2]: an odd count gives the bye to the lowest ranked player without one, and nobody gets two', async (t) => {
  t.same(sorted(swissRound(table([0, 0, 0, 0, 0]))), { pairs: [[0, 2], [1, 3]], bye: 4 });
  // 4 had the bye: 3 is the lowest ranked who may take it.
  // 4 had the bye: 3 is the lowest ranked who may take it; 4, alone on 2 points, floats and meets 0.
  t.same(sorted(swissRound(table([0, 0, 0, 0, 2], [], [4]))), { pairs: [[0, 4], [1, 2]], bye: 3 }, '3 has the bye');
  // Everyone has had one: no round.
  t.equal(swissRound(table([2, 2, 2], [], [0, 1, 2])), null, 'no second bye');
});

t.test('[C1]: no two players meet twice; no pairing without a repeat means no round', async (t) => {
  const everyone: [number, number][] = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];
  t.equal(swissRound(table([0, 0, 0, 0], everyone.slice(1))), null, 'only 0-1 is left: 2 and 3 cannot be paired');
  t.same(sorted(swissRound(table([0, 0, 0, 0], [[0, 2], [1, 3]]))), { pairs: [[0, 3], [1, 2]], bye: null }, 'S2 transposed: 0-3, 1-2');
});

t.test('the lookahead avoids a round after which the remaining rounds cannot be paired', async (t) => {
  // Six players before their last round of five (found by a seeded search): the Dutch order alone
  // pairs 0-2, 4-5, 1-3, which leaves only the triangles 0-1-5 and 2-3-4 unplayed: no last round.
  const points = [4, 0, 3, 1, 2, 2];
  const met: [number, number][] = [[0, 3], [1, 4], [2, 5], [0, 4], [1, 2], [3, 5]];
  t.same(sorted(swissRound(table(points, met, [], 0))), { pairs: [[0, 2], [1, 3], [4, 5]], bye: null }, 'the last round: the Dutch order');
  t.same(sorted(swissRound(table(points, met, [], 1))), { pairs: [[0, 2], [1, 5], [3, 4]], bye: null }, 'one round after it: 0-1, 2-3, 4-5 is left for it');
});

t.test('the search is bounded: past its bounds a round is still legal', async (t) => {
  const rnd = prng(7);
  const n = 40;
  const met = new Set<string>();
  for (let i = 0; i < 300; i++) {
    const a = Math.floor(rnd() * n);
    const b = Math.floor(rnd() * n);
    if (a !== b) met.add(meetingKey(a, b));
  }
  const ranked = [...Array(n).keys()];
  const r = dutchRound(
    { ranked, points: new Map(ranked.map((p) => [p, p % 5])), mayMeet: (a, b) => !met.has(meetingKey(a, b)), mayHaveBye: () => true, roundsAfter: 10 },
    { checks: 30, candidates: 2, lookaheadSteps: 50 },
  );
  t.ok(r, 'a round');
  const seated = r!.pairs.flat();
  t.equal(new Set(seated).size, n, 'everyone seated once');
  t.ok(r!.pairs.every(([a, b]) => !met.has(meetingKey(a, b))), 'no repeat');
});

/**
 * Plays `trials` Swisses of `n` players and `rounds` rounds with random pair results (0 … 2 points
 * in half points); counts those that ended early (a round not paired) and the rounds that broke a rule.
 */
function simulate(n: number, rounds: number, trials: number, seed: number): { early: number; broken: number } {
  const rnd = prng(seed);
  let early = 0;
  let broken = 0;
  for (let k = 0; k < trials; k++) {
    const points = new Array<number>(n).fill(0);
    const met = new Set<string>();
    const hadBye = new Set<number>();
    for (let r = 1; r <= rounds; r++) {
      const res = swissRound({ standings: points.map((p, player) => ({ player, points: p })), met, hadBye, roundsAfter: rounds - r });
      if (!res) {
        early++;
        break;
      }
      const seated = [...res.pairs.flat(), ...(res.bye === null ? [] : [res.bye])];
      if (new Set(seated).size !== n || res.pairs.some(([a, b]) => met.has(meetingKey(a, b))) || (res.bye !== null && hadBye.has(res.bye))) broken++;
      for (const [a, b] of res.pairs) {
        met.add(meetingKey(a, b));
        const x = Math.floor(rnd() * 5) / 2;
        points[a] += x;
        points[b] += 2 - x;
      }
      if (res.bye !== null) {
        hadBye.add(res.bye);
        points[res.bye] += 2;
      }
    }
  }
  return { early, broken };
}

t.test('seeded simulation: full-length Swisses seldom end early', async (t) => {
  // The Monrad pairing this replaced, measured on the same simulation (400 Swisses each, seeds as
  // below): 8 players × 7 rounds ended early in 11.75 %, 9 × 9 in 16.5 %, 12 × 11 in 20.25 %;
  // 8 × 5 and 9 × 5 never. This pairing: none of these in the runs below.
  for (const [n, rounds, trials, most] of [[8, 7, 300, 3], [9, 9, 300, 3], [12, 11, 100, 1], [8, 5, 200, 0], [9, 5, 200, 0]]) {
    const { early, broken } = simulate(n, rounds, trials, 1000 * n + rounds);
    t.equal(broken, 0, `${n} players, ${rounds} rounds: every round seats everyone once, with no repeat and no second bye`);
    t.ok(early <= most, `${n} players, ${rounds} rounds: ${early} of ${trials} ended early (at most ${most})`);
  }
});
