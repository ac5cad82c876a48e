// Human guests in the lobby (docs/API.md, "Seeks, the lobby and human guests"): a guest offers a seek and a bot
// takes it, or a guest takes a bot's seek; either way the guest gets a seat token (from its poll, or
// in the accept answer) and plays with it as Bearer on the game routes, and only there. Guest seeks
// live 30 seconds without a poll. Spectators see a guest as a Human with no name.
import t from 'tap';
import { anonBot, bootApp } from '../../helpers/app.js';
import type { ManualClock } from '../../../src/domain/clock.js';
import { FISCHER_600_10, botSeek, guestSeek, lobby, myGame, nextEvent, playTurns, pollPath, type Seat } from '../../helpers/lobby.js';

const other = (s: Seat): Seat => (s === 'White' ? 'Black' : 'White');
const TOKEN = /^dcb_[A-Za-z0-9_-]{32}$/;

t.test('a guest offers a seek, a bot accepts, the guest plays with the seat token from its poll', async (t) => {
  const app = await bootApp(t);
  const created = await app.req('POST', '/lobby/seeks'); // no body: the default time control
  t.equal(created.status, 201);
  const g = created.json as { seekId: string; secret: string; guestId: string };
  t.same(Object.keys(g).sort(), ['guestId', 'secret', 'seekId']);
  t.match(g.secret, /^[A-Za-z0-9_-]{32}$/);
  t.same(await lobby(app), [{ id: g.seekId, timeControl: FISCHER_600_10, kind: 'Human', name: null }], 'a Human with no name');
  const openPoll = await app.req('GET', pollPath(g.seekId, g.secret));
  t.same(openPoll.json, { matched: false, gameId: null, seat: null }, 'no seat token while open');

  const bot = await anonBot(app, 'guest-taker');
  const events = await app.stream('/bot/stream/event', bot.token);
  t.teardown(() => events.destroy());
  const acc = await app.req('POST', `/bot/seeks/${g.seekId}/accept`, { token: bot.token });
  t.equal(acc.status, 201);
  const { gameId } = acc.json as { gameId: string };
  const start = (await nextEvent(events))?.GameStart;
  t.equal(start?.gameId, gameId, 'the bot gets GameStart for a guest’s seek');
  t.same(start?.opponent, { id: null, kind: 'Human', name: null }, 'a guest opponent by its face, never its id');

  const poll = await app.req('GET', pollPath(g.seekId, g.secret));
  t.equal(poll.status, 200);
  const m = poll.json as { matched: boolean; gameId: string; seat: Seat; seatToken: string };
  t.same({ ...m, seatToken: 'x' }, { matched: true, gameId, seat: m.seat, seatToken: 'x' });
  t.match(m.seatToken, TOKEN, 'a matched guest seek’s poll carries a seat token');
  t.equal(((await app.req('GET', pollPath(g.seekId, g.secret))).json as { seatToken: string }).seatToken, m.seatToken, 'every poll gives the same token');
  t.equal((await myGame(app, bot.token, gameId))?.seat, other(m.seat), 'the bot sits opposite the guest');
  t.same(await lobby(app), []);

  const state = (await app.req('GET', `/games/${gameId}`)).json as { players: Record<string, unknown> };
  t.same(state.players[m.seat === 'White' ? 'white' : 'black'], { kind: 'Human', name: null }, 'spectators see a Human');
  t.same(state.players[m.seat === 'White' ? 'black' : 'white'], { kind: 'Bot', name: `anon ${bot.name}` });
  t.notOk(JSON.stringify(state).includes(g.guestId), 'the guest id is not public');

  // The seat token is a Bearer for this game's routes.
  const stream = await app.stream(`/bot/game/stream/${gameId}`, m.seatToken);
  t.equal(stream.status, 200, 'the guest watches its game');
  t.ok((await nextEvent(stream))?.Snapshot, 'opening with a Snapshot');
  stream.destroy();
  t.equal((await app.req('POST', `/bot/game/${gameId}/seed`, { token: m.seatToken, body: { seed: 'guest-seed-0123456789' } })).status, 202);
  const tokens = { [m.seat]: m.seatToken, [other(m.seat)]: bot.token } as Record<Seat, string>;
  const played = await playTurns(app, gameId, tokens, { [m.seat]: 2 });
  if (!played.ended) t.ok(played[m.seat] >= 2, 'the guest played turns with its seat token');

  // …and for nothing else.
  for (const [method, path] of [['GET', '/bot/account'], ['GET', '/bot/games'], ['POST', '/bot/seeks'], ['GET', '/bot/stream/event']] as const) {
    const r = await app.req(method, path, { token: m.seatToken });
    t.equal(r.status, 401, `a seat token on ${method} ${path}`);
    t.equal(r.headers['www-authenticate'], 'Bearer realm="dicechess"');
  }
  const house = await app.req('POST', '/bot/challenge', { token: bot.token, body: { team: 'house', name: 'random' } });
  t.equal(house.status, 201);
  let otherGame: string | undefined;
  for (let i = 0; i < 200 && !otherGame; i++) {
    const games = (await app.req('GET', '/bot/games', { token: bot.token })).json as { games: { gameId: string }[] };
    otherGame = games.games.find((x) => x.gameId !== gameId)?.gameId;
  }
  const foreign = await app.req('POST', `/bot/game/${otherGame}/move`, { token: m.seatToken, body: { moves: ['e2e4'] } });
  t.equal(foreign.status, 403, 'a seat token cannot act in another game');
  t.match(foreign.json, { code: 'not_seated' });
  const foreignStream = await app.req('GET', `/bot/game/stream/${otherGame}`, { token: m.seatToken });
  t.equal(foreignStream.status, 403, 'a seat token cannot watch another game through the bot stream');
  t.match(foreignStream.json, { code: 'not_seated' });

  if (!played.ended) {
    t.equal((await app.req('POST', `/bot/game/${gameId}/resign`, { token: m.seatToken })).status, 202, 'the guest resigns');
    let over: { status: { Ended?: { over: unknown } } } | undefined;
    for (let i = 0; i < 200; i++) {
      over = (await app.req('GET', `/games/${gameId}`)).json as typeof over;
      if (over?.status.Ended) break;
    }
    t.same(over?.status.Ended?.over, { result: { Win: { side: other(m.seat) } }, termination: 'Resign' });
  }
});

