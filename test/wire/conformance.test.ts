// The conformance checker accepts bodies shaped as the documents describe them, and rejects the rest.
import t from 'tap';
import { createConformance } from '../helpers/conformance.js';
import type { ResponseInfo } from '../helpers/conformance.js';
import * as X from '../helpers/wire-examples.js';

const JSON_CT = 'application/json';
const PROBLEM_CT = 'application/problem+json';
const NDJSON_CT = 'application/x-ndjson';

/** The mismatches one response produces on a fresh checker. */
function judge(info: ResponseInfo): string[] {
  const c = createConformance();
  c.check(info);
  return c.mismatches();
}

/** The one mismatch a response produces; anything but exactly one comes back as a marker. */
function judgeOne(info: ResponseInfo): string {
  const found = judge(info);
  return found.length === 1 ? found[0]! : `<${found.length} mismatches: ${found.join(' | ')}>`;
}

const ok = (method: string, pattern: string, status: number, body: unknown, contentType = JSON_CT): ResponseInfo => ({
  method, pattern, status, contentType, body,
});

t.test('real bodies of every kind pass', async (t) => {
  const c = createConformance();
  const good: ResponseInfo[] = [
    ok('POST', '/bot/anon', 201, X.token),
    ok('POST', '/bot/register', 201, JSON.stringify(X.token)),
    ok('POST', '/bot/register', 409, X.problemOf(409, 'identity_taken'), PROBLEM_CT),
    ok('POST', '/bot/anon', 429, X.problemOf(429, 'rate_limited'), 'application/problem+json; charset=utf-8'),
    ok('POST', '/bot/token', 200, { token: 'dcb_new' }),
    ok('GET', '/bot/account', 200, { team: 'anon', name: 'bob-1a2b3c4d', id: 'bot:team:anon:bob-1a2b3c4d' }),
    ok('GET', '/bot/account', 401, X.problemOf(401, 'unauthorized'), PROBLEM_CT),
    ok('POST', '/bot/ladder/join', 200, { onLadder: true, glickoRating: 1500.0, glickoRd: 350.0 }),
    ok('POST', '/bot/challenge', 201, X.challenge),
    ok('POST', '/bot/challenge', 201, { ...X.challenge, targetOnline: undefined }),
    ok('GET', '/bot/challenges', 200, { in: [X.challenge], out: [] }),
    ok('POST', '/bot/challenge/:id/accept', 201, { gameId: 'g1' }),
    ok('POST', '/bot/challenge/:id/decline', 200, '{}'),
    ok('POST', '/bot/seeks', 201, { seekId: 's1', secret: 'x'.repeat(32) }),
    ok('POST', '/bot/seeks/:id/accept', 409, X.problemOf(409, 'seek_taken'), PROBLEM_CT),
    ok('GET', '/lobby/seeks', 200, {
      seeks: [
        { id: 's1', timeControl: X.FISCHER, kind: 'Bot', name: 'acme alice-v1' },
        { id: 's2', timeControl: { Unlimited: {} }, kind: 'Human', name: null },
      ],
    }),
    ok('POST', '/lobby/seeks', 201, { seekId: 's1', secret: 'x', guestId: 'g7' }),
    ok('GET', '/lobby/seeks/:id', 200, { matched: false, gameId: null, seat: null }),
    ok('GET', '/lobby/seeks/:id', 200, { matched: true, gameId: 'g1', seat: 'Black' }),
    { method: 'DELETE', pattern: '/lobby/seeks/:id', status: 204, contentType: null, body: '' },
    ok('POST', '/lobby/seeks/:id/accept', 201, { gameId: 'g1', seat: 'White', seatToken: 'st_1' }),
    ok('POST', '/bot/game/:id/seed', 202, {}),
    ok('POST', '/bot/game/:id/move', 200, X.applied),
    ok('POST', '/bot/game/:id/move', 202, '{}'),
    ok('POST', '/bot/game/:id/move', 409, X.refused),
    ok('POST', '/bot/game/:id/move', 409, { applied: false, version: null, reason: 'game is over' }),
    ok('POST', '/bot/game/:id/resign', 202, {}),
    ok('GET', '/bot/games', 200, {
      games: [
        {
          gameId: 'g1', seat: 'Black', activeSeat: 'White', dicePending: true, timeControl: X.FISCHER,
          clocks: { white: 1, black: 0 }, version: 3,
        },
      ],
    }),
    ok('GET', '/games', 200, { games: [X.publicGame], total: 120 }),
    ok('GET', '/games/:id', 200, X.state),
    ok('GET', '/games/{id}', 200, X.endedState),
    ok('GET', '/games/abc123', 200, X.state),
    ok('GET', '/games/:id/moves', 200, { version: 7, dfen: X.DFEN_PENDING, dicePending: false, legalMoves: {} }),
    ok('GET', '/games/:id/history', 200, {
      gameId: 'g1', players: X.players, timeControl: X.FISCHER, commit: 'a'.repeat(64), seed: null,
      clientSeeds: null, status: { Active: {} }, history: X.history,
    }),
    ok('GET', '/leaderboard', 200, {
      leaders: [
        { rank: 1, team: 'acme', name: 'alice-v1', rating: 1700.5, rd: 60, onLadder: false, games: 3, wins: 2, draws: 0, losses: 1 },
      ],
      total: 1,
      provisional: [
        { rank: 1, team: 'acme', name: 'newbie', rating: 1500, rd: 350, onLadder: true, games: 0, wins: 0, draws: 0, losses: 0 },
      ],
      provisionalTotal: 1,
    }),
    ok('GET', '/leaderboard', 404, X.problemOf(404, 'no_persistence'), PROBLEM_CT),
    ok('GET', '/bots/:team/:name', 200, X.profile),
    ok('GET', '/bot/stream/event', 200, X.accountEvents.map((e) => JSON.stringify(e)).join('\n\n') + '\n', NDJSON_CT),
    ok('GET', '/bot/game/stream/:id', 200, X.gameEvents, NDJSON_CT),
    ok('GET', '/bot/game/stream/:id', 200, '\n\n', NDJSON_CT),
    ok('POST', '/bot/webhook', 201, { url: 'https://bots.example.com/hook', secret: 'f'.repeat(64) }),
    ok('POST', '/bot/webhook', 422, X.problemOf(422, 'webhook_url_refused'), PROBLEM_CT),
    ok('GET', '/bot/webhook', 200, X.webhookInfo),
    ok('GET', '/bot/webhook', 503, X.problemOf(503, 'webhooks_disabled'), PROBLEM_CT),
    { method: 'DELETE', pattern: '/bot/webhook', status: 204 },
    ok('GET', '/health', 200, { status: 'ok', version: '0.1.0' }),
    ok('GET', '/metrics', 200, '# HELP x\nx 1\n', 'text/plain; version=0.0.4; charset=utf-8'),
    ok('GET', '/openapi.json', 200, { openapi: '3.1.0' }),
    ok('GET', '/asyncapi.json', 200, Buffer.from('{"asyncapi":"3.0.0"}')),
    ok('GET', '/games/:id', 500, X.problemOf(500, 'internal'), PROBLEM_CT),
    ok('PUT', '/games/:id', 405, X.problemOf(405, 'method_not_allowed'), PROBLEM_CT),
    ok('GET', '/no/such/route', 404, X.problemOf(404, 'not_found'), PROBLEM_CT),
    ok('POST', '/*', 404, X.problemOf(404, 'not_found'), PROBLEM_CT),
    { method: 'OPTIONS', pattern: '/bot/game/:id/move', status: 204, contentType: undefined, body: '' },
    ok('HEAD', '/games/:id', 200, ''),
    ok('HEAD', '/games/:id', 200, X.state),
    ok('HEAD', '/games/:id', 404, '', PROBLEM_CT),
  ];
  for (const info of good) c.check(info);
  t.same(c.mismatches(), [], 'no mismatches');
});

