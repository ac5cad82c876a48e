// Bot seeks and the public lobby over HTTP (docs/API.md "Seeks, the lobby and human
// lobby"): creation and its default, the per-bot cap, accepting (and every way it can fail), the
// public list, polling that keeps a seek alive and expiry without it, cancelling, random colours,
// and GameStart on both bots' account streams.
import t from 'tap';
import { anonBot, bootApp, type TestApp } from '../../helpers/app.js';
import type { ManualClock } from '../../../src/domain/clock.js';
import { FISCHER_600_10, botSeek, guestSeek, lobby, myGame, nextEvent, pollPath, type Seat } from '../../helpers/lobby.js';

const OPEN = { matched: false, gameId: null, seat: null };
const SECRET = /^[A-Za-z0-9_-]{32}$/;

async function registered(app: TestApp, team: string, name: string): Promise<{ token: string }> {
  const r = await app.req('POST', '/bot/register', { body: { team, name } });
  if (r.status !== 201) throw new Error(`register: ${r.status} ${r.text}`);
  return r.json as { token: string };
}

t.test('POST /bot/seeks: Fischer 600+10 by default, listed under the bot’s public face', async (t) => {
  const app = await bootApp(t);
  const x = await anonBot(app, 'Seeker X');
  const bare = await app.req('POST', '/bot/seeks', { token: x.token }); // no body, no content type
  t.equal(bare.status, 201);
  t.same(Object.keys(bare.json as object).sort(), ['secret', 'seekId']);
  const { seekId, secret } = bare.json as { seekId: string; secret: string };
  t.match(secret, SECRET, 'the secret is 32 base64url characters');
  t.match(seekId, /^[A-Za-z0-9_-]{16,}$/, 'the id is random and URL-safe');
  t.same(await lobby(app), [{ id: seekId, timeControl: FISCHER_600_10, kind: 'Bot', name: `anon ${x.name}` }]);

  const empty = await botSeek(app, x.token, {});
  const perMove = await botSeek(app, x.token, { timeControl: { PerMove: { secondsPerMove: 30 } } });
  const listed = await lobby(app);
  t.same(listed.map((s) => [s.id, s.timeControl]), [
    [seekId, FISCHER_600_10],
    [empty.seekId, FISCHER_600_10],
    [perMove.seekId, { PerMove: { secondsPerMove: 30 } }],
  ], 'an empty body is the default too; an explicit time control is kept');

  const reg = await registered(app, 'lobby-team', 'bot-one');
  const r = await botSeek(app, reg.token, { timeControl: { Unlimited: {} } });
  t.same((await lobby(app)).at(-1), { id: r.seekId, timeControl: { Unlimited: {} }, kind: 'Bot', name: 'lobby-team bot-one' });

  const bad = await app.req('POST', '/bot/seeks', { token: reg.token, body: { timeControl: { Fischer: { initialSeconds: 0, incrementSeconds: 10 } } } });
  t.equal(bad.status, 400, 'time-control values are validated');
  t.match((bad.json as { detail: string }).detail, /timeControl/);
});

t.test('a fourth open seek is 429 with Retry-After until one of the three closes', async (t) => {
  const app = await bootApp(t);
  const clock = app.clock as ManualClock;
  const x = await anonBot(app, 'capped');
  const seeks = [await botSeek(app, x.token), await botSeek(app, x.token), await botSeek(app, x.token)];
  const fourth = await app.req('POST', '/bot/seeks', { token: x.token });
  t.equal(fourth.status, 429);
  t.equal(fourth.headers['retry-after'], '120', 'Retry-After: seconds until the oldest open seek expires');
  t.match(fourth.json, { status: 429, code: 'too_many_seeks' });
  clock.advance(30_000);
  t.equal((await app.req('POST', '/bot/seeks', { token: x.token })).headers['retry-after'], '90', 'and it counts down');
  const other = await anonBot(app, 'uncapped');
  t.equal((await app.req('POST', '/bot/seeks', { token: other.token })).status, 201, 'the cap is per bot');
  t.equal((await app.req('DELETE', pollPath(seeks[0].seekId, seeks[0].secret))).status, 204);
  t.equal((await app.req('POST', '/bot/seeks', { token: x.token })).status, 201, 'a cancelled seek frees a place');
  t.equal((await app.req('POST', '/bot/seeks', { token: x.token })).status, 429);
  const acc = await app.req('POST', `/bot/seeks/${seeks[1].seekId}/accept`, { token: other.token });
  t.equal(acc.status, 201);
  t.equal((await app.req('POST', '/bot/seeks', { token: x.token })).status, 201, 'a matched seek frees a place');
});

