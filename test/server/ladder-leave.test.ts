// A bot that leaves the ladder keeps its row: the contract (POST /bot/ladder/leave: "the rating is
// frozen and the bot stays listed") held for listed bots only, and a bot still provisional after its
// first games vanished from both lists the moment it left. Two bots play a rated ladder game through
// the whole server, a batch rates it, one leaves: it is still in the leaderboard, onLadder false, with
// the rating and deviation it had, and later batches and rounds leave them as they are.
import t from 'tap';
import type { ManualClock } from '../../src/domain/clock.js';
import { bootApp, diskStore } from '../helpers/app.js';
import type { Json } from '../helpers/bot.js';
import { ladderBot, liveGames, pairingRound, resignAndWait } from '../helpers/ladder.js';
import { until } from '../helpers/poll.js';

const PAIR_MS = 1_000;
const BATCH_MS = 5_000;

t.test('join, play, leave: the bot stays in the leaderboard with onLadder false and its rating', async (t) => {
  const app = await bootApp(t, {
    store: await diskStore(t),
    overrides: { 'ladder.pairIntervalMs': PAIR_MS, 'ladder.ratingBatchMs': BATCH_MS },
  });
  const clock = app.clock as ManualClock;
  const [ivy, oak] = [await ladderBot(app, 'leave', 'ivy'), await ladderBot(app, 'leave', 'oak')];
  await pairingRound(app, [ivy, oak], PAIR_MS);
  const [gameId] = await liveGames(ivy);
  t.ok(gameId, 'the two are paired');
  await resignAndWait(app, oak, gameId);
  clock.advance(BATCH_MS);
  const row = async (name: string): Promise<Json | undefined> => {
    const board = (await app.req('GET', '/leaderboard')).json as Json;
    return [...board.leaders, ...board.provisional].find((r: Json) => r.name === name);
  };
  const rated = await until(async () => ((await row('ivy'))?.games === 1 ? await row('ivy') : undefined), 'the batch to rate the game');
  t.ok(rated.rating > 1500 && rated.rd > 110, `ivy won and is provisional (${rated.rating.toFixed(1)} ± ${rated.rd.toFixed(1)})`);

  t.equal((await ivy.req('POST', '/bot/ladder/leave')).status, 200, 'ivy leaves');
  const left = await row('ivy');
  t.ok(left, 'ivy is still listed');
  t.match(left, { onLadder: false, rating: rated.rating, rd: rated.rd, games: 1, wins: 1 }, 'with onLadder false and the same rating');
  const board = (await app.req('GET', '/leaderboard')).json as Json;
  t.same(board.provisional.map((r: Json) => [r.rank, r.name, r.onLadder]), [[1, 'ivy', false], [2, 'oak', true]], 'in its place in the provisional list');
  t.equal(board.provisionalTotal, 2, 'and counted');
  const profile = (await app.req('GET', '/bots/leave/ivy')).json as Json;
  t.match(profile, { onLadder: false, rating: rated.rating, rd: rated.rd }, 'the profile says the same');

  // Frozen: no round pairs it again, and a batch with nothing of it to rate leaves it as it is.
  for (let i = 0; i < 3; i++) await pairingRound(app, [ivy, oak], PAIR_MS);
  t.same(await liveGames(ivy), [], 'no new ladder game for the bot that left');
  clock.advance(BATCH_MS);
  await pairingRound(app, [ivy, oak], PAIR_MS);
  t.match(await row('ivy'), { onLadder: false, rating: rated.rating, rd: rated.rd }, 'still listed, rating unchanged');

  // Joining again puts it back on the ladder in the same row.
  t.equal((await ivy.req('POST', '/bot/ladder/join')).status, 200);
  t.match(await row('ivy'), { onLadder: true, rating: rated.rating }, 'back on the ladder');
});
