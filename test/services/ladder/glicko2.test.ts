// Glicko-2 against the paper's worked example, plus properties that any correct implementation has.
import t from 'tap';
import fc from 'fast-check';
import type { Rating } from '../../../src/domain/records.js';
import { rateAll, ratePeriod, type PairGame } from '../../../src/services/glicko2.js';

const TAU = { tau: 0.5 };
const START: Rating = { rating: 1500, rd: 350, volatility: 0.06 };

t.test("Glickman's example: 1500/200 beats 1400/30, loses to 1550/100 and 1700/300", async (t) => {
  const player: Rating = { rating: 1500, rd: 200, volatility: 0.06 };
  const after = ratePeriod(
    player,
    [
      { opponent: { rating: 1400, rd: 30, volatility: 0.06 }, score: 1 },
      { opponent: { rating: 1550, rd: 100, volatility: 0.06 }, score: 0 },
      { opponent: { rating: 1700, rd: 300, volatility: 0.06 }, score: 0 },
    ],
    TAU,
  );
  // The paper rounds its intermediate values (μ' = -0.2069, φ' = 0.8722), so its printed results
  // are matched to their last printed digit, not to full precision.
  t.ok(Math.abs(after.rating - 1464.06) < 0.01, `rating ${after.rating} is the paper's 1464.06`);
  t.ok(Math.abs(after.rd - 151.52) < 0.01, `deviation ${after.rd} is the paper's 151.52`);
  t.ok(Math.abs(after.volatility - 0.05999) < 1e-5, `volatility ${after.volatility} is the paper's 0.05999`);
  t.ok(after.volatility < 0.06, 'the volatility went down slightly');
  t.same(player, { rating: 1500, rd: 200, volatility: 0.06 }, 'the input is not modified');
});

t.test('a period without games changes nothing (no deviation growth for idle bots)', async (t) => {
  t.same(ratePeriod({ rating: 1600, rd: 80, volatility: 0.05 }, [], TAU), { rating: 1600, rd: 80, volatility: 0.05 });
});

t.test('a draw between equals leaves the rating and narrows the deviation', async (t) => {
  const after = ratePeriod(START, [{ opponent: START, score: 0.5 }], TAU);
  t.ok(Math.abs(after.rating - 1500) < 1e-9, 'rating unchanged');
  t.ok(after.rd < 350, 'deviation narrowed');
});

const rating = fc.record({
  rating: fc.double({ min: 500, max: 2500, noNaN: true }),
  rd: fc.double({ min: 30, max: 350, noNaN: true }),
  volatility: fc.double({ min: 0.03, max: 0.1, noNaN: true }),
});

t.test('property: a lone win never lowers a rating; a lone loss never raises it', async (t) => {
  fc.assert(
    fc.property(rating, rating, (me, opp) => {
      const won = ratePeriod(me, [{ opponent: opp, score: 1 }], TAU);
      const lost = ratePeriod(me, [{ opponent: opp, score: 0 }], TAU);
      // A game never widens the deviation past the pre-period one (old deviation plus the new volatility).
      const widest = (after: Rating) => Math.sqrt(me.rd ** 2 + (after.volatility * 173.7178) ** 2) + 1e-9;
      return won.rating >= me.rating && lost.rating <= me.rating && won.rd <= widest(won) && lost.rd <= widest(lost);
    }),
    { numRuns: 1000 },
  );
  t.pass('held for every generated case');
});

t.test('a huge upset raises the volatility, and the deviation with it, but the winner still gains', async (t) => {
  const me: Rating = { rating: 500, rd: 30, volatility: 0.03 };
  const won = ratePeriod(me, [{ opponent: { rating: 2095, rd: 30, volatility: 0.03 }, score: 1 }], TAU);
  t.ok(won.rating > me.rating, `rating ${won.rating}`);
  t.ok(won.volatility > me.volatility, `volatility ${won.volatility}`);
  t.ok(won.rd > 30, `deviation ${won.rd} widened by the new volatility`);
});

t.test('property: results do not depend on how the bots are named', async (t) => {
  const ids = ['a', 'b', 'c', 'd', 'e'];
  const game = fc.record({
    white: fc.constantFrom(...ids),
    black: fc.constantFrom(...ids),
    whiteScore: fc.constantFrom(0, 0.5, 1),
  }).filter((g) => g.white !== g.black);
  fc.assert(
    fc.property(fc.array(rating, { minLength: 5, maxLength: 5 }), fc.array(game, { minLength: 1, maxLength: 12 }), fc.shuffledSubarray(ids, { minLength: 5, maxLength: 5 }), (rs, games, perm) => {
      const rename = (id: string): string => `bot-${perm[ids.indexOf(id)]}`;
      const before = new Map(ids.map((id, i) => [id, rs[i]]));
      const renamedBefore = new Map(ids.map((id, i) => [rename(id), rs[i]]));
      const renamedGames: PairGame[] = games.map((g) => ({ white: rename(g.white), black: rename(g.black), whiteScore: g.whiteScore }));
      const plain = rateAll(before, games, TAU, START);
      const renamed = rateAll(renamedBefore, [...renamedGames].reverse(), TAU, START);
      if (plain.size !== renamed.size) return false;
      for (const [id, r] of plain) {
        const other = renamed.get(rename(id));
        if (!other) return false;
        // Reordering the games only reorders a floating-point sum.
        if (Math.abs(other.rating - r.rating) > 1e-7 || Math.abs(other.rd - r.rd) > 1e-7 || Math.abs(other.volatility - r.volatility) > 1e-9) return false;
      }
      return true;
    }),
  );
  t.pass('held for every generated case');
});

t.test('rateAll: opponents are rated from their pre-period ratings; idle bots are absent', async (t) => {
  const before = new Map<string, Rating>([
    ['x', { rating: 1700, rd: 60, volatility: 0.06 }],
    ['y', { rating: 1500, rd: 100, volatility: 0.06 }],
    ['idle', { rating: 1900, rd: 50, volatility: 0.06 }],
  ]);
  const after = rateAll(before, [{ white: 'x', black: 'y', whiteScore: 0 }, { white: 'y', black: 'x', whiteScore: 1 }], TAU, START);
  t.same([...after.keys()].sort(), ['x', 'y'], 'only players of the period');
  const y = ratePeriod(before.get('y')!, [{ opponent: before.get('x')!, score: 1 }, { opponent: before.get('x')!, score: 1 }], TAU);
  t.same(after.get('y'), y, "y's two wins both use x's pre-period rating");
  t.ok(after.get('x')!.rating < 1700, 'x lost rating');
});
