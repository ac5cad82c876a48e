// The rating batch on the memory store with a ManualClock: when it runs, what one rating period is,
// what it leaves alone, and that re-applying a batch changes nothing.
import t from 'tap';
import fc from 'fast-check';
import { ManualClock } from '../../../src/domain/clock.js';
import type { GameRecord, Rating } from '../../../src/domain/records.js';
import { MemoryStore } from '../../../src/store/memory.js';
import { ratePeriod } from '../../../src/services/glicko2.js';
import { RatingBatcher, computeBatch } from '../../../src/services/ratings.js';
import { bot, ended, game, linesFor, seat } from '../../helpers/store-fixtures.js';

const TAU = { tau: 0.5 };
const START: Rating = { rating: 1500, rd: 350, volatility: 0.06 };
const id = (name: string) => `bot:team:t:${name}`;

async function setup(names: string[]) {
  const store = new MemoryStore();
  for (const n of names) await store.createBot(bot('t', n));
  const clock = new ManualClock();
  const batcher = new RatingBatcher(store, clock, { batchMs: 60_000, tau: 0.5 });
  let n = 0;
  /** Ends a game between two of the bots: 'white', 'black' or 'draw' wins; options for the odd ones. */
  const play = async (white: string, black: string, winner: 'white' | 'black' | 'draw', o: { rated?: boolean; aborted?: boolean } = {}) => {
    const g = game(`g${n++}`, { white: seat('t', white), black: seat('t', black), rated: o.rated ?? true });
    const at = clock.now();
    let final: GameRecord = ended(g, at);
    if (winner === 'black') final = { ...final, status: { Ended: { over: { result: { Win: { side: 'Black' } }, termination: 'Resign' } } } };
    if (winner === 'draw' || o.aborted) final = { ...final, status: { Ended: { over: { result: { Draw: {} }, termination: o.aborted ? 'Aborted' : 'Draw' } } } };
    await store.finishGame(final, linesFor(g, at));
  };
  return { store, clock, batcher, play };
}