t.test('accepting: 201 with the game, own seek 400, unknown 404, claimed 409', async (t) => {
  const app = await bootApp(t);
  const x = await anonBot(app, 'owner');
  const y = await anonBot(app, 'taker');
  const z = await anonBot(app, 'late');
  const s = await botSeek(app, x.token);

  const own = await app.req('POST', `/bot/seeks/${s.seekId}/accept`, { token: x.token });
  t.equal(own.status, 400, 'accepting your own seek');
  t.match(own.json, { status: 400, code: 'own_seek' });
  t.same(await app.req('GET', pollPath(s.seekId, s.secret)).then((r) => r.json), OPEN, 'still open after that');

  const unknown = await app.req('POST', '/bot/seeks/NoSuchSeek000000/accept', { token: y.token });
  t.equal(unknown.status, 404);
  t.match(unknown.json, { status: 404, code: 'unknown_seek' });

  const acc = await app.req('POST', `/bot/seeks/${s.seekId}/accept`, { token: y.token });
  t.equal(acc.status, 201);
  t.same(Object.keys(acc.json as object), ['gameId']);
  const { gameId } = acc.json as { gameId: string };
  for (const [who, token] of [['the same bot again', y.token], ['a third bot', z.token], ['the owner', x.token]] as const) {
    const again = await app.req('POST', `/bot/seeks/${s.seekId}/accept`, { token });
    t.equal(again.status, who === 'the owner' ? 400 : 409, `${who} after the match`);
  }
  t.match((await app.req('POST', `/bot/seeks/${s.seekId}/accept`, { token: z.token })).json, { code: 'seek_taken' });

  const poll = await app.req('GET', pollPath(s.seekId, s.secret));
  t.equal(poll.status, 200);
  const matched = poll.json as { matched: boolean; gameId: string; seat: Seat };
  t.same(Object.keys(matched).sort(), ['gameId', 'matched', 'seat'], 'a bot seek’s poll carries no seatToken');
  t.equal(matched.matched, true);
  t.equal(matched.gameId, gameId);
  const mineX = await myGame(app, x.token, gameId);
  const mineY = await myGame(app, y.token, gameId);
  t.equal(mineX?.seat, matched.seat, 'the owner’s seat in GET /bot/games is the polled one');
  t.equal(mineY?.seat, matched.seat === 'White' ? 'Black' : 'White', 'the accepter has the other seat');
  t.same(mineX?.timeControl, FISCHER_600_10, 'the game plays the seek’s time control');
  t.same(await lobby(app), [], 'a matched seek leaves the lobby');

  const cancelled = await botSeek(app, x.token);
  t.equal((await app.req('DELETE', pollPath(cancelled.seekId, cancelled.secret))).status, 204);
  t.equal((await app.req('POST', `/bot/seeks/${cancelled.seekId}/accept`, { token: y.token })).status, 404, 'a cancelled seek is not open');
});

t.test('racing accepts: exactly one wins, the others get 409', async (t) => {
  const app = await bootApp(t);
  const x = await anonBot(app, 'race-owner');
  const takers = await Promise.all(['a', 'b', 'c', 'd'].map((n) => anonBot(app, `racer-${n}`)));
  for (let round = 0; round < 5; round++) {
    const s = await botSeek(app, x.token);
    const answers = await Promise.all([
      ...takers.map((b) => app.req('POST', `/bot/seeks/${s.seekId}/accept`, { token: b.token })),
      app.req('POST', `/lobby/seeks/${s.seekId}/accept`), // a human guest races too
    ]);
    const statuses = answers.map((a) => a.status).sort();
    t.same(statuses, [201, 409, 409, 409, 409], `round ${round}: one winner`);
    const winner = answers.find((a) => a.status === 201)!.json as { gameId: string };
    const poll = (await app.req('GET', pollPath(s.seekId, s.secret))).json as { gameId: string };
    t.equal(poll.gameId, winner.gameId, 'the owner’s poll names the winner’s game');
    const games = (await app.req('GET', '/bot/games', { token: x.token })).json as { games: unknown[] };
    t.equal(games.games.length, round + 1, 'one game per seek, never two');
  }
});