t.test('a guest accepts a bot’s seek and gets {gameId, seat, seatToken}', async (t) => {
  const app = await bootApp(t);
  const bot = await anonBot(app, 'seek-owner');
  const events = await app.stream('/bot/stream/event', bot.token);
  t.teardown(() => events.destroy());
  const s = await botSeek(app, bot.token);
  const acc = await app.req('POST', `/lobby/seeks/${s.seekId}/accept`, { body: { guestId: 'someone-i-made-up' } });
  t.equal(acc.status, 201);
  const a = acc.json as { gameId: string; seat: Seat; seatToken: string };
  t.same(Object.keys(a).sort(), ['gameId', 'seat', 'seatToken']);
  t.match(a.seatToken, TOKEN);
  t.equal((await nextEvent(events))?.GameStart?.gameId, a.gameId, 'GameStart to the seated bot');
  const poll = (await app.req('GET', pollPath(s.seekId, s.secret))).json as { matched: boolean; gameId: string; seat: Seat };
  t.same(poll, { matched: true, gameId: a.gameId, seat: other(a.seat) }, 'the owner’s poll: matched, the other seat, no seat token');
  t.equal((await myGame(app, bot.token, a.gameId))?.seat, other(a.seat));
  const st = (await app.req('GET', `/games/${a.gameId}`)).json as { players: Record<string, unknown>; timeControl: unknown };
  t.same(st.players[a.seat === 'White' ? 'white' : 'black'], { kind: 'Human', name: null });
  t.same(st.timeControl, FISCHER_600_10);
  t.notOk(JSON.stringify(st).includes('someone-i-made-up'), 'a named guest id is not seated as such');

  const tokens = { [a.seat]: a.seatToken, [other(a.seat)]: bot.token } as Record<Seat, string>;
  const played = await playTurns(app, a.gameId, tokens, { [a.seat]: 1, [other(a.seat)]: 1 });
  if (!played.ended) t.ok(played[a.seat] >= 1 && played[other(a.seat)] >= 1, 'both sides played');
  const notYours = await app.req('POST', `/bot/game/${a.gameId}/resign`, { token: (await anonBot(app, 'bystander')).token });
  t.equal(notYours.status, 403, 'a bystander cannot resign');

  const again = await app.req('POST', `/lobby/seeks/${s.seekId}/accept`);
  t.equal(again.status, 409, 'a second guest is too late');
  t.match(again.json, { code: 'seek_taken' });
  t.equal((await app.req('POST', '/lobby/seeks/NoSuchSeek000000/accept')).status, 404);
  const cancelled = await botSeek(app, bot.token);
  await app.req('DELETE', pollPath(cancelled.seekId, cancelled.secret));
  t.equal((await app.req('POST', `/lobby/seeks/${cancelled.seekId}/accept`)).status, 404, 'a cancelled seek');
});

