// The caps that keep one client from exhausting the server, each with its limit lowered: live games
// per identity (challenges, house bots, seeks, guests), live games on the server, challenges per
// address, streams per identity, and requests/streams held open per address. Each test shows the
// cap holding (a clean 429/503 problem with Retry-After, nothing created), that what already exists
// keeps working, and that the place comes back when a game or stream ends.
import t from 'tap';
import type { Test } from 'tap';
import { loadConfig } from '../../../src/server-config.js';
import { bootApp, type TestApp } from '../../helpers/app.js';
import type { ManualClock } from '../../../src/domain/clock.js';
import type { HttpResult } from '../../helpers/http.js';
import { randomPath, type Tree } from '../../helpers/play.js';
import { Bot } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { until } from '../../helpers/poll.js';

const HOUSE = { team: 'house', name: 'random' };

function refused(t: Test, r: HttpResult, status: number, code: string, what: string): void {
  t.equal(r.status, status, `${what}: ${status}`);
  t.match(r.json, { status, code }, `${what}: a problem with code ${code}`);
  t.match(r.headers['retry-after'], /^[1-9]\d*$/, `${what}: Retry-After in whole seconds`);
}

type Lists = { in: unknown[]; out: unknown[] };
const challengeLists = async (bot: Bot): Promise<Lists> => (await bot.req('GET', '/bot/challenges')).json as Lists;

const liveCount = (app: TestApp): number => app.server.games.live().length;

/** Waits until the registry holds `n` live games (house bots accept on the next turn of the loop). */
const liveGames = (app: TestApp, n: number) => until(() => (liveCount(app) === n ? true : undefined), `${n} live games`);

/**
 * The tests that count live house games hold every game's first roll back (it waits for the seed
 * grace, on the test's clock): with the dice rolling at once, a run of forced passes (a roll with no
 * pawn or knight from the start position is one) could let the house take a king and end a game the
 * count relies on.
 */
const HOLD_DICE_MS = 600_000;
const HOLD_DICE = { 'games.seedGraceMs': HOLD_DICE_MS };

/**
 * Plays one White turn of a game against house/random (the challenger is White); true once applied.
 * The held dice roll first (every live game's grace passes on the test clock).
 */
async function playOneTurn(app: TestApp, bot: Bot, gameId: string): Promise<void> {
  (app.clock as ManualClock).advance(HOLD_DICE_MS);
  await until(async () => {
    const s = (await app.req('GET', `/games/${gameId}`)).json as { activeSeat: string; dicePending: boolean; legalMoves: Tree | null };
    if (s.activeSeat !== 'White' || !s.dicePending) return undefined;
    const tree = ((await app.req('GET', `/games/${gameId}/moves`)).json as { legalMoves: Tree }).legalMoves;
    const r = await bot.move(gameId, randomPath(tree));
    return r.status === 200 ? true : undefined;
  }, `a White turn applied in ${gameId}`);
}

t.test('live games per identity: challenging a house bot stops at the cap; the games keep going', async (t) => {
  const app = await bootApp(t, { overrides: { ...HOLD_DICE, 'limits.liveGamesPerIdentity': { anonymous: 2, registered: 3, guest: 1 } } });
  const bot = await Bot.anon(app, 'hammer');
  for (let i = 0; i < 2; i++) t.equal((await bot.challenge(HOUSE)).status, 201, `house game ${i + 1}`);
  await liveGames(app, 2);
  const third = await bot.challenge(HOUSE);
  refused(t, third, 429, 'too_many_games', 'the third house game');
  t.equal(third.headers['retry-after'], '30');
  t.equal((await challengeLists(bot)).out.length, 0, 'no challenge was left pending');
  t.equal(liveCount(app), 2, 'no game was created');
  const games = (await bot.myGames()).map((g) => g.gameId as string);
  t.equal(games.length, 2);
  await playOneTurn(app, bot, games[0]);
  t.pass('an existing game still takes moves');
  t.equal((await bot.resign(games[1])).status, 202);
  await liveGames(app, 1);
  t.equal((await bot.challenge(HOUSE)).status, 201, 'a finished game frees its place');
  await liveGames(app, 2);

  const reg = await Bot.register(app, 'caps', 'reg');
  for (let i = 0; i < 3; i++) t.equal((await reg.challenge(HOUSE)).status, 201, `registered: house game ${i + 1}`);
  await liveGames(app, 5);
  refused(t, await reg.challenge(HOUSE), 429, 'too_many_games', 'registered bots have their own, larger cap');
});