t.test('an undeclared status is caught', async (t) => {
  t.match(judgeOne(ok('GET', '/health', 201, { status: 'ok', version: '1' })), /status not declared/);
  t.match(judgeOne(ok('POST', '/bot/game/:id/resign', 200, {})), /status not declared/, 'resign is 202');
  t.match(judgeOne(ok('GET', '/bot/account', 409, X.problemOf(409, 'x'), PROBLEM_CT)), /status not declared/);
  t.match(judgeOne(ok('GET', '/games', 401, X.problemOf(401, 'x'), PROBLEM_CT)), /status not declared/, 'public routes never 401');
});

t.test('HEAD and OPTIONS follow the GET operation and the preflight rule', async (t) => {
  t.match(judgeOne(ok('HEAD', '/games/:id', 201, '')), /status not declared/);
  t.match(judgeOne(ok('HEAD', '/games/:id', 200, '', 'text/html')), /not declared/);
  t.match(judgeOne(ok('HEAD', '/bot/webhook', 200, { ...X.webhookInfo, secret: 'x' })), /additional properties/);
  t.match(judgeOne(ok('HEAD', '/bot/token', 200, '')), /method not declared/);
  t.match(judgeOne({ method: 'OPTIONS', pattern: '/games', status: 200, body: '' }), /preflight answers 204/);
  t.match(judgeOne({ method: 'OPTIONS', pattern: '/games', status: 204, body: 'x' }), /preflight has no body/);
  t.match(judgeOne({ method: 'OPTIONS', pattern: '/nope', status: 204, body: '' }), /no such route/);
});

t.test('an unknown route or method is caught', async (t) => {
  t.match(judgeOne(ok('GET', '/bot/nope', 200, {})), /no such route/);
  t.match(judgeOne(ok('PUT', '/games', 200, {})), /method not declared/);
  t.same(judge(ok('PUT', '/games', 405, X.problemOf(405, 'method_not_allowed'), PROBLEM_CT)), []);
});