t.test('colours are random: both occur over repeated seeks, always opposite', async (t) => {
  // 24 live games between the same two bots: above the default cap per identity, which is not tested here.
  const app = await bootApp(t, { overrides: { 'limits.liveGamesPerIdentity.anonymous': 24 } });
  const x = await anonBot(app, 'colour-owner');
  const y = await anonBot(app, 'colour-taker');
  const seen = new Set<Seat>();
  for (let i = 0; i < 24; i++) {
    const s = await botSeek(app, x.token);
    const { gameId } = (await app.req('POST', `/bot/seeks/${s.seekId}/accept`, { token: y.token })).json as { gameId: string };
    const poll = (await app.req('GET', pollPath(s.seekId, s.secret))).json as { seat: Seat };
    seen.add(poll.seat);
    const theirs = await myGame(app, y.token, gameId);
    t.equal(theirs?.seat, poll.seat === 'White' ? 'Black' : 'White', `seek ${i}: opposite seats`);
  }
  t.same([...seen].sort(), ['Black', 'White'], 'the owner got both colours in 24 seeks (a fair coin fails this with p = 2^-23)');
});

t.test('GET /lobby/seeks: open seeks only, oldest first, public faces and never a raw id', async (t) => {
  const app = await bootApp(t);
  const clock = app.clock as ManualClock;
  const x = await anonBot(app, 'list-x');
  const y = await anonBot(app, 'list-y');
  const reg = await registered(app, 'faces', 'registered-one');
  const s1 = await botSeek(app, x.token);
  clock.advance(1000);
  const g1 = await guestSeek(app);
  clock.advance(1000);
  const s2 = await botSeek(app, reg.token, { timeControl: { SuddenDeath: { initialSeconds: 300 } } });
  clock.advance(1000);
  const s3 = await botSeek(app, x.token);
  clock.advance(1000);
  const g2 = await guestSeek(app, { timeControl: { PerMove: { secondsPerMove: 20 } } });
  t.same((await lobby(app)).map((s) => s.id), [s1.seekId, g1.seekId, s2.seekId, s3.seekId, g2.seekId], 'oldest first');

  t.equal((await app.req('DELETE', pollPath(s2.seekId, s2.secret))).status, 204);
  t.equal((await app.req('POST', `/bot/seeks/${s3.seekId}/accept`, { token: y.token })).status, 201);
  t.same((await app.req('GET', pollPath(s1.seekId, s1.secret))).json, OPEN, 'a poll does not reorder');
  const list = await app.req('GET', '/lobby/seeks');
  t.equal(list.headers['access-control-allow-origin'], '*', 'a public read');
  const seeks = (list.json as { seeks: { id: string }[] }).seeks;
  t.same(seeks, [
    { id: s1.seekId, timeControl: FISCHER_600_10, kind: 'Bot', name: `anon ${x.name}` },
    { id: g1.seekId, timeControl: FISCHER_600_10, kind: 'Human', name: null },
    { id: g2.seekId, timeControl: { PerMove: { secondsPerMove: 20 } }, kind: 'Human', name: null },
  ], 'cancelled and matched seeks are gone; faces only');
  for (const secret of [s1.secret, g1.secret, g2.secret, s2.secret]) t.notOk(list.text.includes(secret), 'no secret');
  for (const raw of [g1.guestId, g2.guestId, 'guest:', 'bot:team:', x.id]) t.notOk(list.text.includes(raw), `no raw id (${raw})`);
});