t.test('live games per identity: both players of a challenge are checked, and a refused accept keeps the challenge', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.liveGamesPerIdentity': { anonymous: 1, registered: 3, guest: 1 } } });
  const a = await Bot.anon(app, 'alice');
  const b = await Bot.anon(app, 'bob');
  const c = await Bot.anon(app, 'carol');
  // Bob is full: a challenge to him can be made, but he cannot accept it.
  t.equal((await b.challenge(HOUSE)).status, 201);
  await liveGames(app, 1);
  const ab = await a.challenge(b.creds);
  t.equal(ab.status, 201, 'the challenger is under its cap; the target is checked at accept');
  const id = (ab.json as { id: string }).id;
  refused(t, await b.accept(id), 429, 'too_many_games', 'the accepter at its cap');
  t.equal((await challengeLists(b)).in.length, 1, 'the challenge is still pending');
  t.equal(liveCount(app), 1, 'no game was created');
  // The challenger fills up meanwhile: now the accept is refused for the challenger's sake.
  const [bobsGame] = await b.myGames();
  t.equal((await b.resign(bobsGame.gameId)).status, 202);
  await liveGames(app, 0);
  t.equal((await a.challenge(HOUSE)).status, 201);
  await liveGames(app, 1);
  const r = await b.accept(id);
  refused(t, r, 429, 'too_many_games', 'the challenger at its cap');
  t.match((r.json as { detail: string }).detail, /bot anon\/alice-/, 'the detail says which player is full');
  refused(t, await a.challenge(c.creds), 429, 'too_many_games', 'a full challenger cannot challenge');
  const [alicesGame] = await a.myGames();
  t.equal((await a.resign(alicesGame.gameId)).status, 202);
  await liveGames(app, 0);
  t.equal((await b.accept(id)).status, 201, 'with both under the cap the accept goes through');
  await liveGames(app, 1);
});

t.test('live games per identity: seek accepts, by bots and by guests', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.liveGamesPerIdentity': { anonymous: 1, registered: 3, guest: 1 } } });
  const owner = await Bot.anon(app, 'owner');
  const taker = await Bot.anon(app, 'taker');
  t.equal((await taker.challenge(HOUSE)).status, 201);
  await liveGames(app, 1);
  const seek = (await owner.req('POST', '/bot/seeks')).json as { seekId: string };
  refused(t, await taker.req('POST', `/bot/seeks/${seek.seekId}/accept`), 429, 'too_many_games', 'a full bot accepting a seek');
  t.ok(((await app.req('GET', '/lobby/seeks')).json as { seeks: { id: string }[] }).seeks.some((s) => s.id === seek.seekId), 'the seek stays open');
  t.equal(liveCount(app), 1);
  // A guest takes it instead; then the owner is full, so its next seek is refused, and a guest
  // cannot take an older seek of a full owner either.
  const second = (await owner.req('POST', '/bot/seeks')).json as { seekId: string };
  t.equal((await app.req('POST', `/lobby/seeks/${seek.seekId}/accept`)).status, 201, 'a guest takes the first seek');
  await liveGames(app, 2);
  refused(t, await app.req('POST', `/lobby/seeks/${second.seekId}/accept`), 429, 'too_many_games', 'a guest accepting the seek of a full owner');
  refused(t, await owner.req('POST', '/bot/seeks'), 429, 'too_many_games', 'a full bot offering another seek');
  t.equal(liveCount(app), 2, 'nothing was created');
});

t.test('live games on the server: 503 server_full past the cap, the live games unaffected', async (t) => {
  const app = await bootApp(t, { overrides: { ...HOLD_DICE, 'limits.maxLiveGames': 2 } });
  const a = await Bot.anon(app, 'a');
  const b = await Bot.anon(app, 'b');
  t.equal((await a.challenge(HOUSE)).status, 201);
  t.equal((await b.challenge(HOUSE)).status, 201);
  await liveGames(app, 2);
  const c = await Bot.anon(app, 'c');
  refused(t, await c.challenge(HOUSE), 503, 'server_full', 'a third game');
  const pending = await c.challenge(a.creds);
  refused(t, pending, 503, 'server_full', 'even a challenge that would make a game later');
  t.equal((await app.req('POST', '/lobby/seeks/nope/accept')).status, 404, 'other refusals are unchanged');
  t.equal(liveCount(app), 2);
  const [game] = await a.myGames();
  const held = (await app.req('GET', `/games/${game.gameId}`)).json as { dicePending: boolean; version: number };
  t.ok(!held.dicePending && held.version === 0, 'no roll yet: the first dice wait for the seed grace');
  await playOneTurn(app, a, game.gameId);
  t.pass('a live game still takes moves');
  t.equal((await app.req('GET', '/health')).status, 200, 'and the rest of the server answers');
  t.equal((await b.resign((await b.myGames())[0].gameId)).status, 202);
  await liveGames(app, 1);
  t.equal((await c.challenge(HOUSE)).status, 201, 'room again once a game ends');
});

t.test('challenges per address: a sliding budget, like anonymous mints', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.challengesPerHour': 3 } });
  const a = await Bot.anon(app, 'a');
  const b = await Bot.anon(app, 'b');
  t.equal((await a.challenge(b.creds)).status, 201);
  t.equal((await a.challenge({ team: 'anon', name: 'nobody' })).status, 404, 'a refused challenge counts too');
  t.equal((await b.challenge(a.creds)).status, 201, 'another token from the same address shares the budget');
  const r = await b.challenge(a.creds);
  refused(t, r, 429, 'too_many_challenge_requests', 'the fourth in the hour');
  t.equal(r.headers['retry-after'], '3600');
  t.equal((await challengeLists(b)).out.length, 1, 'nothing was created');
});