t.test('guest against guest; a guest cannot take its own seek', async (t) => {
  const app = await bootApp(t);
  const g = await guestSeek(app, { timeControl: { PerMove: { secondsPerMove: 60 } } });
  t.same((await lobby(app))[0]?.timeControl, { PerMove: { secondsPerMove: 60 } });
  for (const guestId of [g.guestId, `guest:${g.guestId}`]) {
    const own = await app.req('POST', `/lobby/seeks/${g.seekId}/accept`, { body: { guestId } });
    t.equal(own.status, 400, `own seek (${guestId.startsWith('guest:') ? 'prefixed' : 'bare'} id)`);
    t.match(own.json, { code: 'own_seek' });
  }
  const bad = await app.req('POST', `/lobby/seeks/${g.seekId}/accept`, { body: { guestId: 42 } });
  t.equal(bad.status, 400, 'a guestId of the wrong type');
  t.match((bad.json as { detail: string }).detail, /guestId/);
  const acc = await app.req('POST', `/lobby/seeks/${g.seekId}/accept`, { body: {} });
  t.equal(acc.status, 201, 'another guest takes it');
  const taker = acc.json as { gameId: string; seat: Seat; seatToken: string };
  const owner = (await app.req('GET', pollPath(g.seekId, g.secret))).json as { gameId: string; seat: Seat; seatToken: string };
  t.equal(owner.gameId, taker.gameId);
  t.equal(owner.seat, other(taker.seat));
  t.not(owner.seatToken, taker.seatToken, 'two different seat tokens');
  const st = (await app.req('GET', `/games/${taker.gameId}`)).json as { players: unknown };
  t.same(st.players, { white: { kind: 'Human', name: null }, black: { kind: 'Human', name: null } });
  const tokens = { [owner.seat]: owner.seatToken, [taker.seat]: taker.seatToken } as Record<Seat, string>;
  const played = await playTurns(app, taker.gameId, tokens, { White: 1, Black: 1 });
  if (!played.ended) t.ok(played.White >= 1 && played.Black >= 1, 'both humans play with their seat tokens');
  const now = (await app.req('GET', `/games/${taker.gameId}`)).json as { activeSeat: Seat; dicePending: boolean; status: object };
  if (!('Ended' in now.status) && now.dicePending) {
    const idle = tokens[other(now.activeSeat)];
    const r = await app.req('POST', `/bot/game/${taker.gameId}/move`, { token: idle, body: { moves: ['e2e4'] } });
    t.equal(r.status, 409, 'a seat token acts for its own seat only');
    t.same(r.json, { applied: false, version: null, reason: 'not your turn' });
  }
});

t.test('guest seeks live 30 seconds without a poll', async (t) => {
  const app = await bootApp(t);
  const clock = app.clock as ManualClock;
  const g = await guestSeek(app);
  clock.advance(29_000);
  t.same((await lobby(app)).map((s) => s.id), [g.seekId], 'listed at 29 s');
  clock.advance(2_000);
  t.same(await lobby(app), [], 'gone at 31 s');
  t.equal((await app.req('GET', pollPath(g.seekId, g.secret))).status, 404);
  t.equal((await app.req('POST', `/lobby/seeks/${g.seekId}/accept`)).status, 404, 'an expired guest seek cannot be taken');

  const kept = await guestSeek(app);
  for (let i = 0; i < 4; i++) {
    clock.advance(25_000);
    t.same((await app.req('GET', pollPath(kept.seekId, kept.secret))).json, { matched: false, gameId: null, seat: null }, `poll ${i + 1}`);
  }
  t.same((await lobby(app)).map((s) => s.id), [kept.seekId], 'polled every 25 s, alive after 100 s');
  clock.advance(31_000);
  t.same(await lobby(app), [], 'and expires 30 s after its last poll');
});
