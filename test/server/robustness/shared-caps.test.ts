// Caps one address (or one token) could otherwise fill for everyone: guest games and guest clocks,
// tokenless writes from other sites' pages, lobby reads, ladder joins and leaves.
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { Bot } from '../../helpers/bot.js';

t.test('live guest games are capped per address; ending one frees its place', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.guestGamesPerAddress': 2, 'games.seedGraceMs': 600_000 } });
  const made: { gameId: string; seatToken: string }[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await app.req('POST', '/lobby/house/random');
    t.equal(r.status, 201, `guest game ${i + 1}`);
    made.push(r.json as { gameId: string; seatToken: string });
  }
  const third = await app.req('POST', '/lobby/house/random');
  t.equal(third.status, 429, 'a third live guest game from one address');
  t.match(third.json, { code: 'too_many_games' });
  t.ok(Number(third.headers['retry-after']) >= 1);
  // A guest seek accepted by a guest from the same address counts too.
  const bot = await Bot.anon(app, 'seeker');
  const seek = (await app.req('POST', '/bot/seeks', { token: bot.token, body: {} })).json as { seekId: string };
  const accept = await app.req('POST', `/lobby/seeks/${seek.seekId}/accept`, { body: {} });
  t.equal(accept.status, 429, 'accepting a seek as a guest is refused as well');
  t.equal((await app.req('POST', `/bot/game/${made[0].gameId}/resign`, { token: made[0].seatToken })).status, 202);
  const again = await (async () => {
    for (let i = 0; i < 200; i++) {
      const r = await app.req('POST', '/lobby/house/random');
      if (r.status === 201) return r;
    }
    return undefined;
  })();
  t.equal(again?.status, 201, 'a resigned game gives its address the place back');
});

t.test('a guest asks for a bounded clock only', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.guestClock.maxInitialSeconds': 600 } });
  const day = { timeControl: { SuddenDeath: { initialSeconds: 86_400 } } };
  const house = await app.req('POST', '/lobby/house/random', { body: day });
  t.equal(house.status, 400);
  t.match(house.json, { code: 'clock_too_long' });
  const seek = await app.req('POST', '/lobby/seeks', { body: day });
  t.equal(seek.status, 400);
  t.equal((await app.req('POST', '/lobby/house/random', { body: { timeControl: { SuddenDeath: { initialSeconds: 600 } } } })).status, 201);
});

t.test('tokenless writes refuse other sites’ pages; only public reads are open to every origin', async (t) => {
  const app = await bootApp(t, { overrides: { 'http.corsOrigins': ['https://friend.example'] } });
  const evil = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' };
  for (const path of ['/lobby/house/random', '/lobby/seeks', '/bot/anon']) {
    const r = await app.req('POST', path, { body: '{}', headers: evil });
    t.equal(r.status, 403, `POST ${path} from another site`);
    t.match(r.json, { code: 'cross_site_refused' });
    t.equal(r.headers['access-control-allow-origin'], undefined, 'and no CORS grant');
  }
  // Older browsers send Origin without Sec-Fetch-Site.
  const old = await app.req('POST', '/lobby/house/random', { body: '{}', headers: { origin: 'https://evil.example', 'content-type': 'text/plain' } });
  t.equal(old.status, 403, 'an Origin of another host');
  const same = await app.req('POST', '/lobby/house/random', { headers: { origin: app.base, 'sec-fetch-site': 'same-origin' } });
  t.equal(same.status, 201, 'the server’s own page');
  t.equal(same.headers['access-control-allow-origin'], undefined, 'a write carries no wildcard');
  const friend = await app.req('POST', '/lobby/seeks', { body: {}, headers: { origin: 'https://friend.example', 'sec-fetch-site': 'cross-site' } });
  t.equal(friend.status, 201, 'a configured origin');
  t.equal(friend.headers['access-control-allow-origin'], 'https://friend.example');
  const curl = await app.req('POST', '/lobby/seeks', { body: '{}', headers: { 'content-type': 'text/plain' } });
  t.equal(curl.status, 201, 'a client that is not a browser is not affected');
  const read = await app.req('GET', '/lobby/seeks', { headers: { origin: 'https://evil.example' } });
  t.equal(read.headers['access-control-allow-origin'], '*', 'public reads stay open');
  const pre = await app.req('OPTIONS', '/lobby/house/random', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
  t.equal(pre.headers['access-control-allow-origin'], undefined, 'no preflight grant for a write');
});

t.test('the lobby list is paged and lobby reads are budgeted per address', async (t) => {
  const app = await bootApp(t, { overrides: { 'lobby.maxOpenSeeksPerCaller': 3, 'limits.lobbyPollsPerMinute': 5 } });
  const bot = await Bot.anon(app, 'pager');
  for (let i = 0; i < 3; i++) t.equal((await app.req('POST', '/bot/seeks', { token: bot.token, body: {} })).status, 201);
  const all = await app.req('GET', '/lobby/seeks');
  t.same(Object.keys(all.json as object), ['seeks'], 'one page: the shape existing clients know');
  const page = (await app.req('GET', '/lobby/seeks?limit=2')).json as { seeks: unknown[]; next: string };
  t.equal(page.seeks.length, 2);
  const rest = (await app.req('GET', `/lobby/seeks?limit=2&after=${page.next}`)).json as { seeks: unknown[]; next?: string };
  t.equal(rest.seeks.length, 1);
  t.equal(rest.next, undefined);
  t.equal((await app.req('GET', '/lobby/seeks?after=x')).status, 400, 'a malformed cursor');
  // Three reads so far (the 400 counted nothing); two more fit the budget of five, the sixth is over it.
  for (let i = 0; i < 2; i++) t.equal((await app.req('GET', '/lobby/seeks')).status, 200);
  const over = await app.req('GET', '/lobby/seeks');
  t.equal(over.status, 429);
  t.match(over.json, { code: 'too_many_polls' });
  t.ok(Number(over.headers['retry-after']) >= 1);
});

t.test('ladder joins and leaves are budgeted per bot', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.ladderChangesPerHour': 3 } });
  const bot = await Bot.register(app, 'ladder', 'flipper');
  const other = await Bot.register(app, 'ladder', 'steady');
  for (const path of ['/bot/ladder/join', '/bot/ladder/leave', '/bot/ladder/join']) {
    t.equal((await app.req('POST', path, { token: bot.token })).status, 200, path);
  }
  const over = await app.req('POST', '/bot/ladder/leave', { token: bot.token });
  t.equal(over.status, 429);
  t.match(over.json, { code: 'too_many_ladder_changes' });
  t.equal((await app.req('POST', '/bot/ladder/join', { token: other.token })).status, 200, 'another bot has its own budget');
});
