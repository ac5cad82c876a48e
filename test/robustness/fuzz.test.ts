// Malformed and hostile requests against every route of the catalogue (src/wire/routes.ts), with
// fast-check: wrong methods, bad JSON, huge and deeply nested bodies, wrong types for every field,
// unicode and control characters in slugs, names and query strings, bad and truncated tokens, weird
// ids, and slow or abandoned uploads over raw sockets. Whatever comes in (CONTRACT.md "Errors"): never
// a 5xx, never a crash, every error a problem JSON with the HTTP status inside, 401 with
// WWW-Authenticate, 429 with Retry-After; and afterwards the server still plays a normal game.
//
// The server runs in this process (bootApp) on an LMDB store, so the leaderboard routes are live and
// every non-stream answer is also checked against the OpenAPI document.
import t from 'tap';
import type { Test } from 'tap';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbStore } from '../../src/store/lmdb.js';
import { ROUTES, type RouteSpec } from '../../src/wire/routes.js';
import { anonBot, bootApp, type TestApp } from '../helpers/app.js';
import { rawConnect } from '../helpers/http.js';
import type { Tree } from '../helpers/play.js';
import { describe, headerSafe, parse, pct, send, violations, type Answer, type Sent } from './support.js';

const CAP = 64 * 1024;
const RAISED_LIMITS = { 'limits.anonMintsPerHour': 1_000_000, 'limits.registrationsPerHour': 1_000_000 };

