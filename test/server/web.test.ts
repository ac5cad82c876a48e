// What the web page needs from the server: guests' one-click games against house bots (and their
// shared per-address budget), the public game stream, ratings in the live list, and the page itself
// (shell and assets: content types, caching, pre-compressed bodies, and no change to any API route).
import t from 'tap';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { DEFAULT_RATING, SCHEMA_VERSION } from '../../src/domain/records.js';
import { bootApp, type TestApp } from '../helpers/app.js';
import { ManualClock } from '../../src/domain/clock.js';
import { Bot, UNLIMITED } from '../helpers/bot.js';
import { EventStream, kindOf } from '../helpers/event-stream.js';
import { until } from '../helpers/poll.js';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET that keeps the raw bytes (no decompression), to see exactly what was sent. */
function rawGet(app: TestApp, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(app.base + path, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('a guest plays house/random in one request: a seat token for one seat, the house on the other', async (t) => {
  const app = await bootApp(t);
  const r = await app.req('POST', '/lobby/house/random', { body: { timeControl: UNLIMITED } });
  t.equal(r.status, 201);
  const g = r.json as { gameId: string; seat: 'White' | 'Black'; seatToken: string; guestId: string };
  t.match(g, { gameId: String, seat: /^(White|Black)$/, seatToken: String, guestId: String });
  const state = (await app.req('GET', `/games/${g.gameId}`)).json as { players: Record<string, unknown>; timeControl: unknown };
  const mine = g.seat === 'White' ? 'white' : 'black';
  const theirs = g.seat === 'White' ? 'black' : 'white';
  t.same(state.players[mine], { kind: 'Human', name: null });
  t.same(state.players[theirs], { kind: 'Bot', name: 'house random' });
  t.same(state.timeControl, UNLIMITED);

  // The seat token plays that seat (here: resigns it) and nothing else.
  t.equal((await app.req('GET', '/bot/account', { token: g.seatToken })).status, 401, 'not a bot token');
  const stream = new EventStream(await app.stream(`/games/${g.gameId}/stream`));
  t.equal(kindOf((await stream.next())!), 'Snapshot');
  t.equal((await app.req('POST', `/bot/game/${g.gameId}/resign`, { token: g.seatToken })).status, 202);
  const end = await stream.until((e) => 'GameEnded' in e, 'GameEnded');
  t.same(end.GameEnded.over, { result: { Win: { side: g.seat === 'White' ? 'Black' : 'White' } }, termination: 'Resign' });

  const greedy = await app.req('POST', '/lobby/house/greedy');
  t.equal(greedy.status, 201, 'no body: Unlimited against house/greedy');
  const gs = (await app.req('GET', `/games/${(greedy.json as { gameId: string }).gameId}`)).json as { timeControl: unknown };
  t.same(gs.timeControl, UNLIMITED);
});

t.test('house games refuse unknown bots and bad bodies', async (t) => {
  const app = await bootApp(t);
  const none = await app.req('POST', '/lobby/house/nobody');
  t.equal(none.status, 404);
  t.equal((none.json as { code: string }).code, 'unknown_house_bot');
  t.equal((await app.req('POST', '/lobby/house/random', { body: { timeControl: { Blitz: {} } } })).status, 400);
  t.equal((await app.req('POST', '/lobby/house/random', { body: 'nope', headers: { 'content-type': 'application/json' } })).status, 400);
  t.equal((await app.req('GET', '/lobby/house/random')).status, 405);
  t.equal(((await app.req('GET', '/games')).json as { total: number }).total, 0, 'no game was made');
});

t.test('house games share the per-address guest budget with the lobby routes', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.guestLobbyPerHour': 3 } });
  t.equal((await app.req('POST', '/lobby/seeks')).status, 201);
  t.equal((await app.req('POST', '/lobby/house/random')).status, 201);
  t.equal((await app.req('POST', '/lobby/house/greedy')).status, 201);
  const over = await app.req('POST', '/lobby/house/random');
  t.equal(over.status, 429, 'the fourth guest request this hour is refused');
  t.ok(Number(over.headers['retry-after']) >= 1, 'with Retry-After');
  // Counted as games made, not as live ones: a house game may already have ended on a slow machine.
  const started = /^dicechess_games_started_total (\d+)$/m.exec((await app.req('GET', '/metrics')).text)?.[1];
  t.equal(started, '2', 'the refused request made no game');
});

t.test('the public game stream: no token, Snapshot first, every event, closed after GameEnded', async (t) => {
  const app = await bootApp(t);
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await white.playAgainst(black, UNLIMITED);
  const spectator = new EventStream(await app.stream(`/games/${gameId}/stream`));
  const bot = await white.gameStream(gameId);
  t.equal(spectator.status, 200);
  const first = await spectator.next();
  t.equal(kindOf(first!), 'Snapshot');
  await bot.next();
  await black.resign(gameId);
  const seen = await spectator.rest();
  const botSeen = await bot.rest();
  t.same(seen, botSeen, 'the same events as the authenticated stream');
  t.equal(kindOf(seen.at(-1)!), 'GameEnded');
  const text = JSON.stringify([first, ...seen]);
  t.notOk(text.includes(white.token) || text.includes(black.token), 'no token ever appears');

  const again = new EventStream(await app.stream(`/games/${gameId}/stream`));
  t.same((await again.rest()).map(kindOf), ['Snapshot', 'GameEnded'], 'an ended game: Snapshot, GameEnded, closed');
  const missing = await app.req('GET', '/games/NoSuchGame000000/stream');
  t.equal(missing.status, 404);
});

t.test('public streams are bounded per game and in all; keep-alives flow on them', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock, overrides: { 'spectators.maxPerGame': 2, 'spectators.maxTotal': 3, 'spectators.reservedForNewAddresses': 0, 'streams.keepAliveMs': 1000, 'games.seedGraceMs': 600_000 } });
  const games: string[] = [];
  for (let i = 0; i < 2; i++) games.push(((await app.req('POST', '/lobby/house/random')).json as { gameId: string }).gameId);
  const open = async (id: string) => new EventStream(await app.stream(`/games/${id}/stream`));
  const a1 = await open(games[0]);
  const a2 = await open(games[0]);
  t.equal(a1.status, 200);
  t.equal(a2.status, 200);
  const a3 = await app.req('GET', `/games/${games[0]}/stream`);
  t.equal(a3.status, 429, 'a third spectator of the same game waits');
  t.equal((a3.json as { code: string }).code, 'too_many_spectators');
  t.ok(Number(a3.headers['retry-after']) >= 1);
  const b1 = await open(games[1]);
  t.equal(b1.status, 200, 'another game still has room');
  t.equal((await app.req('GET', `/games/${games[1]}/stream`)).status, 429, 'but the server-wide cap is reached');

  t.equal(kindOf((await a1.next())!), 'Snapshot');
  a1.keepAlives = 0;
  for (let i = 0; i < 3; i++) clock.advance(1000);
  t.equal(await a1.line(), '', 'a keep-alive after an idle interval');

  a2.close();
  b1.close();
  const again = await until(async () => {
    const s = await open(games[0]);
    if (s.status === 200) return s;
    s.close();
    return undefined;
  }, 'a freed place');
  t.equal(again.status, 200, 'a closed stream gives its place back');
  again.close();
  a1.close();
});

