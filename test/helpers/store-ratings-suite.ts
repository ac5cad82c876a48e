// The rating side of the Store contract, run against both implementations (memory.test.ts and
// lmdb.test.ts): pending games, atomic batches, counts, history, the leaderboard and provisional indexes.
import type { Test } from 'tap';
import type { GameRecord, Rating } from '../../src/domain/records.js';
import type { RatingBatch } from '../../src/domain/ratings.js';
import { RATING_HISTORY_MAX } from '../../src/domain/ratings.js';
import type { StoreFactory } from './store-suite.js';
import { bot, ended, game, hashOf, linesFor } from './store-fixtures.js';

const A = bot('alpha', 'one');
const B = bot('beta', 'two');

const drawn = (g: GameRecord, at: number, termination: 'Draw' | 'Aborted' = 'Draw'): GameRecord => ({
  ...ended(g, at),
  status: { Ended: { over: { result: { Draw: {} }, termination } } },
});

const r = (rating: number, rd: number, volatility = 0.06): Rating => ({ rating, rd, volatility });

/** A batch rating game `g` (white won): alpha gains, beta loses. */
function batchFor(g: GameRecord, at: number, before: [Rating, Rating], after: [Rating, Rating]): RatingBatch {
  return {
    at,
    games: [{ gameId: g.id, whiteId: g.white.id, blackId: g.black.id, whiteScore: 1, finishedAt: g.finishedAt ?? at }],
    updates: [
      { botId: g.white.id, before: before[0], after: after[0], counts: { games: 1, wins: 1, draws: 0, losses: 0 } },
      { botId: g.black.id, before: before[1], after: after[1], counts: { games: 1, wins: 0, draws: 0, losses: 1 } },
    ],
  };
}

