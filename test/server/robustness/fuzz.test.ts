// Hostile requests against every route of the catalogue (src/wire/routes.ts), with fast-check: anything
// at all, wrong methods, strange and very long ids, clients that leave early, a flood of moves on one
// game. Whatever comes in (docs/API.md, "Errors and limits"): never a 5xx, never a crash, every error a problem JSON
// with the HTTP status inside; and afterwards the server still plays a normal game. Identity inputs are
// in fuzz-identity.test.ts, request bodies in fuzz-bodies.test.ts; the shared kit is hostile.ts.
//
// The server runs in this process (bootApp) on an LMDB store, so the leaderboard routes are live and
// every non-stream answer is also checked against the OpenAPI document.
import t from 'tap';
import fc from 'fast-check';
import { ROUTES } from '../../../src/wire/routes.js';
import { anonBot } from '../../helpers/app.js';
import { rawConnect } from '../../helpers/http.js';
import type { Tree } from '../../helpers/play.js';
import { lmdbApp, json, fixtures, weirdId, routeOf, ops, caseArb, property, uniqueMismatches, firstPath, stillPlays } from '../../helpers/hostile.js';
import { describe, send, violations, type Sent } from '../../helpers/robustness.js';

t.test('hostile requests against every route', async (t) => {
  const app = await lmdbApp(t);
  const f = await fixtures(app);

  await t.test('anything at all: methods, paths, queries, tokens, content types, bodies', async (t) => {
    const statuses = await property(t, 'every route', app, caseArb(f), (c) => c.req, 800);
    // The run reached past the front door: successes, every kind of refusal, and the size cap.
    for (const s of [200, 201, 400, 401, 404, 405, 413]) t.ok(statuses.has(s), `some requests were answered ${s}`);
  });

  await t.test('a wrong method on every known path is 405 with Allow naming exactly the methods it has', async (t) => {
    const byPath = new Map<string, Set<string>>();
    for (const r of ROUTES) byPath.set(r.path, (byPath.get(r.path) ?? new Set()).add(r.method));
    const failures: string[] = [];
    for (const [path, methods] of byPath) {
      const allow = new Set([...methods, ...(methods.has('GET') ? ['HEAD'] : []), 'OPTIONS']);
      for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD']) {
        if (allow.has(method)) continue;
        const req: Sent = { method, path: path.replace(/\{[^}]+\}/g, 'x'), headers: { authorization: `Bearer ${f.anonA.token}` } };
        const a = await send(app.port, req);
        const v = violations(req, a);
        if (a.status !== 405) v.push(`status ${a.status}`);
        const got = new Set((a.headers.allow ?? '').split(',').map((m) => m.trim()));
        if ([...allow].sort().join() !== [...got].sort().join()) v.push(`Allow ${a.headers.allow}, expected ${[...allow].join(', ')}`);
        if (v.length) failures.push(`${method} ${path}: ${v.join('; ')}`);
      }
    }
    t.same(failures, [], `${byPath.size} paths, every other method refused`);
  });

  await t.test('unknown and strange ids are 404 on every route that takes one', async (t) => {
    const arb = fc.record({ op: ops((r) => r.path.includes('{') && r.tag !== 'Webhooks'), id: weirdId });
    const toReq = ({ op, id }: { op: string; id: string }): Sent => {
      const route = routeOf(op);
      const headers: Record<string, string> = { authorization: `Bearer ${f.anonA.token}` };
      const body = route.operationId === 'submitMove' ? '{"moves":[]}' : route.request?.body ? '{}' : undefined;
      if (body) headers['content-type'] = 'application/json';
      const query = route.request?.query ? '?secret=whatever' : '';
      return { method: route.method, path: route.path.replace(/\{[^}]+\}/g, id) + query, headers, body };
    };
    await property(t, 'ids', app, arb, toReq, 400, (_x, a) => (a.status === 404 ? [] : [`expected 404, got ${a.status}`]));
  });

  await t.test('a client that leaves before its answer (a move, a stream) breaks nothing', async (t) => {
    const before = await json(app, 'GET', `/games/${f.gameHouse}`, {}, 200);
    for (let i = 0; i < 10; i++) {
      const c = await rawConnect(app.port);
      const b = JSON.stringify({ moves: ['a2a3'] });
      c.write(`POST /bot/game/${f.gameHouse}/move HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${f.anonA.token}\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`);
      c.destroy();
      const s = await rawConnect(app.port);
      s.write(`GET /bot/game/stream/${f.gameHouse} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${f.anonA.token}\r\n\r\n`);
      s.destroy();
    }
    t.equal((await app.req('GET', '/health')).status, 200);
    const after = await json(app, 'GET', `/games/${f.gameHouse}`, {}, 200);
    t.ok(after.version >= before.version, 'the game is still readable and never went back');
  });

  await stillPlays(t, app);

  t.same(uniqueMismatches(app), [], 'every answer matched the OpenAPI document');
});