t.test('a wrong body is caught', async (t) => {
  t.match(judgeOne(ok('POST', '/bot/anon', 201, { ...X.token, tokenHash: 'abc' })), /must NOT have additional properties/, 'a leaked field');
  t.match(judgeOne(ok('POST', '/bot/anon', 201, { token: 't', team: 'anon', name: 'x' })), /must have required property 'id'/);
  t.match(judgeOne(ok('GET', '/games/:id', 200, { ...X.state, version: 1.5 })), /body\/version must be integer/);
  t.match(judgeOne(ok('GET', '/games/:id', 200, { ...X.state, activeSeat: 'white' })), /activeSeat/);
  t.match(judgeOne(ok('GET', '/games/:id', 200, { ...X.state, status: { Ended: {} } })), /does not match/, 'Ended carries over');
  t.match(judgeOne(ok('GET', '/games/:id', 200, { ...X.state, legalMoves: { e2e4: { e4e5: 1 } } })), /legalMoves/, 'tree leaves are objects');
  t.match(judgeOne(ok('GET', '/games/:id', 200, { ...X.state, timeControl: { Blitz: {} } })), /does not match/);
  t.match(judgeOne(ok('POST', '/bot/game/:id/move', 200, X.refused)), /does not match/, 'a refusal is not a 200');
  t.match(judgeOne(ok('POST', '/bot/game/:id/move', 409, { applied: false, version: null, reason: 'nope' })), /reason/);
  t.match(judgeOne(ok('POST', '/bot/game/:id/move', 202, { applied: false })), /additional properties/, '202 is {}');
  t.match(judgeOne(ok('GET', '/games', 200, { games: Array(51).fill(X.publicGame), total: 51 })), /more than 50 items/);
  t.match(judgeOne(ok('GET', '/bots/:team/:name', 200, { ...X.profile, recent: [{ ...X.profile.recent[0], result: 'won' }] })), /result/);
  t.match(judgeOne(ok('GET', '/bots/:team/:name', 200, { ...X.profile, recent: [{ ...X.profile.recent[0], finishedAt: 'yesterday' }] })), /finishedAt/);
  t.match(judgeOne(ok('GET', '/bot/webhook', 200, { ...X.webhookInfo, stats: { ...X.webhookInfo.stats, latencyMsP50: 'fast' } })), /stats/);
  t.match(judgeOne(ok('GET', '/bot/webhook', 200, { ...X.webhookInfo, secret: 'x' })), /additional properties/, 'the secret is never returned again');
  t.match(judgeOne(ok('GET', '/lobby/seeks/:id', 200, { matched: true, gameId: null, seat: null })), /does not match/);
  t.match(judgeOne(ok('GET', '/bot/account', 401, { ...X.problemOf(401, 'Bad Code'), status: 401 }, PROBLEM_CT)), /code/);
  t.match(judgeOne(ok('GET', '/bot/account', 401, X.problemOf(403, 'forbidden'), PROBLEM_CT)), /problem status 403 differs/);
  t.match(judgeOne(ok('GET', '/health', 200, '{"status":"ok",')), /not JSON/);
  t.match(judgeOne(ok('GET', '/health', 200, undefined)), /no body/);
  t.match(judgeOne({ method: 'DELETE', pattern: '/bot/webhook', status: 204, body: '{}' }), /without a body/);
});

t.test('a wrong stream line is caught, by line', async (t) => {
  const bad = [JSON.stringify(X.accountEvents[0]), '', '{"GameStart":{}}', 'oops'].join('\n');
  const found = judge(ok('GET', '/bot/stream/event', 200, bad, NDJSON_CT));
  t.equal(found.length, 2);
  t.match(found[0], /line 2 does not match/);
  t.match(found[1], /line 3 is not JSON/);
  t.match(judgeOne(ok('GET', '/bot/game/stream/:id', 200, X.accountEvents, NDJSON_CT)), /line 1/, 'account events are not game events');
  t.match(judgeOne(ok('GET', '/bot/game/stream/:id', 200, [{ TurnPlayed: { v: 1, seat: 'White', moves: [] } }], NDJSON_CT)), /fenAfter/);
});

t.test('a wrong content type is caught', async (t) => {
  t.match(judgeOne(ok('GET', '/bot/account', 401, X.problemOf(401, 'x'), JSON_CT)), /content type application\/json not declared/);
  t.match(judgeOne(ok('GET', '/games', 200, { games: [], total: 0 }, 'text/html')), /content type text\/html not declared/);
  t.match(judgeOne(ok('POST', '/bot/game/:id/move', 409, X.refused, PROBLEM_CT)), /not declared/, 'the verdict is plain JSON');
  t.match(judgeOne(ok('GET', '/bot/stream/event', 200, '', JSON_CT)), /not declared/);
  t.match(judgeOne(ok('GET', '/health', 200, { status: 'ok', version: '1' }, null as unknown as string)), /no content type/);
});

t.test('mismatches accumulate across checks', async (t) => {
  const c = createConformance();
  c.check(ok('GET', '/health', 201, {}));
  c.check(ok('GET', '/health', 200, { status: 'ok', version: '1' }));
  c.check(ok('GET', '/nope', 200, {}));
  t.equal(c.mismatches().length, 2);
  t.equal(createConformance().mismatches().length, 0, 'each checker has its own list');
});