t.test('streams per identity: account and game streams together; the open ones keep delivering', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.streamsPerIdentity': 2 } });
  const a = await Bot.anon(app, 'a');
  const b = await Bot.anon(app, 'b');
  const account = await a.accountStream();
  t.teardown(() => account.close());
  t.equal(account.status, 200);
  t.equal((await a.challenge(HOUSE)).status, 201);
  const start = await account.until((e) => 'GameStart' in e, 'GameStart');
  const gameId = start.GameStart.gameId as string;
  const game = await a.gameStream(gameId);
  t.teardown(() => game.close());
  t.equal(game.status, 200);
  t.ok('Snapshot' in ((await game.next()) ?? {}), 'the game stream opens with its Snapshot');
  refused(t, await a.req('GET', '/bot/stream/event'), 429, 'too_many_streams', 'a third stream (account)');
  refused(t, await a.req('GET', `/bot/game/stream/${gameId}`), 429, 'too_many_streams', 'a third stream (game)');
  const watcher = await b.gameStream(gameId);
  t.equal(watcher.status, 200, 'another identity is not affected');
  watcher.close();
  // The refusals touched nothing: both streams still get their events.
  t.equal((await b.challenge(a.creds)).status, 201);
  t.ok(await account.until((e) => 'ChallengeReceived' in e, 'ChallengeReceived'), 'the account stream still delivers');
  t.equal((await a.resign(gameId)).status, 202);
  t.ok(await game.until((e) => 'GameEnded' in e, 'GameEnded'), 'the game stream still delivers');
  // The game stream closed after GameEnded: its place is free again.
  const again = await until(async () => {
    const r = await app.stream('/bot/stream/event', a.token);
    if (r.status === 200) return r;
    r.destroy();
    return undefined;
  }, 'a free stream place');
  again.destroy();
});

t.test('requests and streams held open per address: 429 past the cap, the open ones unaffected', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.connectionsPerIp': 3 } });
  const a = await Bot.anon(app, 'a');
  const b = await Bot.anon(app, 'b');
  const first = new EventStream(await app.stream('/bot/stream/event', a.token));
  const second = new EventStream(await app.stream('/bot/stream/event', b.token));
  t.teardown(() => {
    first.close();
    second.close();
  });
  t.equal((await app.req('GET', '/health')).status, 200, 'a third thing held open at a time');
  const third = new EventStream(await app.stream('/bot/stream/event', a.token));
  t.equal(third.status, 200, 'a third stream fills the cap');
  const r = await app.req('GET', '/health');
  refused(t, r, 429, 'too_many_connections', 'a request past the cap');
  refused(t, await app.req('POST', '/bot/challenge', { token: a.token, body: { team: 'anon', name: b.creds.name } }), 429, 'too_many_connections', 'a request with a body');
  t.equal(liveCount(app), 0);
  third.close();
  await until(async () => ((await app.req('GET', '/health')).status === 200 ? true : undefined), 'a free place after a stream closed');
  // The streams that stayed open still deliver.
  t.equal((await b.challenge(a.creds)).status, 201);
  t.ok(await first.until((e) => 'ChallengeReceived' in e, 'ChallengeReceived'), 'the first stream still delivers');
});

t.test('the caps: defaults, and each one changed by its DICECHESS_* variable', async (t) => {
  /** Variable, path under `limits`, default. */
  const caps: [string, string, number][] = [
    ['DICECHESS_LIVE_GAMES_ANONYMOUS', 'liveGamesPerIdentity.anonymous', 16],
    ['DICECHESS_LIVE_GAMES_REGISTERED', 'liveGamesPerIdentity.registered', 32],
    ['DICECHESS_LIVE_GAMES_GUEST', 'liveGamesPerIdentity.guest', 2],
    ['DICECHESS_MAX_LIVE_GAMES', 'maxLiveGames', 50_000],
    ['DICECHESS_CHALLENGES_PER_HOUR', 'challengesPerHour', 600],
    ['DICECHESS_STREAMS_PER_IDENTITY', 'streamsPerIdentity', 64],
    ['DICECHESS_CONNECTIONS_PER_IP', 'connectionsPerIp', 1024],
  ];
  const limitAt = (env: Record<string, string>, path: string): unknown => {
    const c = loadConfig({ env });
    if (!c.ok) throw new Error(c.error);
    return path.split('.').reduce<any>((o, k) => o[k], c.value.limits);
  };
  caps.forEach(([name, path, byDefault], i) => {
    t.equal(limitAt({}, path), byDefault, `limits.${path} defaults to ${byDefault}`);
    t.equal(limitAt({ [name]: String(i + 3) }, path), i + 3, `${name} sets limits.${path}`);
  });
  const bad = loadConfig({ env: { DICECHESS_MAX_LIVE_GAMES: '0' } });
  t.match(bad, { ok: false, error: /limits\.maxLiveGames/ }, 'a cap below 1 stops the server with the field named');
});
