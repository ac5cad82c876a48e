// The typed client's results and retries. A refused move (409 with its verdict) is a failure that
// keeps the verdict, and a move without a verdict yet (202) is a pending result; unwrap throws on
// both. Answers that waiting can mend (429, 5xx, none) are retried with back-off, honouring
// Retry-After, a bounded number of times, and only where a second copy is harmless (idempotent
// methods, a move carrying its version, a seed, a resignation). A per-call AbortSignal ends a call;
// the User-Agent is the caller's. Against the real server where it is the server's behaviour, else a
// small local HTTP server on 127.0.0.1 port 0 (test/helpers/fake-server.ts); waits are injected.
import t from 'tap';
import { Client, unwrap } from '../../src/client/index.js';
import { bootApp } from '../helpers/app.js';
import { fakeServer, json, problem } from '../helpers/fake-server.js';
import { until } from '../helpers/poll.js';

const GAME = {
  gameId: 'g1', status: 'Live', version: 3,
};

t.test('a refused move is a failure carrying its verdict; unwrap throws it (real server)', async (t) => {
  const app = await bootApp(t);
  const white = new Client({ url: app.base });
  const black = new Client({ url: app.base });
  white.token = unwrap(await white.mintAnonymous({ name: 'w' })).token;
  const b = unwrap(await black.mintAnonymous({ name: 'b' }));
  black.token = b.token;
  const ch = unwrap(await white.createChallenge({ team: b.team, name: b.name }));
  const { gameId } = unwrap(await black.acceptChallenge(ch.id));
  const r = await black.submitMove(gameId, { moves: ['a7a6'], version: 0 });
  t.match(r, { ok: false, status: 409, problem: { code: 'refused', status: 409, detail: 'not your turn' }, body: { applied: false, version: null, reason: 'not your turn' } });
  t.throws(() => unwrap(r), { name: 'ApiError', message: /409 refused: not your turn/ });
});

t.test('no verdict yet (202) is a pending result; unwrap throws a PendingError', async (t) => {
  const server = await fakeServer(t, { submitMove: (_r, res) => json(res, 202, {}) });
  const c = new Client({ url: server.base, token: 'x' });
  const r = await c.submitMove('g1', { moves: ['a2a3'], version: 4 });
  t.match(r, { ok: false, pending: true, status: 202 });
  t.throws(() => unwrap(r), { name: 'PendingError' });
  t.equal(server.count('submitMove'), 1, 'pending is not retried');
});

t.test('429 with Retry-After, then 200: retried after the server’s wait, no real waiting', async (t) => {
  let n = 0;
  const server = await fakeServer(t, {
    getGame: (_r, res) => {
      if (n++ === 0) {
        res.setHeader('retry-after', '2');
        return problem(res, 429, 'slow down', 'too_many_spectators');
      }
      json(res, 200, GAME);
    },
  });
  const waits: number[] = [];
  const c = new Client({ url: server.base, sleep: async (ms) => void waits.push(ms) });
  const r = await c.getGame('g1');
  t.match(r, { ok: true, status: 200, value: GAME });
  t.same(waits, [2000], 'waited what Retry-After asked (more than the 250 ms back-off)');
  t.equal(server.count('getGame'), 2);
});

t.test('5xx: retried a bounded number of times, the wait doubling', async (t) => {
  const server = await fakeServer(t, { getGame: (_r, res) => problem(res, 500, 'broken', 'internal') });
  const waits: number[] = [];
  const c = new Client({ url: server.base, sleep: async (ms) => void waits.push(ms) });
  t.match(await c.getGame('g1'), { ok: false, status: 500 });
  t.equal(server.count('getGame'), 3, 'three tries by default');
  t.same(waits, [250, 500]);
  const five = new Client({ url: server.base, retry: { attempts: 5, initialMs: 100, maxMs: 300 }, sleep: async (ms) => void waits.push(ms) });
  waits.length = 0;
  await five.getGame('g1');
  t.same(waits, [100, 200, 300, 300], 'the options bound tries and waits');
  const once = new Client({ url: server.base, retry: { attempts: 1 } });
  const before = server.count('getGame');
  await once.getGame('g1');
  t.equal(server.count('getGame') - before, 1, 'attempts 1: no retry');
});