t.test('the live list carries rated and the seats’ ratings on ladder games only', async (t) => {
  const app = await bootApp(t);
  const a = await Bot.anon(app, 'a');
  const b = await Bot.anon(app, 'b');
  await a.playAgainst(b, UNLIMITED);
  const store = app.server.store;
  const rated = { ...DEFAULT_RATING, rating: 1734, rd: 80 };
  for (const name of ['ra', 'rb']) {
    await store.createBot({
      schema: SCHEMA_VERSION, id: `bot:team:acme:${name}`, team: 'acme', name, tokenHash: name.repeat(32),
      createdAt: 0, onLadder: true, rating: rated, webhook: null,
    });
  }
  const seat = (name: string) => ({ id: `bot:team:acme:${name}`, face: { kind: 'Bot' as const, name: `acme ${name}` }, participant: { Bot: { team: 'acme', name } } });
  const game = await app.server.games.create({ white: seat('ra'), black: seat('rb'), timeControl: { Fischer: { initialSeconds: 300, incrementSeconds: 3 } }, rated: true });
  const list = (await app.req('GET', '/games')).json as { games: { gameId: string; rated?: boolean; ratings?: unknown }[] };
  const row = list.games.find((g) => g.gameId === game.id);
  t.same(row && { rated: row.rated, ratings: row.ratings }, { rated: true, ratings: { white: 1734, black: 1734 } });
  const other = list.games.find((g) => g.gameId !== game.id);
  t.ok(other && !('rated' in other) && !('ratings' in other), 'an unrated entry keeps the plain shape');
});