async function lmdbApp(t: Test, overrides: Record<string, unknown> = {}): Promise<TestApp> {
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

async function json(app: TestApp, method: string, path: string, opts: { token?: string; body?: unknown }, want: number): Promise<any> {
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

async function fixtures(app: TestApp): Promise<Fixtures> {
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
function validBody(route: RouteSpec, f: Fixtures): Record<string, unknown> | undefined {
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
const weirdId = fc.oneof(
  fc.constantFrom(...WEIRD_IDS),
  fc.string({ unit: 'binary', maxLength: 40 }).map(pct),
  fc.string({ unit: RAW_SAFE, minLength: 1, maxLength: 20 }),
);

const CONTENT_TYPES = [
  undefined, 'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', '',
  'application/x-www-form-urlencoded', 'application/problem+json', 'application/vnd.api+json', 'multipart/form-data; boundary=x',
  'application/json; charset=utf-16', 'garbage', 'application/jsonx', 'json',
];

const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

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
const routeOf = (op: string): RouteSpec => BY_OP.get(op)!;
/** Operation ids of routes (fast-check prints these in counterexamples, not whole route objects). */
const ops = (filter: (r: RouteSpec) => boolean = () => true) => fc.constantFrom(...ROUTES.filter(filter).map((r) => r.operationId));

interface Case {
  op: string;
  req: Sent;
}

function caseArb(f: Fixtures): fc.Arbitrary<Case> {
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
async function property<T>(
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

const uniqueMismatches = (app: TestApp): string[] => [...new Set(app.conformance.mismatches().map((m) => m.split(': body')[0]))];

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

  await t.test('bearer tokens: only an exact, live token authenticates', async (t) => {
    const tok = f.anonA.token;
    const good = [`Bearer ${tok}`, `bearer ${tok}`, `BEARER ${tok}`, `Bearer   ${tok}`, `Bearer ${tok}  `];
    const bad = fc.oneof(
      fc.constantFrom(
        undefined, '', 'Bearer', 'Bearer ', 'Bearer      ', 'Basic Zm9vOmJhcg==', tok, `Bearer${tok}`, `Bearer\t${tok}`, `Bearer ${tok} ${tok}`,
        `Bearer ${tok} x`, `Bearer ${tok}x`, `Bearer x${tok}`, `Bearer "${tok}"`, `Token ${tok}`, `Bearer ${tok.toUpperCase()}`,
        `Bearer ${f.rotatedOld}`, `Bearer ${'x'.repeat(10_000)}`, `Bearer ${tok.slice(0, -1)}`, `Bearer ${tok.slice(0, 4)}`, `Bearer dcb_`,
        `Bearer ${tok.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`,
      ),
      fc.nat({ max: tok.length - 1 }).map((n) => `Bearer ${tok.slice(0, n)}`),
      fc.string({ unit: 'binary', maxLength: 50 }).map((s) => headerSafe(`Bearer ${s}`)),
    );
    const arb = fc.record({
      op: ops((r) => r.auth !== 'public'),
      header: fc.oneof(fc.constantFrom(...good).map((h) => ({ h, ok: true })), bad.map((h) => ({ h, ok: false }))),
      seat: fc.boolean(),
    });
    const toReq = ({ op, header, seat }: { op: string; header: { h: string | undefined }; seat: boolean }): Sent => {
      const route = routeOf(op);
      const headers: Record<string, string> = {};
      const h = seat ? `Bearer ${f.seatToken}` : header.h;
      if (h !== undefined) headers.authorization = h;
      return { method: route.method, path: route.path.replace(/\{[^}]+\}/g, 'NoSuchThing00000'), headers };
    };
    await property(t, 'tokens', app, arb, toReq, 400, ({ op, header, seat }, a) => {
      const route = routeOf(op);
      if (route.tag === 'Webhooks') return a.status === 503 ? [] : [`a webhook route answered ${a.status}, not 503`];
      const ok = seat ? route.auth === 'seatOrBearer' : header.ok;
      if (!ok && a.status !== 401) return [`expected 401, got ${a.status}`];
      if (ok && a.status === 401) return ['a valid token was refused'];
      return [];
    });
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

  await t.test('POST /bot/anon?name=: any label, unicode and control characters included, is slugged as the contract says', async (t) => {
    const slug = (label: string | null): string => {
      if (!label) return 'bot';
      const s = label.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 20).replace(/-+$/, '');
      return s || 'bot';
    };
    const raw = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }).map((s) => `name=${pct(s)}`),
      fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => `name=${pct(s)}`),
      fc.constantFrom('', 'name', 'name=', 'name=%', 'name=%zz', 'name=%FF%FE', 'name=a+b', 'name=%00%01%1F', 'name=a&name=b', `name=${'Z'.repeat(500)}`,
        'name=--a--', 'name=%E2%80%AE%E2%80%8B', 'name=K%E2%84%AA', 'name=ÀÉÎ', 'name=%20%20', 'name=a%0Ab', 'name=' + pct('İstanbul')),
    );
    await property(t, 'anon names', app, raw, (q) => ({ method: 'POST', path: `/bot/anon?${q}`, headers: {} }), 250, (q, a) => {
      if (a.status !== 201) return [`expected 201, got ${a.status}`];
      const body = parse(a.text) as { token: string; team: string; name: string; id: string };
      const want = slug(new URLSearchParams(q).get('name'));
      const out: string[] = [];
      if (!new RegExp(`^${want}-[0-9a-f]{8}$`).test(body.name)) out.push(`name ${JSON.stringify(body.name)}, expected ${want}-<8 hex>`);
      if (body.team !== 'anon' || body.id !== `bot:team:anon:${body.name}`) out.push(`team/id ${body.team} ${body.id}`);
      if (!/^dcb_[A-Za-z0-9_-]{32}$/.test(body.token)) out.push(`token ${body.token}`);
      return out;
    });
  });

  await t.test('POST /bot/register: slugs exactly as the spec says, reserved teams, taken pairs', async (t) => {
    const SLUG = /^[a-z0-9][a-z0-9-]*$/;
    const valid = (s: unknown): boolean => typeof s === 'string' && s.length <= 32 && SLUG.test(s);
    const slugish = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,33}$/);
    const field = fc.oneof(
      { weight: 3, arbitrary: slugish },
      fc.constantFrom('anon', 'house', 'ANON', 'Team', '-lead', 'trail-', 'a'.repeat(32), 'a'.repeat(33), '', ' ', 'a b', 'a\n', '\na', 'a\u0000', 'ａｂｃ',
        'é', 'a_b', 'a.b', 'a/b', '0', '--', 'x\u200b', 'k\u212a'),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const taken = new Set<string>(['fuzz reg', 'fuzz rot']);
    const arb = fc.record({ team: field, name: field });
    const toReq = (b: { team: unknown; name: unknown }): Sent => ({
      method: 'POST', path: '/bot/register', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b),
    });
    await property(t, 'registrations', app, arb, toReq, 300, ({ team, name }, a) => {
      let want: number;
      if (!valid(team) || !valid(name)) want = 400;
      else if (team === 'anon' || team === 'house') want = 400;
      else want = taken.has(`${team as string} ${name as string}`) ? 409 : 201;
      if (a.status === 201) taken.add(`${team as string} ${name as string}`);
      return a.status === want ? [] : [`expected ${want}, got ${a.status}`];
    });
  });

  await t.test('wrong types for every field of every body are 400 with a detail naming the field', async (t) => {
    const ctx: Record<string, { path: string; token?: string; valid: Record<string, unknown> }> = {
      register: { path: '/bot/register', valid: { team: 'typed', name: 'bot' } },
      createChallenge: { path: '/bot/challenge', token: f.anonA.token, valid: { team: 'house', name: 'random' } },
      createSeek: { path: '/bot/seeks', token: f.anonB.token, valid: {} },
      createGuestSeek: { path: '/lobby/seeks', valid: {} },
      guestAcceptSeek: { path: `/lobby/seeks/${f.seek.seekId}/accept`, valid: {} },
      submitMove: { path: `/bot/game/${f.gameAB}/move`, token: f.anonA.token, valid: { moves: ['e2e4'] } },
    };
    const wrong: Record<string, unknown[]> = {
      team: [0, 1.5, true, null, [], {}, ['house'], { house: 1 }],
      name: [0, -1, false, null, [], {}, ['random']],
      guestId: [0, true, null, [], {}, '', 'g'.repeat(65)],
      moves: ['e2e4', 0, true, null, {}, [1], [null], [[]], [{}], ['e2e4', 5], Array(17).fill('e2e4'), ['e2e4e2e4e']],
      timeControl: [
        'Fischer', 0, true, null, [], {}, { Fischer: {} }, { Fischer: { initialSeconds: '600', incrementSeconds: 10 } },
        { Fischer: { initialSeconds: 600.5, incrementSeconds: 10 } }, { Fischer: { initialSeconds: 0, incrementSeconds: 0 } },
        { Fischer: { initialSeconds: 86_401, incrementSeconds: 0 } }, { Fischer: { initialSeconds: 60, incrementSeconds: 601 } },
        { Fischer: { initialSeconds: 60, incrementSeconds: -1 } }, { PerMove: { secondsPerMove: 0 } }, { PerMove: { secondsPerMove: 86_401 } },
        { SuddenDeath: { initialSeconds: -1 } }, { SuddenDeath: {} }, { Unlimited: {}, PerMove: { secondsPerMove: 5 } }, { Blitz: {} },
        { Unlimited: null }, { Unlimited: [] }, { Unlimited: 1 }, { Fischer: null }, { Fischer: { initialSeconds: 1e400, incrementSeconds: 0 } },
      ],
    };
    const fieldsOf: Record<string, string[]> = {
      register: ['team', 'name'], createChallenge: ['team', 'name', 'timeControl'], createSeek: ['timeControl'],
      createGuestSeek: ['timeControl'], guestAcceptSeek: ['guestId'], submitMove: ['moves'],
    };
    const failures: string[] = [];
    let n = 0;
    for (const [op, fields] of Object.entries(fieldsOf)) {
      const c = ctx[op];
      for (const field of fields) {
        for (const value of wrong[field]) {
          const body = JSON.stringify({ ...c.valid, [field]: value }).replace('1e+400', '1e400');
          const req: Sent = { method: 'POST', path: c.path, headers: { 'content-type': 'application/json', ...(c.token ? { authorization: `Bearer ${c.token}` } : {}) }, body };
          const a = await send(app.port, req);
          n++;
          const p = parse(a.text) as { detail?: string; code?: string } | undefined;
          const v = violations(req, a);
          if (a.status !== 400) v.push(`expected 400, got ${a.status}`);
          else if (!p?.detail?.startsWith(field)) v.push(`detail ${JSON.stringify(p?.detail)} does not name ${field}`);
          if (v.length) failures.push(`${op}.${field}=${JSON.stringify(value).slice(0, 60)}: ${v.join('; ')}`);
        }
      }
    }
    // The required fields missing altogether.
    for (const [op, path, body, field] of [
      ['register', '/bot/register', { name: 'x' }, 'team'], ['register', '/bot/register', { team: 'x' }, 'name'],
      ['createChallenge', '/bot/challenge', { name: 'random' }, 'team'], ['submitMove', `/bot/game/${f.gameAB}/move`, { move: ['e2e4'] }, 'moves'],
    ] as const) {
      const c = ctx[op];
      const req: Sent = { method: 'POST', path, headers: { 'content-type': 'application/json', ...(c.token ? { authorization: `Bearer ${c.token}` } : {}) }, body: JSON.stringify(body) };
      const a = await send(app.port, req);
      n++;
      const detail = (parse(a.text) as { detail?: string } | undefined)?.detail ?? '';
      if (a.status !== 400 || !detail.startsWith(`${field}: is required`)) failures.push(`${op} without ${field}: ${a.status} ${detail}`);
    }
    // The seed route judges its body itself: whatever the seed looks like, 202 and never an error.
    for (const value of [0, null, [], {}, 'short', 's'.repeat(257), ['a-perfectly-good-seed'], true]) {
      const req: Sent = { method: 'POST', path: `/bot/game/${f.gameAB}/seed`, headers: { 'content-type': 'application/json', authorization: `Bearer ${f.anonA.token}` }, body: JSON.stringify({ seed: value }) };
      const a = await send(app.port, req);
      n++;
      if (a.status !== 202 || a.text !== '{}') failures.push(`seed=${JSON.stringify(value)}: ${a.status} ${a.text}`);
    }
    t.same(failures, [], `${n} mistyped bodies`);
  });

  await t.test('deeply nested JSON within the cap is a quick 400, at the top level and inside fields', async (t) => {
    const tokenFor = (r: RouteSpec): string | undefined => (r.auth === 'public' ? undefined : f.anonA.token);
    const bodyRoutes = ROUTES.filter((r) => r.request?.body && r.tag !== 'Webhooks');
    const depth = 32_000; // 64,000 bytes of brackets: just under the 64 KiB cap
    let count = 0;
    const failures: string[] = [];
    for (const route of bodyRoutes) {
      const valid = validBody(route, f) ?? {};
      // Nested at the top, and in each field the route reads (unknown fields are ignored by contract).
      const bodies = [deep(depth)];
      for (const field of Object.keys(valid)) {
        const shell = JSON.stringify({ ...valid, [field]: '@' });
        bodies.push(shell.replace('"@"', deep(Math.floor((CAP - shell.length) / 2) - 1)));
        bodies.push(shell.replace('"@"', deepObject(Math.floor((CAP - shell.length) / 6) - 1)));
        if (field === 'timeControl') bodies.push(JSON.stringify({ timeControl: { Fischer: '@' } }).replace('"@"', deep(30_000)));
      }
      for (const body of bodies) {
        count++;
        if (Buffer.byteLength(body) > CAP) failures.push(`${route.operationId}: test body over the cap`);
        const path = route.path.replace('{id}', route.tag === 'Lobby' ? f.seek.seekId : f.gameAB);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        const tok = tokenFor(route);
        if (tok) headers.authorization = `Bearer ${tok}`;
        const req: Sent = { method: route.method, path, headers, body };
        const a = await send(app.port, req);
        const want = route.request?.lenient ? 202 : 400;
        const v = violations(req, a);
        if (a.status !== want) v.push(`expected ${want}, got ${a.status} ${a.text.slice(0, 120)}`);
        if (v.length) failures.push(`${route.operationId} ${body.slice(0, 30)}…: ${v.join('; ')}`);
      }
    }
    t.same(failures, [], `${count} deeply nested bodies, every one within the cap`);
    t.equal((await app.req('GET', '/health')).status, 200);
  });

  await t.test('bodies over 64 KiB are 413, with or without a Content-Length; 64 KiB exactly is read', async (t) => {
    const over = deep(100_000); // 10^5 nested arrays, 200 kB
    for (const route of ROUTES.filter((r) => r.request?.body && r.tag !== 'Webhooks')) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (route.auth !== 'public') headers.authorization = `Bearer ${f.anonB.token}`;
      const path = route.path.replace('{id}', route.tag === 'Lobby' ? f.guestSeek.seekId : f.gameAB);
      const req: Sent = { method: route.method, path, headers, body: over };
      const a = await send(app.port, req);
      t.same(violations(req, a, { mayCut: true }), [], `${route.operationId}: a clean answer`);
      t.equal(a.status, 413, `${route.operationId}: 10^5 nested arrays (declared length) → 413`);
    }
    // No Content-Length (chunked): the cap applies as the bytes arrive.
    const c = await rawConnect(app.port);
    c.write('POST /bot/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    for (let i = 0; i < 80; i++) c.write(`400\r\n${'['.repeat(0x400)}\r\n`);
    const text = await c.closed;
    t.match(text, /^HTTP\/1\.1 413 /, 'a chunked upload past the cap is cut with 413');
    t.match(text, /application\/problem\+json/);
    // At the cap exactly: read and judged (a valid registration padded with whitespace).
    const exact = JSON.stringify({ team: 'capped', name: 'exactly' });
    const padded = exact + ' '.repeat(CAP - exact.length);
    t.equal(Buffer.byteLength(padded), CAP);
    const atCap = await send(app.port, { method: 'POST', path: '/bot/register', headers: { 'content-type': 'application/json' }, body: padded });
    t.equal(atCap.status, 201, '65,536 bytes are allowed');
    const oneMore = await send(app.port, { method: 'POST', path: '/bot/register', headers: { 'content-type': 'application/json' }, body: padded + ' ' });
    t.equal(oneMore.status, 413, '65,537 bytes are not');
  });

  await t.test('slow, partial and abandoned uploads over raw sockets', async (t) => {
    const reg = (body: string, len = Buffer.byteLength(body)) =>
      `POST /bot/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n\r\n${body}`;
    const body = JSON.stringify({ team: 'slow', name: 'half' });

    // Half a body, then the client goes away: nothing is registered, nothing breaks.
    for (let i = 0; i < 20; i++) {
      const c = await rawConnect(app.port);
      c.write(reg(body).slice(0, -Math.floor(body.length / 2)));
      c.destroy();
    }
    // Headers announcing a body that never comes, then gone.
    for (let i = 0; i < 20; i++) {
      const c = await rawConnect(app.port);
      c.write(`POST /bot/game/${f.gameAB}/move HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${f.anonA.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`);
      c.destroy();
    }
    // A chunked upload abandoned in the middle of a chunk.
    for (let i = 0; i < 10; i++) {
      const c = await rawConnect(app.port);
      c.write('POST /lobby/seeks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n20\r\n{"timeControl"');
      c.destroy();
    }
    // Fifty uploads stalled mid-body and left open: everyone else is still served meanwhile.
    const stalled = await Promise.all(Array.from({ length: 50 }, () => rawConnect(app.port)));
    for (const c of stalled) c.write(reg(body).slice(0, -5));
    t.equal((await app.req('GET', '/health')).status, 200, '/health answers beside 50 stalled uploads');
    const meanwhile = await app.req('POST', '/bot/register', { body: { team: 'slow', name: 'meanwhile' } });
    t.equal(meanwhile.status, 201, 'and so does a registration');
    for (const c of stalled) c.destroy();

    const after = await app.req('POST', '/bot/register', { body: { team: 'slow', name: 'half' } });
    t.equal(after.status, 201, 'no abandoned upload registered anything');

    // A slow upload that does finish: the head in one piece, then the body one byte at a time.
    // (A head split inside its request line is another matter: see framing.test.ts.)
    const c = await rawConnect(app.port);
    const slow = reg(JSON.stringify({ team: 'slow', name: 'dribble' }));
    const cut = slow.indexOf('\r\n\r\n') + 4;
    c.write(slow.slice(0, cut));
    for (const ch of slow.slice(cut)) {
      await new Promise((r) => setTimeout(r, 1));
      c.write(ch);
    }
    const answer = await c.until((s) => s.includes('\r\n\r\n') && s.includes('"token"'));
    c.destroy();
    t.match(answer, /^HTTP\/1\.1 201 /, 'a byte-by-byte upload is answered normally');

    // A Content-Length over the cap is refused before any body byte is sent.
    const big = await rawConnect(app.port);
    big.write(`POST /bot/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${CAP + 1}\r\n\r\n`);
    const refused = await big.closed;
    t.match(refused, /^HTTP\/1\.1 413 /, 'declared too large: 413 at once, and the connection is closed');
    t.equal((await app.req('GET', '/health')).status, 200);
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
      const moves: string[] = [];
      for (let n: Tree = tree; Object.keys(n).length; n = n[moves[moves.length - 1]]) moves.push(Object.keys(n)[0]);
      const v = await app.req('POST', `/bot/game/${gameId}/move`, { token: bot.token, body: { moves } });
      t.equal(v.status, 200, 'a move is applied');
      moved = true;
    }
    t.ok(moved, 'the bot got to move');
  });

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