t.test('polling: 400 without a secret, 404 unknown or wrong, keeps a seek alive; expiry without polls', async (t) => {
  const app = await bootApp(t);
  const clock = app.clock as ManualClock;
  const x = await anonBot(app, 'poller');
  const s = await botSeek(app, x.token);

  for (const path of [`/lobby/seeks/${s.seekId}`, `/lobby/seeks/${s.seekId}?secret=`, `/lobby/seeks/${s.seekId}?other=${s.secret}`]) {
    const r = await app.req('GET', path);
    t.equal(r.status, 400, `${path}: no secret`);
    t.match(r.json, { status: 400, code: 'invalid_query' });
    t.match((r.json as { detail: string }).detail, /secret/, 'the detail names the parameter');
  }
  const wrong = await app.req('GET', pollPath(s.seekId, s.secret.slice(0, -1) + (s.secret.endsWith('A') ? 'B' : 'A')));
  t.equal(wrong.status, 404, 'a wrong secret');
  t.match(wrong.json, { code: 'unknown_seek' });
  t.equal((await app.req('GET', pollPath('NoSuchSeek000000', s.secret))).status, 404, 'an unknown id');
  t.equal((await app.req('DELETE', pollPath(s.seekId, 'x'.repeat(32)))).status, 404, 'cancelling with a wrong secret');

  const open = await app.req('GET', pollPath(s.seekId, s.secret));
  t.equal(open.status, 200);
  t.same(open.json, OPEN, 'exactly {matched:false, gameId:null, seat:null} while open');

  clock.advance(100_000);
  t.same((await app.req('GET', pollPath(s.seekId, s.secret))).json, OPEN, 'open at 100 s; the poll extends it');
  clock.advance(100_000);
  t.same((await app.req('GET', pollPath(s.seekId, s.secret))).json, OPEN, 'still open at 200 s, past the first 2 minutes');
  t.same((await lobby(app)).map((e) => e.id), [s.seekId], 'and listed');
  clock.advance(119_000);
  t.same((await lobby(app)).map((e) => e.id), [s.seekId], '119 s after the last poll: still listed');
  clock.advance(2_000);
  t.same(await lobby(app), [], '121 s after the last poll: expired');
  t.equal((await app.req('GET', pollPath(s.seekId, s.secret))).status, 404, 'an expired seek polls 404');
  t.equal((await app.req('DELETE', pollPath(s.seekId, s.secret))).status, 409, 'and cannot be cancelled (no longer open)');
  const y = await anonBot(app, 'too-late');
  t.equal((await app.req('POST', `/bot/seeks/${s.seekId}/accept`, { token: y.token })).status, 404, 'nor accepted');

  const never = await botSeek(app, x.token);
  clock.advance(119_000);
  t.same((await lobby(app)).map((e) => e.id), [never.seekId], 'a never-polled seek lives about 2 minutes');
  clock.advance(2_000);
  t.same(await lobby(app), [], 'then it is gone');
  t.equal((await app.req('GET', pollPath(never.seekId, never.secret))).status, 404);
});

t.test('a matched seek stays pollable for 10 minutes', async (t) => {
  const app = await bootApp(t, { overrides: { 'games.unlimitedCapMs': 3_600_000 } });
  const clock = app.clock as ManualClock;
  const x = await anonBot(app, 'm-owner');
  const y = await anonBot(app, 'm-taker');
  const s = await botSeek(app, x.token, { timeControl: { Unlimited: {} } });
  const { gameId } = (await app.req('POST', `/bot/seeks/${s.seekId}/accept`, { token: y.token })).json as { gameId: string };
  clock.advance(9 * 60_000);
  t.match((await app.req('GET', pollPath(s.seekId, s.secret))).json, { matched: true, gameId }, 'after 9 minutes');
  t.equal((await app.req('DELETE', pollPath(s.seekId, s.secret))).status, 409, 'a matched seek cannot be cancelled');
  clock.advance(61_000 + 60_000);
  t.equal((await app.req('GET', pollPath(s.seekId, s.secret))).status, 404, 'forgotten after 10 minutes');
});

t.test('DELETE /lobby/seeks/{id}: 204, then 409; 404 unknown; 400 without a secret', async (t) => {
  const app = await bootApp(t);
  const x = await anonBot(app, 'canceller');
  const s = await botSeek(app, x.token);
  const del = await app.req('DELETE', pollPath(s.seekId, s.secret));
  t.equal(del.status, 204);
  t.equal(del.text, '', 'no body');
  t.same(await lobby(app), []);
  t.equal((await app.req('GET', pollPath(s.seekId, s.secret))).status, 404, 'a cancelled seek polls 404');
  const again = await app.req('DELETE', pollPath(s.seekId, s.secret));
  t.equal(again.status, 409, 'cancelling twice');
  t.match(again.json, { status: 409, code: 'seek_not_open' });
  t.equal((await app.req('DELETE', pollPath('NoSuchSeek000000', s.secret))).status, 404);
  t.equal((await app.req('DELETE', `/lobby/seeks/${s.seekId}`)).status, 400);
});

t.test('seek games push GameStart to both bots’ account streams', async (t) => {
  const app = await bootApp(t);
  const x = await anonBot(app, 'gs-owner');
  const y = await anonBot(app, 'gs-taker');
  const sx = await app.stream('/bot/stream/event', x.token);
  const sy = await app.stream('/bot/stream/event', y.token);
  t.teardown(() => {
    sx.destroy();
    sy.destroy();
  });
  const s = await botSeek(app, x.token);
  const { gameId } = (await app.req('POST', `/bot/seeks/${s.seekId}/accept`, { token: y.token })).json as { gameId: string };
  t.equal((await nextEvent(sx))?.GameStart?.gameId, gameId, 'the owner hears of its game');
  t.equal((await nextEvent(sy))?.GameStart?.gameId, gameId, 'so does the accepter');
});
