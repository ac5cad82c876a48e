// The kit of the hostile-request tests (fuzz*.test.ts): an in-process server on an LMDB store, the
// fixtures every property needs (bots, tokens, games, a challenge, seeks), fast-check arbitraries for
// requests against the route catalogue, a property runner that checks every answer against the
// contract, and the closing check that the server still plays a normal game.
import type { Test } from 'tap';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbStore } from '../../src/store/lmdb.js';
import { ROUTES, type RouteSpec } from '../../src/wire/routes.js';
import { anonBot, bootApp, type TestApp } from './app.js';
import type { Tree } from './play.js';
import { describe, headerSafe, pct, send, violations, type Answer, type Sent } from './robustness.js';

export const CAP = 64 * 1024;
const RAISED_LIMITS = { 'limits.anonMintsPerHour': 1_000_000, 'limits.registrationsPerHour': 1_000_000 };

export async function lmdbApp(t: Test, overrides: Record<string, unknown> = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-fuzz-'));
  const opened = await LmdbStore.open(dir);
  if (!opened.ok) throw new Error(opened.error);
  const app = await bootApp(t, { store: opened.value, overrides: { ...RAISED_LIMITS, ...overrides } });
  t.teardown(async () => {
    await app.server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return app;
}

interface Fixtures {
  anonA: { token: string; name: string };
  anonB: { token: string; name: string };
  reg: string;
  rotatedOld: string;
  rotatedNew: string;
  seatToken: string;
  gameAB: string;
  gameHouse: string;
  gameGuest: string;
  challenge: string;
  seek: { seekId: string; secret: string };
  guestSeek: { seekId: string; secret: string; guestId: string };
}

export async function json(app: TestApp, method: string, path: string, opts: { token?: string; body?: unknown }, want: number): Promise<any> {
  const r = await app.req(method, path, opts);
  if (r.status !== want) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
}

async function waitForGame(app: TestApp, token: string, except: Set<string>): Promise<string> {
  for (let i = 0; i < 500; i++) {
    const games = (await json(app, 'GET', '/bot/games', { token }, 200)) as { games: { gameId: string }[] };
    const g = games.games.find((x) => !except.has(x.gameId));
    if (g) return g.gameId;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error('no new game appeared');
}

export async function fixtures(app: TestApp): Promise<Fixtures> {
  const anonA = await anonBot(app, 'fuzz-a');
  const anonB = await anonBot(app, 'fuzz-b');
  const reg = (await json(app, 'POST', '/bot/register', { body: { team: 'fuzz', name: 'reg' } }, 201)).token as string;
  const rotatedOld = (await json(app, 'POST', '/bot/register', { body: { team: 'fuzz', name: 'rot' } }, 201)).token as string;
  const rotatedNew = (await json(app, 'POST', '/bot/token', { token: rotatedOld }, 200)).token as string;
  const ch = await json(app, 'POST', '/bot/challenge', { token: anonA.token, body: { team: 'anon', name: anonB.name } }, 201);
  const gameAB = (await json(app, 'POST', `/bot/challenge/${ch.id}/accept`, { token: anonB.token }, 201)).gameId as string;
  await json(app, 'POST', '/bot/challenge', { token: anonA.token, body: { team: 'house', name: 'random' } }, 201);
  const gameHouse = await waitForGame(app, anonA.token, new Set([gameAB]));
  const challenge = (await json(app, 'POST', '/bot/challenge', { token: anonB.token, body: { team: 'fuzz', name: 'reg' } }, 201)).id as string;
  const seek = await json(app, 'POST', '/bot/seeks', { token: reg }, 201);
  const guestSeek = await json(app, 'POST', '/lobby/seeks', {}, 201);
  const bSeek = await json(app, 'POST', '/bot/seeks', { token: anonB.token }, 201);
  const taken = await json(app, 'POST', `/lobby/seeks/${bSeek.seekId}/accept`, {}, 201);
  return {
    anonA, anonB, reg, rotatedOld, rotatedNew, seatToken: taken.seatToken, gameAB, gameHouse, gameGuest: taken.gameId,
    challenge, seek, guestSeek,
  };
}

/** A minimal valid body per route (what the hostile variants start from). */
export function validBody(route: RouteSpec, f: Fixtures): Record<string, unknown> | undefined {
  switch (route.operationId) {
    case 'register': return { team: 'fuzzed', name: 'bot' };
    case 'createChallenge': return { team: 'house', name: 'random', timeControl: { Unlimited: {} } };
    case 'createSeek': case 'createGuestSeek': return { timeControl: { Fischer: { initialSeconds: 60, incrementSeconds: 1 } } };
    case 'guestAcceptSeek': return { guestId: f.guestSeek.guestId };
    case 'submitSeed': return { seed: 'a-perfectly-good-seed' };
    case 'submitMove': return { moves: ['e2e4'] };
    case 'registerWebhook': return { url: 'https://example.org/hook' };
    default: return undefined;
  }
}

/** Ids that exist, and ids that are merely strange. */
const WEIRD_IDS = [
  '..', '.', '%2e%2e', '%2E%2E%2F%2E%2E', '%2F', '%2fetc%2fpasswd', '%', '%zz', '%0', '%00', '%0A', '%0D%0A', '%FF%FE',
  '%C0%AE', '%E2%80%AE', '-', '_', '~', 'null', 'undefined', '__proto__', 'constructor', 'hasOwnProperty', 'toString',
  '0', '-1', '1e309', 'NaN', "%27%20OR%201%3D1--", '%3Cscript%3E', '%24%7Bx%7D', '%F0%9F%98%80', '%E2%82%AC', 'a'.repeat(2000),
  'A'.repeat(16), 'guest:x', 'bot:team:fuzz:reg', '%20', '+', '*', '!', "'", '(', ')',
];
const RAW_SAFE = fc.constantFrom(...[...Array(0xff - 0x20).keys()].map((i) => String.fromCharCode(i + 0x21)).filter((c) => !'/?#%'.includes(c)));
export const weirdId = fc.oneof(
  fc.constantFrom(...WEIRD_IDS),
  fc.string({ unit: 'binary', maxLength: 40 }).map(pct),
  fc.string({ unit: RAW_SAFE, minLength: 1, maxLength: 20 }),
);

const CONTENT_TYPES = [
  undefined, 'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', '',
  'application/x-www-form-urlencoded', 'application/problem+json', 'application/vnd.api+json', 'multipart/form-data; boundary=x',
  'application/json; charset=utf-16', 'garbage', 'application/jsonx', 'json',
];

export const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
export const deepObject = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

function bodyArb(route: RouteSpec, f: Fixtures, ownMethod: boolean): fc.Arbitrary<string | Buffer | undefined> {
  const valid = validBody(route, f);
  const fields = valid ? Object.keys(valid) : ['team', 'name', 'timeControl', 'moves', 'seed', 'guestId', 'url'];
  const retyped = fc
    .record({ keep: fc.constant(valid ?? {}), values: fc.dictionary(fc.constantFrom(...fields), fc.jsonValue({ maxDepth: 3 }), { maxKeys: fields.length }) })
    .map(({ keep, values }) => JSON.stringify({ ...keep, ...values }));
  const options: fc.Arbitrary<string | Buffer | undefined>[] = [
    fc.constant(undefined),
    fc.constant(valid === undefined ? undefined : JSON.stringify(valid)),
    retyped,
    fc.json({ maxDepth: 4 }),
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
    fc.constantFrom(
      '', ' ', 'null', '[]', '{}', '"x"', '1e999', '-0', 'true', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}',
      '\uFEFF{}', '{"a":1,"a":2}', '{"moves":["e2e4"],"moves":null}', '{"team":"a"', '{"team":"a",}', "{'team':'a'}", 'NaN', '[1,2',
      '{"timeControl":{"Unlimited":{},"Fischer":{"initialSeconds":1,"incrementSeconds":0}}}', '{"timeControl":{"Fischer":{"initialSeconds":1e308,"incrementSeconds":-0}}}',
      '{"moves":' + JSON.stringify(Array(17).fill('e2e4')) + '}', '{"seed":' + JSON.stringify('s'.repeat(257)) + '}',
      deep(5000), deepObject(3000),
    ),
  ];
  // Bodies over the cap only where the route takes a body: a body-less route answering 413 is a gap
  // in the document that a test of its own shows (see 'the 64 KiB cap' below).
  if (route.request?.body && ownMethod) options.push(fc.constantFrom('x'.repeat(CAP + 1), JSON.stringify({ pad: 'y'.repeat(CAP) })));
  return fc.oneof(...options);
}

function pathArb(route: RouteSpec, f: Fixtures): fc.Arbitrary<string> {
  const known = [f.gameAB, f.gameHouse, f.gameGuest, f.challenge, f.seek.seekId, f.guestSeek.seekId, 'fuzz', 'reg'];
  const param = fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...known) }, { weight: 2, arbitrary: weirdId });
  const parts = route.path.split(/(\{[^}]+\})/);
  return fc.tuple(...parts.map((p) => (p.startsWith('{') ? param : fc.constant(p)))).map((xs) => xs.join(''));
}

