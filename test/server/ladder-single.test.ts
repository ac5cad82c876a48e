// Bots that do only what a starter bot does: register, join the ladder and poll GET /bot/games
// (capacity left at its default of 1). The server's own pairing rounds (driven by the ManualClock)
// give them a single rated game each within a few intervals; the game state and the profiles say it
// is a single ladder game, and the rating batch moves both ratings.
import t from 'tap';
import type { ManualClock } from '../../src/domain/clock.js';
import { bootApp, diskStore } from '../helpers/app.js';
import { Bot } from '../helpers/bot.js';
import { tick, until } from '../helpers/poll.js';

const PAIR_MS = 1_000;
const BATCH_MS = 5_000;

interface MyGames { games: { gameId: string }[] }
interface Profile { rating: number; rd: number; games: number; recent: { gameId: string; rated: boolean; ladder?: string }[] }

t.test('two bots that only register, join and poll get a rated single game, then new ratings', async (t) => {
  const app = await bootApp(t, {
    store: await diskStore(t),
    overrides: { 'ladder.pairIntervalMs': PAIR_MS, 'ladder.ratingBatchMs': BATCH_MS },
  });
  const clock = app.clock as ManualClock;
  const bots = [await Bot.register(app, 'starter', 'ts'), await Bot.register(app, 'starter', 'py')];
  for (const b of bots) t.equal((await b.req('POST', '/bot/ladder/join')).status, 200, 'joined');

  // Each "second": both bots poll, then a pairing interval passes.
  const seen = new Map<Bot, string>();
  let intervals = 0;
  while (seen.size < 2 && intervals < 5) {
    for (const b of bots) {
      const mine = (await b.req('GET', '/bot/games')).json as MyGames;
      if (mine.games.length > 0) seen.set(b, mine.games[0].gameId);
    }
    if (seen.size === 2) break;
    clock.advance(PAIR_MS);
    intervals++;
    for (let i = 0; i < 50; i++) await tick();
    // The round the interval started, store writes and all (a loaded machine outlasts any tick count).
    await (app.server.scheduler as unknown as { running: Promise<number> | null }).running;
  }
  t.equal(seen.size, 2, `both bots see a game after ${intervals} pairing interval(s)`);
  t.ok(intervals <= 3, 'within a few pairing intervals');
  const [id, other] = [...seen.values()];
  t.equal(id, other, 'the same game, against each other');

  const state = (await app.req('GET', `/games/${id}`)).json as { ladder?: string; timeControl: unknown };
  t.equal(state.ladder, 'single', 'the game state says it is a single ladder game');
  t.same(state.timeControl, { Fischer: { initialSeconds: 300, incrementSeconds: 3 } }, 'at the ladder’s time control');
  const listed = (await app.req('GET', '/games')).json as { games: { gameId: string; rated?: boolean }[] };
  t.equal(listed.games.find((g) => g.gameId === id)?.rated, true, 'listed as rated');

  t.equal((await bots[0].resign(id)).status, 202, 'one bot resigns');
  const over = async () => ((await app.req('GET', `/games/${id}`)).json as { status: object }).status;
  // The resignation goes through the game's shard: on a loaded machine that takes more than a few turns.
  t.ok('Ended' in (await until(async () => ('Ended' in (await over()) ? await over() : undefined), 'the resigned game to end')), 'the game ended');

  const profile = async (b: Bot) => (await app.req('GET', `/bots/starter/${b.creds.name}`)).json as Profile;
  for (const b of bots) t.same([(await profile(b)).rating, (await profile(b)).games], [1500, 0], 'not rated before the batch');
  clock.advance(BATCH_MS);
  await until(async () => ((await profile(bots[1])).games > 0 ? true : undefined), 'the rating batch to rate the game');
  const [loser, winner] = [await profile(bots[0]), await profile(bots[1])];
  t.ok(winner.rating > 1500, `the winner's rating rose (${winner.rating.toFixed(1)})`);
  t.ok(loser.rating < 1500, `the loser's rating fell (${loser.rating.toFixed(1)})`);
  t.ok(winner.rd < 350 && loser.rd < 350, 'both deviations fell');
  t.same([winner.games, loser.games], [1, 1], 'one rated game each: a single game counts once');
  for (const p of [winner, loser]) {
    t.match(p.recent[0], { gameId: id, rated: true, ladder: 'single' }, 'recent says it was a single ladder game');
  }
});