t.test('a Retry-After longer than the client waits is handed back at once', async (t) => {
  const server = await fakeServer(t, {
    getGame: (_r, res) => {
      res.setHeader('retry-after', '60');
      problem(res, 503, 'later', 'game_unavailable');
    },
  });
  const waits: number[] = [];
  const r = await new Client({ url: server.base, sleep: async (ms) => void waits.push(ms) }).getGame('g1');
  t.match(r, { ok: false, status: 503, retryAfter: 60 });
  t.same(waits, []);
  t.equal(server.count('getGame'), 1);
});

t.test('only calls a second copy cannot harm are retried', async (t) => {
  let moves = 0;
  const server = await fakeServer(t, {
    submitMove: (_r, res) => (moves++ % 2 === 0 ? problem(res, 503, 'moving', 'game_unavailable') : json(res, 200, { applied: true, version: 5, reason: null })),
    register: (_r, res) => problem(res, 503, 'full', 'server_full'),
    createChallenge: (_r, res) => problem(res, 500, 'oops', 'internal'),
    resign: (_r, res) => (server.count('resign') === 1 ? problem(res, 502, 'gateway', 'bad_gateway') : json(res, 202, {})),
  });
  const c = new Client({ url: server.base, token: 'x', sleep: async () => {} });
  t.match(await c.submitMove('g1', { moves: ['a2a3'], version: 4 }), { ok: true, status: 200 }, 'a move with its version: retried');
  t.equal(server.count('submitMove'), 2);
  t.match(await c.submitMove('g1', { moves: ['a2a3'] }), { ok: false, status: 503 }, 'a move without a version: sent once');
  t.equal(server.count('submitMove'), 3);
  t.match(await c.register({ team: 'a', name: 'b' }), { ok: false, status: 503 });
  t.equal(server.count('register'), 1, 'a registration is sent once');
  await c.createChallenge({ team: 'a', name: 'b' });
  t.equal(server.count('createChallenge'), 1, 'a challenge is sent once');
  t.match(await c.resign('g1'), { ok: true, status: 202 }, 'a resignation (ignored once the game is over): retried');
  t.equal(server.count('resign'), 2);
});

t.test('a per-call AbortSignal ends the call, and the wait before a retry', async (t) => {
  let answer: (() => void) | undefined;
  const server = await fakeServer(t, {
    getGame: (_r, res) => void (answer = () => json(res, 200, GAME)),
    listGames: (_r, res) => problem(res, 503, 'later', 'server_full'),
  });
  const c = new Client({ url: server.base });
  const ac = new AbortController();
  const pending = c.getGame('g1', { signal: ac.signal });
  await until(() => answer, 'the request to arrive');
  ac.abort();
  t.match(await pending, { ok: false, status: 0, problem: { code: 'aborted' } });
  answer!();
  const ac2 = new AbortController();
  // The real sleep: aborted as soon as the client starts waiting before its retry.
  const r = c.listGames({ signal: ac2.signal });
  await until(() => (server.count('listGames') === 1 ? true : undefined), 'the first try');
  ac2.abort();
  t.match(await r, { ok: false, problem: { code: 'aborted' } }, 'the wait ended by the signal');
  t.equal(server.count('listGames'), 1, 'and no retry was sent');
});

t.test('the User-Agent is the client’s, or the caller’s', async (t) => {
  const agents: (string | undefined)[] = [];
  const server = await fakeServer(t, { health: (r, res) => (agents.push(r.req.headers['user-agent']), json(res, 200, { status: 'ok' })) });
  await new Client({ url: server.base }).health();
  await new Client({ url: server.base, userAgent: 'my-bot/1.2 (ops@example.org)' }).health();
  t.same(agents, ['dicechess-client', 'my-bot/1.2 (ops@example.org)']);
});