function queryArb(f: Fixtures): fc.Arbitrary<string> {
  const value = fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }).map(pct), fc.constantFrom('', '%', '%zz', '%FF', '+', 'a'.repeat(3000), f.seek.secret, f.guestSeek.secret));
  return fc.oneof(
    fc.constant(''),
    value.map((v) => `?secret=${v}`),
    value.map((v) => `?name=${v}`),
    fc.array(fc.tuple(fc.constantFrom('secret', 'name', 'x', '', '__proto__', 'constructor'), value), { maxLength: 4 })
      .map((kv) => '?' + kv.map(([k, v]) => `${k}=${v}`).join('&')),
    fc.constantFrom('?', '?&&==', '?secret', '?secret=a&secret=b', '?=x', '?%', '?' + 'q'.repeat(5000)),
  );
}

function authArb(f: Fixtures): fc.Arbitrary<string | undefined> {
  const tokens = [f.anonA.token, f.anonB.token, f.reg, f.rotatedNew, f.seatToken];
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(...tokens).map((tok) => `Bearer ${tok}`),
    fc.constantFrom('', 'Bearer', 'Bearer ', 'Bearer    ', 'Basic Zm9vOmJhcg==', `Bearer ${f.rotatedOld}`, 'Bearer ' + 'x'.repeat(10_000)),
    fc.tuple(fc.constantFrom(...tokens), fc.nat({ max: 40 })).map(([tok, n]) => `Bearer ${tok.slice(0, n)}`),
    fc.string({ unit: 'binary', maxLength: 60 }).map((s) => headerSafe(`Bearer ${s}`)),
  );
}