export function ratingsSuite(t: Test, make: StoreFactory): void {
  t.test('finishGame marks rated games pending; unrated and aborted ones are not', async (t) => {
    const s = await make(t);
    const won = ended(game('g-won'), 300);
    const draw = drawn(game('g-draw'), 100);
    await s.finishGame(won, linesFor(won, 300));
    await s.finishGame(draw, linesFor(draw, 100));
    await s.finishGame(ended(game('g-unrated', { rated: false }), 50), []);
    await s.finishGame(drawn(game('g-aborted'), 60, 'Aborted'), []);
    t.same(s.pendingRatings(10), [
      { gameId: 'g-draw', whiteId: A.id, blackId: B.id, whiteScore: 0.5, finishedAt: 100 },
      { gameId: 'g-won', whiteId: A.id, blackId: B.id, whiteScore: 1, finishedAt: 300 },
    ], 'oldest first, with White’s score');
    t.same(s.pendingRatings(1).map((p) => p.gameId), ['g-draw'], 'limited');
    t.same(s.pendingRatings(0), [], 'limit 0');
  });

  t.test('a batch commits ratings, counts, history and the pending set together, once', async (t) => {
    const s = await make(t);
    await s.createBot(A);
    await s.createBot(B);
    const g = ended(game('g1'), 1_000);
    await s.finishGame(g, linesFor(g, 1_000));
    const rev = s.botsRevision();
    const batch = batchFor(g, 5_000, [A.rating, B.rating], [r(1662, 290), r(1338, 290)]);
    t.equal(await s.applyRatingBatch(batch), true, 'applied');
    t.ok(s.botsRevision() > rev, 'the revision moved');
    t.same(s.getBot(A.id)?.rating, r(1662, 290));
    t.same(s.getBot(B.id)?.rating, r(1338, 290));
    t.same(s.getBot(A.id), { ...A, rating: r(1662, 290) }, 'nothing else on the record changed');
    t.same(s.pendingRatings(10), [], 'no longer pending');
    t.same(s.ladderStats(A.id), { games: 1, wins: 1, draws: 0, losses: 0 });
    t.same(s.ladderStats(B.id), { games: 1, wins: 0, draws: 0, losses: 1 });
    t.same(s.ladderStats('bot:team:nobody:x'), { games: 0, wins: 0, draws: 0, losses: 0 }, 'zeros for a bot without games');
    t.same(s.ratingHistory(A.id), [{ at: 5_000, rating: 1662, rd: 290 }]);

    const snapshot = () => [s.getBot(A.id), s.getBot(B.id), s.ladderStats(A.id), s.ratingHistory(A.id), s.pendingRatings(10)];
    const before = snapshot();
    t.equal(await s.applyRatingBatch(batch), false, 'the same batch again is refused');
    t.same(snapshot(), before, 'and changes nothing');
    await s.finishGame(g, linesFor(g, 1_000));
    t.same(s.pendingRatings(10), [], 'finishing a rated game again does not make it pending again');
  });

  t.test('a stale batch writes nothing: a rating moved since it was computed', async (t) => {
    const s = await make(t);
    await s.createBot(A);
    await s.createBot(B);
    const g = ended(game('g1'), 1_000);
    await s.finishGame(g, linesFor(g, 1_000));
    const stale = batchFor(g, 5_000, [r(1400, 350), B.rating], [r(1662, 290), r(1338, 290)]);
    t.equal(await s.applyRatingBatch(stale), false);
    t.same(s.getBot(A.id), A, 'alpha untouched');
    t.same(s.getBot(B.id), B, 'beta untouched');
    t.equal(s.pendingRatings(10).length, 1, 'still pending');
    t.same(s.ratingHistory(B.id), [], 'no history');
  });

  t.test('a batch re-reads each record: a token rotated meanwhile stays rotated', async (t) => {
    const s = await make(t);
    await s.createBot(A);
    await s.createBot(B);
    const g = ended(game('g1'), 1_000);
    await s.finishGame(g, linesFor(g, 1_000));
    const batch = batchFor(g, 5_000, [A.rating, B.rating], [r(1662, 290), r(1338, 290)]);
    const rotated = { ...A, tokenHash: hashOf('rotated'), onLadder: true, capacity: 4 };
    await s.updateBot(rotated);
    t.equal(await s.applyRatingBatch(batch), true);
    t.same(s.getBot(A.id), { ...rotated, rating: r(1662, 290) }, 'the rotation, the ladder flag and the capacity survive');
    t.equal(s.getBotByTokenHash(A.tokenHash), undefined, 'the old token still does not authenticate');
  });

  t.test('modifyBot changes the committed record, or nothing', async (t) => {
    const s = await make(t);
    await s.createBot(A);
    const seen: string[] = [];
    const rev = s.botsRevision();
    const after = await s.modifyBot(A.id, (b) => {
      seen.push(b.tokenHash);
      return { ...b, tokenHash: hashOf('new'), onLadder: true };
    });
    t.same(seen, [A.tokenHash], 'the change saw the stored record');
    t.same(after, { ...A, tokenHash: hashOf('new'), onLadder: true }, 'resolves with the stored record');
    t.ok(s.botsRevision() > rev, 'the revision moved');
    t.equal(s.getBotByTokenHash(A.tokenHash), undefined, 'the token index follows');
    t.equal(s.getBotByTokenHash(hashOf('new'))?.id, A.id);
    t.same(await s.modifyBot(A.id, () => null), after, 'null leaves it');
    t.equal(await s.modifyBot('bot:team:ghost:x', (b) => b), undefined, 'no such bot');
  });

  t.test('the leaderboard index: listed bots only, by rating, deviation, name, team; paged', async (t) => {
    const s = await make(t);
    const bots = [
      bot('t', 'low', { rating: r(1400, 60) }),
      bot('t', 'wide', { rating: r(1900, 111) }), // deviation above 110: provisional, not listed
      bot('t', 'top', { rating: r(1800, 90) }),
      bot('t', 'tie-b', { rating: r(1600, 70) }),
      bot('t', 'tie-a', { rating: r(1600, 70) }),
      bot('s', 'tie-a', { rating: r(1600, 70) }),
      bot('t', 'sure', { rating: r(1600, 40) }),
    ];
    for (const b of bots) await s.createBot(b);
    const names = (page: { bots: { team: string; name: string }[] }) => page.bots.map((b) => `${b.team}/${b.name}`);
    const all = s.leaderboard(0, 100);
    t.equal(all.total, 6);
    t.same(names(all), ['t/top', 't/sure', 's/tie-a', 't/tie-a', 't/tie-b', 't/low']);
    t.same(names(s.leaderboard(2, 2)), ['s/tie-a', 't/tie-a'], 'a middle page');
    t.equal(s.leaderboard(2, 2).total, 6, 'total is the whole count');
    t.same(names(s.leaderboard(10, 5)), [], 'past the end');
    // Moving ratings re-sorts; a deviation growing past 110 unlists.
    await s.updateBot({ ...bots[0], rating: r(2000, 50) });
    await s.modifyBot(bots[2].id, (b) => ({ ...b, rating: r(1800, 200) }));
    t.same(names(s.leaderboard(0, 100)), ['t/low', 't/sure', 's/tie-a', 't/tie-a', 't/tie-b']);
  });

  t.test('the provisional index: on the ladder with deviation above 110, same order; paged', async (t) => {
    const s = await make(t);
    const bots = [
      bot('t', 'settled', { onLadder: true, rating: r(1900, 110) }), // listed, not provisional
      bot('t', 'away', { rating: r(1800, 300) }), // provisional deviation, but not on the ladder
      bot('t', 'low', { onLadder: true, rating: r(1400, 200) }),
      bot('t', 'tie-b', { onLadder: true, rating: r(1600, 150) }),
      bot('t', 'tie-a', { onLadder: true, rating: r(1600, 150) }),
      bot('s', 'tie-a', { onLadder: true, rating: r(1600, 150) }),
      bot('t', 'sure', { onLadder: true, rating: r(1600, 111) }),
    ];
    for (const b of bots) await s.createBot(b);
    const names = (page: { bots: { team: string; name: string }[] }) => page.bots.map((b) => `${b.team}/${b.name}`);
    const all = s.provisional(0, 100);
    t.equal(all.total, 5);
    t.same(names(all), ['t/sure', 's/tie-a', 't/tie-a', 't/tie-b', 't/low']);
    t.same(names(s.provisional(1, 2)), ['s/tie-a', 't/tie-a'], 'a middle page');
    t.equal(s.provisional(1, 2).total, 5, 'total is the whole count');
    t.same(names(s.provisional(10, 5)), [], 'past the end');
    t.same(names(s.leaderboard(0, 100)), ['t/settled'], 'the two lists never share a bot');
    // Joining, leaving, settling and unsettling all move the index.
    await s.modifyBot(bots[1].id, (b) => ({ ...b, onLadder: true }));
    await s.updateBot({ ...bots[2], onLadder: false });
    await s.modifyBot(bots[6].id, (b) => ({ ...b, rating: r(1600, 90) }));
    await s.modifyBot(bots[0].id, (b) => ({ ...b, rating: r(1900, 150) }));
    t.same(names(s.provisional(0, 100)), ['t/settled', 't/away', 's/tie-a', 't/tie-a', 't/tie-b']);
    t.same(names(s.leaderboard(0, 100)), ['t/sure']);
    // A bot that left (leftLadder, as the leave route writes it) keeps its place, off the ladder.
    await s.modifyBot(bots[3].id, (b) => ({ ...b, onLadder: false, leftLadder: true }));
    t.same(names(s.provisional(0, 100)), ['t/settled', 't/away', 's/tie-a', 't/tie-a', 't/tie-b'], 'a bot that left stays');
  });

  t.test('a batch settles a provisional bot: it moves to the leaderboard', async (t) => {
    const s = await make(t);
    await s.createBot({ ...A, onLadder: true, rating: r(1500, 112) });
    await s.createBot({ ...B, onLadder: true, rating: r(1550, 200) });
    const g = ended(game('g1'), 1_000);
    await s.finishGame(g, linesFor(g, 1_000));
    t.same(s.provisional(0, 10).bots.map((b) => b.name), ['two', 'one']);
    await s.applyRatingBatch(batchFor(g, 2_000, [r(1500, 112), r(1550, 200)], [r(1520, 108), r(1530, 190)]));
    t.same(s.provisional(0, 10).bots.map((b) => [b.name, b.rating.rating]), [['two', 1530]]);
    t.same(s.leaderboard(0, 10).bots.map((b) => b.name), ['one']);
  });

  t.test('a batch moves bots on the leaderboard', async (t) => {
    const s = await make(t);
    await s.createBot({ ...A, rating: r(1500, 100) });
    await s.createBot({ ...B, rating: r(1550, 200) });
    const g = ended(game('g1'), 1_000);
    await s.finishGame(g, linesFor(g, 1_000));
    t.same(s.leaderboard(0, 10).bots.map((b) => b.name), ['one']);
    await s.applyRatingBatch(batchFor(g, 2_000, [r(1500, 100), r(1550, 200)], [r(1520, 95), r(1500, 105)]));
    t.same(s.leaderboard(0, 10).bots.map((b) => [b.name, b.rating.rating]), [['one', 1520], ['two', 1500]]);
  });

  t.test(`rating history keeps the newest ${RATING_HISTORY_MAX} points`, async (t) => {
    const s = await make(t);
    await s.createBot(A);
    await s.createBot(B);
    let ra = A.rating;
    let rb = B.rating;
    const n = RATING_HISTORY_MAX + 3;
    for (let i = 0; i < n; i++) {
      const g = ended(game(`g${i}`), 1_000 + i);
      await s.finishGame(g, linesFor(g, 1_000 + i));
      const next: [Rating, Rating] = [r(1500 + i + 1, 300), r(1500 - i - 1, 300)];
      t.equal(await s.applyRatingBatch(batchFor(g, 10_000 + i, [ra, rb], next)), true);
      [ra, rb] = next;
    }
    const h = s.ratingHistory(A.id);
    t.equal(h.length, RATING_HISTORY_MAX, 'bounded');
    t.same(h[0], { at: 10_003, rating: 1504, rd: 300 }, 'the oldest three were dropped');
    t.same(h[h.length - 1], { at: 10_000 + n - 1, rating: 1500 + n, rd: 300 }, 'the newest is last');
    t.same(s.ladderStats(A.id), { games: n, wins: n, draws: 0, losses: 0 }, 'counts keep every game');
  });
}