t.test('the 64 KiB cap on routes without a body is declared in the OpenAPI document', async (t) => {
  const app = await bootApp(t);
  const bot = await anonBot(app, 'bodiless');
  const bodiless = ROUTES.filter((r) => r.method !== 'GET' && !r.request?.body && r.tag !== 'Webhooks');
  for (const route of bodiless) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (route.auth !== 'public') headers.authorization = `Bearer ${bot.token}`;
    const req: Sent = { method: route.method, path: route.path.replace(/\{[^}]+\}/g, 'NoSuchThing00000'), headers, body: deep(40_000) };
    const a = await send(app.port, req);
    t.same(violations(req, a, { mayCut: true }), [], `${route.operationId}: a clean answer`);
    t.equal(a.status, 413, `${route.operationId}: an 80 kB body is refused with 413`);
  }
  t.same(uniqueMismatches(app), [], 'and every such 413 is a status the document declares');
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
  const moves: string[] = [];
  for (let n: Tree = tree; Object.keys(n).length; n = n[moves[moves.length - 1]]) moves.push(Object.keys(n)[0]);
  if (moves.length) t.equal((await app.req('POST', `/bot/game/${gameId}/move`, { token: mover, body: { moves } })).status, 200, 'the mover still moves');
  t.same(uniqueMismatches(app), [], 'every answer (429 included) is declared in the OpenAPI document');
});