const BY_OP = new Map(ROUTES.map((r) => [r.operationId, r]));
export const routeOf = (op: string): RouteSpec => BY_OP.get(op)!;
/** Operation ids of routes (fast-check prints these in counterexamples, not whole route objects). */
export const ops = (filter: (r: RouteSpec) => boolean = () => true) => fc.constantFrom(...ROUTES.filter(filter).map((r) => r.operationId));

interface Case {
  op: string;
  req: Sent;
}

export function caseArb(f: Fixtures): fc.Arbitrary<Case> {
  return ops().chain((op) => {
    const route = routeOf(op);
    const methodArb = fc.oneof({ weight: 4, arbitrary: fc.constant(route.method as string) }, fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'));
    return methodArb.chain((method) => fc
      .record({
        method: fc.constant(method),
        path: pathArb(route, f),
        query: queryArb(f),
        auth: authArb(f),
        contentType: fc.constantFrom(...CONTENT_TYPES),
        body: bodyArb(route, f, method === route.method),
        origin: fc.option(fc.constantFrom('https://evil.example', 'null', '*', headerSafe('https://ü.example')), { nil: undefined }),
      })
      .map(({ method, path, query, auth, contentType, body, origin }) => {
        const headers: Record<string, string> = {};
        if (auth !== undefined) headers.authorization = auth;
        if (contentType !== undefined && body !== undefined) headers['content-type'] = contentType;
        if (origin !== undefined) headers.origin = origin;
        return { op, req: { method, path: path + query, headers, body } };
      }));
  });
}

/** Runs a property over requests, failing with the request and its answer on the first violation. */
export async function property<T>(
  t: Test, name: string, app: TestApp, arb: fc.Arbitrary<T>, toReq: (x: T) => Sent, numRuns: number, check?: (x: T, a: Answer) => string[],
): Promise<Map<number, number>> {
  let count = 0;
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(arb, async (x) => {
      const req = toReq(x);
      const a = await send(app.port, req);
      const bad = [...violations(req, a, { mayCut: (req.body?.length ?? 0) > CAP }), ...(check?.(x, a) ?? [])];
      count++;
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      if (bad.length) throw new Error(`${bad.join('; ')}\n  ${describe(req, a)}`);
    }),
    { numRuns, endOnFailure: false },
  );
  t.pass(`${name}: ${count} requests, every answer kept the contract`);
  t.comment(`${name}: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`);
  const health = await app.req('GET', '/health');
  t.equal(health.status, 200, `${name}: the server still answers /health`);
  return statuses;
}

export const uniqueMismatches = (app: TestApp): string[] => [...new Set(app.conformance.mismatches().map((m) => m.split(': body')[0]))];

/** The first root-to-leaf path of a legal-move tree: a legal turn without choosing. */
export function firstPath(tree: Tree): string[] {
  const moves: string[] = [];
  for (let n: Tree = tree; Object.keys(n).length; n = n[moves[moves.length - 1]]) moves.push(Object.keys(n)[0]);
  return moves;
}

/** After the hostile requests, the same server still plays: a bot challenges the house and moves. */
export async function stillPlays(t: Test, app: TestApp): Promise<void> {
  await t.test('the server still plays a normal game afterwards', async (t) => {
  const bot = await anonBot(app, 'after-fuzz');
  t.equal((await app.req('POST', '/bot/challenge', { token: bot.token, body: { team: 'house', name: 'random' } })).status, 201);
  const gameId = await waitForGame(app, bot.token, new Set());
  const stream = await app.stream(`/bot/game/stream/${gameId}`, bot.token);
  t.teardown(() => stream.destroy());
  let moved = false;
  for (let i = 0; i < 50 && !moved; i++) {
    const line = await stream.next();
    if (line === undefined) break;
    if (line === '') continue;
    const ev = JSON.parse(line);
    const pending = ev.Snapshot?.state.dicePending && ev.Snapshot.state.activeSeat === 'White' ? ev.Snapshot.state.legalMoves : ev.DiceRolled?.seat === 'White' ? ev.DiceRolled.legalMoves : undefined;
    if (pending === undefined) continue;
    const tree: Tree = pending ?? (await json(app, 'GET', `/games/${gameId}/moves`, {}, 200)).legalMoves;
    if (!Object.keys(tree).length) continue;
    const moves = firstPath(tree);
    const v = await app.req('POST', `/bot/game/${gameId}/move`, { token: bot.token, body: { moves } });
    t.equal(v.status, 200, 'a move is applied');
    moved = true;
  }
  t.ok(moved, 'the bot got to move');
  });
}