t.test('very long ids are 404 on every route that takes one (LMDB store)', async (t) => {
  const app = await lmdbApp(t);
  const bot = await anonBot(app, 'long-ids');
  const ids: [string, string][] = [
    ['4,092 bytes', 'a'.repeat(4092)],
    ['4,093 bytes', 'a'.repeat(4093)],
    ['10,000 bytes', 'b'.repeat(10_000)],
    ['1,400 euro signs (4,200 bytes of UTF-8)', '%E2%82%AC'.repeat(1400)],
  ];
  for (const route of ROUTES.filter((r) => r.path.includes('{') && r.tag !== 'Webhooks')) {
    for (const [what, id] of ids) {
      const headers: Record<string, string> = { authorization: `Bearer ${bot.token}` };
      const body = route.operationId === 'submitMove' ? '{"moves":[]}' : route.request?.body ? '{}' : undefined;
      if (body) headers['content-type'] = 'application/json';
      const query = route.request?.query ? '?secret=whatever' : '';
      const req: Sent = { method: route.method, path: route.path.replace(/\{[^}]+\}/g, id) + query, headers, body };
      const a = await send(app.port, req);
      t.equal(a.status, 404, `${route.method} ${route.path} with an id of ${what}: 404 (got ${a.status})`);
    }
  }
  t.equal((await app.req('GET', '/health')).status, 200);
});

t.test('a flood of concurrent moves on one game: every answer is a verdict or a 429, and play goes on', async (t) => {
  // On LMDB every refusal is a durable write, so a one-place mailbox really fills up.
  const app = await lmdbApp(t, { 'games.mailboxSize': 1 });
  const a = await anonBot(app, 'flood-a');
  const b = await anonBot(app, 'flood-b');
  const ch = await json(app, 'POST', '/bot/challenge', { token: a.token, body: { team: 'anon', name: b.name } }, 201);
  const gameId = (await json(app, 'POST', `/bot/challenge/${ch.id}/accept`, { token: b.token }, 201)).gameId as string;
  let state: any;
  for (let i = 0; i < 200 && !state?.dicePending; i++) state = await json(app, 'GET', `/games/${gameId}`, {}, 200);
  const idle = state.activeSeat === 'White' ? b.token : a.token;
  const reqs: Sent[] = Array.from({ length: 200 }, (_, i) => ({
    method: 'POST',
    path: `/bot/game/${gameId}/move`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${i % 2 ? idle : 'nobody'}` },
    body: JSON.stringify({ moves: ['e2e4'] }),
  }));
  const answers = await Promise.all(reqs.map((r) => send(app.port, r)));
  const bad = answers.flatMap((ans, i) => violations(reqs[i], ans).map((v) => `${v}: ${describe(reqs[i], ans)}`));
  t.same(bad, [], 'every answer keeps the contract');
  const statuses = [...new Set(answers.map((x) => x.status))].sort();
  t.ok(statuses.every((s) => [401, 409, 429].includes(s)), `statuses ${statuses.join(', ')}`);
  t.ok(statuses.includes(429), 'the game was busy for some of them (429 game_busy)');
  const now = await json(app, 'GET', `/games/${gameId}`, {}, 200);
  t.ok(now.status.Active, 'the game is still on');
  const mover = now.activeSeat === 'White' ? a.token : b.token;
  const tree: Tree = now.legalMoves ?? (await json(app, 'GET', `/games/${gameId}/moves`, {}, 200)).legalMoves;
  const moves = firstPath(tree);
  if (moves.length) t.equal((await app.req('POST', `/bot/game/${gameId}/move`, { token: mover, body: { moves } })).status, 200, 'the mover still moves');
  t.same(uniqueMismatches(app), [], 'every answer (429 included) is declared in the OpenAPI document');
});
