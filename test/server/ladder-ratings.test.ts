// The ladder's rating side through the whole server: capacity over HTTP, rated games made through
// the registry (as the scheduler makes them) and ended over HTTP, batches driven by the clock, and
// the leaderboard and profiles compared with a Glicko-2 reference written separately (test/helpers).
import t from 'tap';
import type { ManualClock } from '../../src/domain/clock.js';
import { LEADERBOARD_DEFAULT_LIMIT } from '../../src/services/ladder.js';
import { bot as botRecord } from '../helpers/store-fixtures.js';
import { bootApp, diskStore, type TestApp } from '../helpers/app.js';
import { referenceUpdate, type Ref } from '../helpers/glicko2-reference.js';
import { Bot, type Json } from '../helpers/bot.js';
import { until } from '../helpers/poll.js';

// ---- the test ------------------------------------------------------------------------------------------

const FISCHER = { Fischer: { initialSeconds: 300, incrementSeconds: 3 } };
const NAMES = ['ash', 'birch', 'cedar', 'dogwood'];
const BATCH_MS = 5_000;

interface Played { gameId: string; white: string; black: string; whiteWon: boolean }

/** A rated game made as the scheduler makes it, ended over HTTP by the loser's resignation. */
async function playRated(app: TestApp, white: Bot, black: Bot, whiteWon: boolean): Promise<Played> {
  const h = await app.server.games.create({ white: white.seat, black: black.seat, timeControl: FISCHER, rated: true });
  // The subscription closes once GameEnded is out, which comes after the final record is stored.
  const over = new Promise<void>((resolve) => h.subscribe({ deliver: () => {}, close: resolve }));
  const loser = whiteWon ? black : white;
  const r = await loser.resign(h.id);
  if (r.status !== 202) throw new Error(`resign: ${r.status} ${r.text}`);
  await over;
  // Distinct end times, so "newest first" is about time and not about game ids.
  (app.clock as ManualClock).advance(1);
  return { gameId: h.id, white: white.creds.name, black: black.creds.name, whiteWon };
}

