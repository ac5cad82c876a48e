// The whole route catalogue over real HTTP: every authenticated route refuses a missing token with
// 401, every path answers a method it does not have with 405 and an exact Allow header, the
// operations routes and documents, and the leaderboard/profile routes with and without persistence.
// (Seeks and the lobby have their own suite under test/lobby.)
import t from 'tap';
import { ROUTES } from '../../src/wire/routes.js';
import { bootApp, diskStore } from '../helpers/app.js';
import { Bot, type Json } from '../helpers/bot.js';

const concrete = (path: string): string => path.replace(/\{[^}]+\}/g, 'abc');

t.test('every authenticated route answers 401 without a token, with the Bearer challenge', async (t) => {
  const app = await bootApp(t);
  const guarded = ROUTES.filter((r) => r.auth !== 'public' && r.tag !== 'Webhooks');
  t.ok(guarded.length >= 16, `${guarded.length} authenticated routes`);
  for (const r of guarded) {
    const res = await app.req(r.method, concrete(r.path));
    t.equal(res.status, 401, `${r.method} ${r.path}`);
    t.equal(res.headers['www-authenticate'], 'Bearer realm="dicechess"', `${r.method} ${r.path}: WWW-Authenticate`);
  }
});

t.test('every path answers a method it lacks with 405 and an Allow header naming exactly its methods', async (t) => {
  const app = await bootApp(t);
  const bot = await Bot.anon(app, 'methods');
  const byPath = new Map<string, Set<string>>();
  for (const r of ROUTES) byPath.set(r.path, (byPath.get(r.path) ?? new Set()).add(r.method));
  for (const [path, methods] of byPath) {
    const expected = new Set([...methods, 'OPTIONS', ...(methods.has('GET') ? ['HEAD'] : [])]);
    for (const m of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH']) {
      if (methods.has(m)) continue;
      const res = await app.req(m, concrete(path), { token: bot.token });
      t.equal(res.status, 405, `${m} ${path}`);
      const allow = new Set((res.headers.allow ?? '').split(',').map((s) => s.trim()));
      t.same([...allow].sort(), [...expected].sort(), `${m} ${path}: Allow ${res.headers.allow}`);
    }
  }
});

t.test('operations: health, metrics, the two contract documents, HEAD on a public read', async (t) => {
  const app = await bootApp(t);
  const health = await app.req('GET', '/health');
  t.equal(health.status, 200);
  t.match(health.json, { status: 'ok', version: /^\d+\.\d+\.\d+/ });
  const metrics = await app.req('GET', '/metrics');
  t.equal(metrics.status, 200);
  t.match(metrics.headers['content-type'], /^text\/plain/);
  t.match(metrics.text, /dicechess_live_games \d+/);
  const openapi = (await app.req('GET', '/openapi.json')).json as Json;
  t.match(openapi.openapi, /^3\.1/);
  t.equal(openapi.info.version, '1.0', 'the document describes contract 1.0');
  t.equal(openapi.info['x-server-version'], (health.json as Json).version, 'the server version is a field of its own');
  for (const r of ROUTES) t.ok(openapi.paths[r.path]?.[r.method.toLowerCase()], `the document has ${r.method} ${r.path}`);
  const asyncapi = (await app.req('GET', '/asyncapi.json')).json as Json;
  t.match(asyncapi.asyncapi, /^3\./);
  t.equal(asyncapi.info.version, '1.0');
  t.equal(asyncapi.info['x-server-version'], (health.json as Json).version);
  const head = await app.req('HEAD', '/games');
  t.equal(head.status, 200);
  t.equal(head.text, '', 'HEAD has no body');
});

t.test('leaderboard and profiles: 404 without persistence', async (t) => {
  const app = await bootApp(t);
  await Bot.register(app, 'acme', 'alpha');
  for (const path of ['/leaderboard', '/bots/acme/alpha']) {
    const r = await app.req('GET', path);
    t.equal(r.status, 404, path);
    t.equal((r.json as Json).code, 'no_persistence');
  }
});

t.test('leaderboard and profiles with persistence: 200 for a registered bot, 404 for others', async (t) => {
  const app = await bootApp(t, { store: await diskStore(t) });
  const alpha = await Bot.register(app, 'acme', 'alpha');
  await alpha.req('POST', '/bot/ladder/join');
  const board = await app.req('GET', '/leaderboard');
  t.equal(board.status, 200);
  t.same(board.json, {
    leaders: [], total: 0,
    provisional: [{ rank: 1, team: 'acme', name: 'alpha', rating: 1500, rd: 350, onLadder: true, games: 0, wins: 0, draws: 0, losses: 0 }],
    provisionalTotal: 1,
  }, 'a fresh bot (deviation 350) on the ladder is provisional, not listed');
  const profile = await app.req('GET', '/bots/acme/alpha');
  t.equal(profile.status, 200);
  t.same(profile.json, {
    team: 'acme', name: 'alpha', rating: 1500, rd: 350, provisional: true, onLadder: true,
    games: 0, wins: 0, draws: 0, losses: 0, recent: [], ratingHistory: [], offLadderReason: null, ladder: { pairs: 0, singles: 0 },
  });
  const anon = await Bot.anon(app, 'nobody');
  t.equal((await app.req('GET', `/bots/anon/${anon.creds.name}`)).status, 404, 'anonymous bots have no profile');
  t.equal((await app.req('GET', '/bots/acme/nobody')).status, 404, 'an unknown bot');
  // A finished (unrated) game shows in recent, from the bot's point of view.
  const bob = await Bot.register(app, 'acme', 'bob');
  const gameId = await alpha.playAgainst(bob);
  await bob.resign(gameId);
  let recent: Json[] = [];
  for (let i = 0; i < 200 && recent.length === 0; i++) recent = ((await app.req('GET', '/bots/acme/alpha')).json as Json).recent;
  t.match(recent, [{ gameId, seat: 'White', opponent: { kind: 'Bot', name: 'acme bob' }, result: 'win', rated: false, termination: 'Resign' }]);
  t.match(recent[0].finishedAt, /^\d{4}-\d\d-\d\dT/);
  t.equal(((await app.req('GET', '/bots/acme/alpha')).json as Json).games, 0, 'unrated games do not count');
});