t.test('the page: shell and assets with their types, caching and pre-compressed bodies', async (t) => {
  const app = await bootApp(t);
  const html = { accept: 'text/html,application/xhtml+xml' };
  for (const path of ['/', '/game/abc', '/ladder', '/bot/acme/alpha']) {
    const r = await rawGet(app, path, html);
    t.equal(r.status, 200, `${path} serves the shell`);
    t.equal(r.headers['content-type'], 'text/html; charset=utf-8');
    t.equal(r.headers['cache-control'], 'no-cache');
    t.match(r.headers['content-security-policy'], /default-src 'self'/);
  }
  const plain = await rawGet(app, '/');
  const script = /src="\/assets\/(app-[A-Z0-9]+\.js)"/.exec(plain.body.toString('utf8'));
  const style = /href="\/assets\/(style-[A-Z0-9]+\.css)"/.exec(plain.body.toString('utf8'));
  t.ok(script && style, 'the shell names hashed assets');
  const js = await rawGet(app, `/assets/${script![1]}`);
  t.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
  t.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.equal(js.headers['content-encoding'], undefined, 'identity when nothing is accepted');
  const br = await rawGet(app, `/assets/${script![1]}`, { 'accept-encoding': 'gzip, deflate, br' });
  t.equal(br.headers['content-encoding'], 'br');
  t.same(brotliDecompressSync(br.body), js.body, 'brotli of the same bytes');
  t.ok(br.body.length < js.body.length / 2, 'and much smaller');
  const gz = await rawGet(app, `/assets/${style![1]}`, { 'accept-encoding': 'gzip, br;q=0' });
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.equal(gz.headers['content-type'], 'text/css; charset=utf-8');
  t.equal(gz.headers.vary, 'accept-encoding');
  t.same(gunzipSync(gz.body), (await rawGet(app, `/assets/${style![1]}`)).body);
  const again = await rawGet(app, '/', { 'if-none-match': String(plain.headers.etag) });
  t.equal(again.status, 304, 'a revalidated shell is 304');
  t.equal(again.body.length, 0);
  const head = await rawGet(app, '/', {}, 'HEAD');
  t.equal(head.status, 200);
  t.equal(Number(head.headers['content-length']), plain.body.length);
  const missing = await rawGet(app, '/assets/app-NOPE.js');
  t.equal(missing.status, 404);
  t.equal(missing.headers['content-type'], 'application/problem+json');
});

t.test('page paths change no API route: /bot/{team}/{name} is the page only for a browser', async (t) => {
  const app = await bootApp(t);
  const html = { accept: 'text/html' };
  t.equal((await app.req('GET', '/bot/acme/alpha')).status, 404, 'an API client still gets 404');
  t.equal((await app.req('GET', '/bot/acme/alpha')).headers['content-type'], 'application/problem+json');
  for (const headers of [{}, html]) {
    const join = await app.req('GET', '/bot/ladder/join', { headers });
    t.equal(join.status, 405, 'GET /bot/ladder/join is still 405');
    t.equal(join.headers.allow, 'POST, OPTIONS');
    t.equal((await app.req('GET', '/bot/stream/event', { headers })).status, 401, 'the account stream still wants a token');
  }
  t.equal((await app.req('POST', '/bot/acme/alpha', { headers: html })).status, 404, 'other methods: 404 as before');
  t.equal((await app.req('GET', '/bots/acme/alpha')).status, 404, 'the profile API is untouched (no persistence here)');
});