t.test('rated games, batches, leaderboard and profiles agree with a reference Glicko-2', async (t) => {
  const app = await bootApp(t, { store: await diskStore(t), overrides: { 'ladder.ratingBatchMs': BATCH_MS } });
  const clock = app.clock as ManualClock;
  const bots = new Map<string, Bot>();
  for (const n of NAMES) bots.set(n, await Bot.register(app, 'grove', n));
  const bot = (n: string) => bots.get(n)!;
  for (const n of ['ash', 'cedar']) t.equal((await bot(n).req('POST', '/bot/ladder/join')).status, 200);

  const ref = new Map<string, Ref>(NAMES.map((n) => [n, { r: 1500, rd: 350, vol: 0.06 }]));
  const counts = new Map(NAMES.map((n) => [n, { games: 0, wins: 0, draws: 0, losses: 0 }]));
  const history = new Map<string, { at: string; rating: number; rd: number }[]>(NAMES.map((n) => [n, []]));
  const played: Played[] = [];

  // Two rounds; in each, every pair plays four games with colours alternating and a fixed pattern
  // of results (stronger names win more often), then one batch rates the round.
  for (let round = 0; round < 2; round++) {
    const thisRound: Played[] = [];
    const storedBefore = app.server.store.getBot(bot('ash').id)?.rating;
    for (let i = 0; i < NAMES.length; i++) {
      for (let j = i + 1; j < NAMES.length; j++) {
        for (let k = 0; k < 4; k++) {
          const [w, b] = k % 2 === 0 ? [NAMES[i], NAMES[j]] : [NAMES[j], NAMES[i]];
          // The earlier name wins three games of four.
          const earlierWins = (k + round) % 4 !== 3;
          const whiteWon = earlierWins === (w === NAMES[i]);
          thisRound.push(await playRated(app, bot(w), bot(b), whiteWon));
        }
      }
    }
    played.push(...thisRound);
    t.same(app.server.store.getBot(bot('ash').id)?.rating, storedBefore, `round ${round}: nothing is rated before the batch`);
    t.equal(app.server.store.pendingRatings(100).length, 24, `round ${round}: the round's games wait for the batch`);

    clock.advance(BATCH_MS);
    await until(() => (app.server.store.pendingRatings(1).length === 0 ? true : undefined), 'the batch');
    // The reference: one rating period per bot, against the opponents' ratings before the batch.
    const before = new Map(ref);
    for (const n of NAMES) {
      const mine = thisRound.filter((g) => g.white === n || g.black === n);
      const games = mine.map((g) => {
        const won = (g.white === n) === g.whiteWon;
        return { opp: before.get(g.white === n ? g.black : g.white)!, s: won ? 1 : 0 };
      });
      ref.set(n, referenceUpdate(before.get(n)!, games, 0.5));
      const c = counts.get(n)!;
      const wins = games.filter((g) => g.s === 1).length;
      counts.set(n, { games: c.games + games.length, wins: c.wins + wins, draws: c.draws, losses: c.losses + games.length - wins });
      history.get(n)!.push({ at: '', rating: ref.get(n)!.r, rd: ref.get(n)!.rd });
    }
  }

  const close = (a: number, b: number) => Math.abs(a - b) < 1e-6;

  // Profiles.
  for (const n of NAMES) {
    const res = await app.req('GET', `/bots/grove/${n}`);
    t.equal(res.status, 200);
    const p = res.json as Json;
    const want = ref.get(n)!;
    t.ok(close(p.rating, want.r) && close(p.rd, want.rd), `${n}: ${p.rating}/${p.rd} is the reference ${want.r}/${want.rd}`);
    t.equal(p.provisional, want.rd > 110, `${n}: provisional while the deviation is above 110`);
    t.same({ games: p.games, wins: p.wins, draws: p.draws, losses: p.losses }, counts.get(n), `${n}: counts`);
    t.equal(p.onLadder, n === 'ash' || n === 'cedar');
    t.equal(p.offLadderReason, null);
    t.equal(p.ratingHistory.length, 2, `${n}: one history point per batch`);
    t.ok(p.ratingHistory.every((h: Json, i: number) => close(h.rating, history.get(n)![i].rating) && close(h.rd, history.get(n)![i].rd)), `${n}: history matches the reference after each batch`);
    t.ok(p.ratingHistory[0].at < p.ratingHistory[1].at, `${n}: history oldest first`);
    const mine = played.filter((g) => g.white === n || g.black === n).reverse().slice(0, 20);
    t.equal(p.recent.length, 20, `${n}: 20 recent games`);
    t.same(
      p.recent.map((r: Json) => [r.gameId, r.seat, r.opponent, r.result, r.rated, r.termination]),
      mine.map((g) => {
        const white = g.white === n;
        return [g.gameId, white ? 'White' : 'Black', { kind: 'Bot', name: `grove ${white ? g.black : g.white}` }, white === g.whiteWon ? 'win' : 'loss', true, 'Resign'];
      }),
      `${n}: recent games newest first, opponents as public faces`,
    );
  }

  // The leaderboard: listed bots only, by rating, with ranks and counts.
  const listed = NAMES.filter((n) => ref.get(n)!.rd <= 110).sort((x, y) => ref.get(y)!.r - ref.get(x)!.r);
  t.ok(listed.length >= 2, `${listed.length} bots are listed after two rounds`);
  const board = (await app.req('GET', '/leaderboard')).json as Json;
  t.equal(board.total, listed.length);
  t.same(board.leaders.map((l: Json) => [l.rank, l.team, l.name, l.onLadder, l.games, l.wins, l.draws, l.losses]),
    listed.map((n, i) => [i + 1, 'grove', n, n === 'ash' || n === 'cedar', counts.get(n)!.games, counts.get(n)!.wins, 0, counts.get(n)!.losses]));
  t.ok(board.leaders.every((l: Json) => close(l.rating, ref.get(l.name)!.r) && close(l.rd, ref.get(l.name)!.rd)), 'rows carry the reference ratings');
  const page = (await app.req('GET', '/leaderboard?offset=1&limit=1')).json as Json;
  t.same(page.leaders.map((l: Json) => [l.rank, l.name]), [[2, listed[1]]], 'a page keeps the global rank');
  t.equal(page.total, listed.length);
  for (const q of ['limit=0', 'limit=1001', 'limit=x', 'offset=-1', 'provisionalLimit=1001', 'provisionalLimit=-1', 'provisionalOffset=x']) {
    const bad = await app.req('GET', `/leaderboard?${q}`);
    t.equal(bad.status, 400, `${q} is refused`);
  }

  // Provisional bots: on the ladder, deviation above 110, apart from the leaders.
  const unsettled = (names: string[]) => names.filter((n) => ref.get(n)!.rd > 110 && (n === 'ash' || n === 'cedar'));
  t.same(board.provisional.map((l: Json) => l.name), unsettled(NAMES).sort((x, y) => ref.get(y)!.r - ref.get(x)!.r),
    'the unsettled bots on the ladder, none of the listed ones');
  t.equal(board.provisionalTotal, board.provisional.length);
  const newcomer = await Bot.register(app, 'grove', 'sapling');
  t.equal((await newcomer.req('POST', '/bot/ladder/join')).status, 200);
  const joined = (await app.req('GET', '/leaderboard')).json as Json;
  const row = joined.provisional.find((l: Json) => l.name === 'sapling');
  t.match(row, { team: 'grove', rating: 1500, rd: 350, onLadder: true, games: 0 }, 'a bot that just joined is provisional');
  t.notOk(joined.leaders.some((l: Json) => l.name === 'sapling'), 'and not among the leaders');
  t.same(joined.provisional.map((l: Json) => l.rank), joined.provisional.map((_: Json, i: number) => i + 1), 'ranked within its list');
  t.equal(joined.total, listed.length, 'the leaders are unchanged');
  const none = (await app.req('GET', '/leaderboard?provisionalLimit=0')).json as Json;
  t.same([none.provisional, none.provisionalTotal], [[], joined.provisionalTotal], 'provisionalLimit=0 leaves the rows out, not the count');
  await newcomer.req('POST', '/bot/ladder/leave');
  t.match(((await app.req('GET', '/leaderboard')).json as Json).provisional.find((l: Json) => l.name === 'sapling'),
    { onLadder: false, rating: 1500, rd: 350 }, 'a provisional bot that leaves stays in its list with onLadder false');

  // Leaving the ladder: still listed, rating frozen, the row shows it at once.
  await bot('ash').req('POST', '/bot/ladder/leave');
  const after = (await app.req('GET', '/leaderboard')).json as Json;
  const ashRow = after.leaders.find((l: Json) => l.name === 'ash');
  t.ok(listed.includes('ash'), 'ash, which won most, is listed');
  t.equal(ashRow?.onLadder, false, 'a bot that left stays listed with onLadder false');
  t.ok(close(ashRow?.rating, ref.get('ash')!.r), 'with its rating');
});