/** Lets the batch started by a timer finish (the memory store answers within a few turns). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

t.test('batches run every batchMs over the games ended since the last one', async (t) => {
  const { store, clock, batcher, play } = await setup(['a', 'b', 'idle']);
  batcher.start();
  t.teardown(() => batcher.stop());
  await play('a', 'b', 'white');
  clock.advance(59_999);
  await settle();
  t.same(store.getBot(id('a'))?.rating, START, 'nothing before the interval');
  clock.advance(1);
  await settle();
  const a1 = ratePeriod(START, [{ opponent: START, score: 1 }], TAU);
  const b1 = ratePeriod(START, [{ opponent: START, score: 0 }], TAU);
  t.same(store.getBot(id('a'))?.rating, a1, 'the winner is rated');
  t.same(store.getBot(id('b'))?.rating, b1, 'the loser is rated');
  t.same(store.getBot(id('idle'))?.rating, START, 'an idle bot does not change (no deviation growth)');
  t.same(store.ratingHistory(id('a')), [{ at: clock.now(), rating: a1.rating, rd: a1.rd }]);

  // The next period starts from the new ratings; a quiet interval changes nothing.
  clock.advance(60_000);
  await settle();
  t.same(store.getBot(id('a'))?.rating, a1, 'a batch without games changes nothing');
  await play('b', 'a', 'draw');
  clock.advance(60_000);
  await settle();
  t.same(store.getBot(id('a'))?.rating, ratePeriod(a1, [{ opponent: b1, score: 0.5 }], TAU), 'rated from the ratings after the first batch');
  t.same(store.ladderStats(id('a')), { games: 2, wins: 1, draws: 1, losses: 0 });
  t.same(store.ladderStats(id('b')), { games: 2, wins: 0, draws: 1, losses: 1 });
  t.equal(store.ratingHistory(id('a')).length, 2, 'one history point per batch taken part in');
});

t.test("one batch is one rating period: a bot's games all use the opponents' pre-batch ratings", async (t) => {
  const { store, batcher, play } = await setup(['a', 'b', 'c']);
  await play('a', 'b', 'white');
  await play('c', 'a', 'white');
  await play('b', 'c', 'draw');
  await batcher.runBatch();
  t.same(store.getBot(id('a'))?.rating, ratePeriod(START, [{ opponent: START, score: 1 }, { opponent: START, score: 0 }], TAU));
  t.same(store.getBot(id('c'))?.rating, ratePeriod(START, [{ opponent: START, score: 1 }, { opponent: START, score: 0.5 }], TAU));
  t.same(store.pendingRatings(10), []);
});

t.test('unrated and aborted games are not rated; a seat that is not registered is not stored', async (t) => {
  const { store, batcher, play } = await setup(['a', 'b']);
  await play('a', 'b', 'white', { rated: false });
  await play('a', 'b', 'white', { aborted: true });
  t.same(await batcher.runBatch(), { games: 0, bots: 0, applied: true }, 'nothing to rate');
  t.same(store.getBot(id('a'))?.rating, START);
  t.same(store.ladderStats(id('a')), { games: 0, wins: 0, draws: 0, losses: 0 });
  await play('a', 'ghost', 'black');
  t.same(await batcher.runBatch(), { games: 1, bots: 1, applied: true }, 'only the registered bot is updated');
  t.same(store.getBot(id('a'))?.rating, ratePeriod(START, [{ opponent: START, score: 0 }], TAU), 'rated against the default rating');
  t.equal(store.getBot(id('ghost')), undefined);
});

t.test('stop() cancels the next batch', async (t) => {
  const { store, clock, batcher, play } = await setup(['a', 'b']);
  batcher.start();
  await batcher.stop();
  await play('a', 'b', 'white');
  clock.advance(120_000);
  await settle();
  t.equal(store.pendingRatings(10).length, 1, 'still pending');
  t.equal(clock.pending(), 0, 'no timer left behind');
});

t.test('property: a batch applied twice changes nothing the second time', async (t) => {
  const names = ['a', 'b', 'c', 'd'];
  const results = fc.array(
    fc.record({ w: fc.constantFrom(...names), b: fc.constantFrom(...names), r: fc.constantFrom('white', 'black', 'draw') as fc.Arbitrary<'white' | 'black' | 'draw'> })
      .filter((g) => g.w !== g.b),
    { minLength: 1, maxLength: 10 },
  );
  await fc.assert(
    fc.asyncProperty(results, async (games) => {
      const { store, clock, play } = await setup(names);
      for (const g of games) await play(g.w, g.b, g.r);
      const batch = computeBatch(store, clock.now(), { tau: 0.5, maxGamesPerBatch: 100 });
      if (!batch || !(await store.applyRatingBatch(batch))) return false;
      const snapshot = () => JSON.stringify(names.map((n) => [store.getBot(id(n)), store.ladderStats(id(n)), store.ratingHistory(id(n))]));
      const once = snapshot();
      const again = await store.applyRatingBatch(batch);
      return again === false && snapshot() === once && computeBatch(store, clock.now(), { tau: 0.5, maxGamesPerBatch: 100 }) === null;
    }),
    { numRuns: 50 },
  );
  t.pass('held for every generated case');
});

t.test('a batch takes at most maxGamesPerBatch games, oldest first', async (t) => {
  const { store, clock, play } = await setup(['a', 'b']);
  for (let i = 0; i < 5; i++) {
    await play('a', 'b', 'white');
    clock.advance(1);
  }
  const batcher = new RatingBatcher(store, clock, { maxGamesPerBatch: 3 });
  t.same(await batcher.runBatch(), { games: 3, bots: 2, applied: true });
  t.same(store.pendingRatings(10).map((p) => p.gameId), ['g3', 'g4'], 'the newest wait');
  t.same(await batcher.runBatch(), { games: 2, bots: 2, applied: true });
});