t.test(`both lists come ${LEADERBOARD_DEFAULT_LIMIT} rows at a time unless asked otherwise`, async (t) => {
  const store = await diskStore(t);
  const n = LEADERBOARD_DEFAULT_LIMIT + 5;
  for (let i = 0; i < n; i++) {
    await store.createBot(botRecord('big', `s${i}`, { onLadder: true, rating: { rating: 2000 - i, rd: 60, volatility: 0.06 } }));
    await store.createBot(botRecord('big', `p${i}`, { onLadder: true, rating: { rating: 1500 - i, rd: 200, volatility: 0.06 } }));
  }
  const app = await bootApp(t, { store });
  const board = (await app.req('GET', '/leaderboard')).json as Json;
  t.same([board.leaders.length, board.total, board.provisional.length, board.provisionalTotal], [LEADERBOARD_DEFAULT_LIMIT, n, LEADERBOARD_DEFAULT_LIMIT, n]);
  t.same([board.leaders[0].name, board.provisional[0].name], ['s0', 'p0'], 'each best first');
  const rest = (await app.req('GET', `/leaderboard?offset=${LEADERBOARD_DEFAULT_LIMIT}&provisionalOffset=${n - 2}&provisionalLimit=1000`)).json as Json;
  t.same(rest.leaders.map((l: Json) => l.rank), [1, 2, 3, 4, 5].map((k) => LEADERBOARD_DEFAULT_LIMIT + k), 'the rest of the leaders');
  t.same(rest.provisional.map((l: Json) => [l.rank, l.name]), [[n - 1, `p${n - 2}`], [n, `p${n - 1}`]], 'the end of the provisional list');
});

t.test('capacity: default 1, set within 1..32, registered bots only, live rated games counted', async (t) => {
  const app = await bootApp(t);
  const a = await Bot.register(app, 'cap', 'a');
  const b = await Bot.register(app, 'cap', 'b');
  t.same((await a.req('GET', '/bot/capacity')).json, { capacity: 1, inGames: 0 }, 'default');
  t.same((await a.req('POST', '/bot/capacity', { capacity: 6 })).json, { capacity: 6, inGames: 0 });
  t.same((await a.req('GET', '/bot/capacity')).json, { capacity: 6, inGames: 0 }, 'kept');
  for (const body of [{ capacity: 0 }, { capacity: 33 }, { capacity: 2.5 }, { capacity: '4' }, {}]) {
    const r = await a.req('POST', '/bot/capacity', body);
    t.equal(r.status, 400, `${JSON.stringify(body)} is refused`);
    t.equal((r.json as Json).code, 'invalid_body');
  }
  t.equal(app.server.store.getBot(a.id)?.capacity, 6, 'a refused value changes nothing');

  // A mirror pair is two rated games: it counts 2. Unrated games do not count.
  const g1 = await app.server.games.create({ white: a.seat, black: b.seat, timeControl: FISCHER, rated: true });
  await app.server.games.create({ white: b.seat, black: a.seat, timeControl: FISCHER, rated: true });
  await app.server.games.create({ white: a.seat, black: b.seat, timeControl: FISCHER, rated: false });
  t.same((await a.req('GET', '/bot/capacity')).json, { capacity: 6, inGames: 2 });
  await a.resign(g1.id);
  await until(async () => (((await a.req('GET', '/bot/capacity')).json as Json).inGames === 1 ? true : undefined), 'the ended game to stop counting');

  // A rotation between reading and writing cannot be undone by a capacity change.
  // (The capacity request may also lose the race for its token and be refused with 401.)
  const [rot, set] = await Promise.all([a.req('POST', '/bot/token'), a.req('POST', '/bot/capacity', { capacity: 3 })]);
  const fresh = (rot.json as Json).token as string;
  t.equal((await a.req('GET', '/bot/capacity')).status, 401, 'the old token is dead');
  t.same((await app.req('GET', '/bot/capacity', { token: fresh })).json, { capacity: set.status === 200 ? 3 : 6, inGames: 1 }, `the new token works (capacity answered ${set.status})`);
  t.same((await app.req('POST', '/bot/capacity', { token: fresh, body: { capacity: 3 } })).json, { capacity: 3, inGames: 1 });
  t.equal(app.server.store.getBot(a.id)?.tokenHash, app.server.store.getBotByTokenHash(app.server.store.getBot(a.id)!.tokenHash)?.tokenHash, 'the token index agrees with the record');
  t.equal((await a.req('GET', '/bot/capacity')).status, 401, 'and the capacity change did not revive the old token');

  const anon = await Bot.anon(app, 'nobody');
  t.equal((await anon.req('GET', '/bot/capacity')).status, 403, 'anonymous: GET refused');
  t.equal((await anon.req('POST', '/bot/capacity', { capacity: 2 })).status, 403, 'anonymous: POST refused');
  t.equal((await app.req('GET', '/bot/capacity')).status, 401, 'no token');
});
