// Identity over real HTTP: anonymous mints and their names, registration and its budget, accounts,
// token rotation, ladder membership by tier, authentication failures, and the edge's generic
// statuses (404, 405, 413, bodies of any content type) as every route sees them.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { anonBot, bootApp, diskStore, type TestApp } from '../helpers/app.js';
import type { HttpResult } from '../helpers/http.js';
import type { Json } from '../helpers/bot.js';

const STATIC_TOKEN = 'static-house-token-0123456789';
const TOKEN_RE = /^dcb_[A-Za-z0-9_-]{32}$/;

const problemOf = (r: HttpResult): Json => {
  if (!/^application\/problem\+json/.test(r.headers['content-type'] ?? '')) throw new Error(`not a problem: ${r.status} ${r.text}`);
  return r.json;
};

const register = (app: TestApp, body: unknown) => app.req('POST', '/bot/register', { body });

t.test('anonymous mint: 201, the name rules of the contract, and the account behind the token', async (t) => {
  const app = await bootApp(t);
  const cases: [string | undefined, RegExp][] = [
    ['Smoke', /^smoke-[0-9a-f]{8}$/],
    ['My Bot!!v2', /^my-bot-v2-[0-9a-f]{8}$/],
    ['  --weird__name--  ', /^weird-name-[0-9a-f]{8}$/],
    ['abcdefghijklmnopqrs-tuvwxyz', /^abcdefghijklmnopqrs-[0-9a-f]{8}$/], // cut at 20, trailing '-' trimmed
    ['abcdefghijklmnopqrstuvwxyz', /^abcdefghijklmnopqrst-[0-9a-f]{8}$/],
    ['ÄÖÜ', /^bot-[0-9a-f]{8}$/],
    ['---', /^bot-[0-9a-f]{8}$/],
    ['', /^bot-[0-9a-f]{8}$/],
    [undefined, /^bot-[0-9a-f]{8}$/],
  ];
  const names = new Set<string>();
  for (const [label, re] of cases) {
    const path = label === undefined ? '/bot/anon' : `/bot/anon?name=${encodeURIComponent(label)}`;
    const r = await app.req('POST', path);
    t.equal(r.status, 201, `mint ${JSON.stringify(label)}`);
    const tok = r.json as Json;
    t.match(tok.name, re, `name for ${JSON.stringify(label)}: ${tok.name}`);
    t.equal(tok.team, 'anon');
    t.equal(tok.id, `bot:team:anon:${tok.name}`);
    t.match(tok.token, TOKEN_RE, 'token format dcb_ + 32 base64url');
    names.add(tok.name);
    const acct = await app.req('GET', '/bot/account', { token: tok.token });
    t.equal(acct.status, 200);
    t.same(acct.json, { team: 'anon', name: tok.name, id: tok.id }, 'the account is the minted identity');
  }
  t.equal(names.size, cases.length, 'every mint is a distinct identity');
});

t.test('an anonymous token stops working after 24 hours', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock });
  const bot = await anonBot(app, 'ttl');
  clock.advance(23 * 3600_000);
  t.equal((await app.req('GET', '/bot/account', { token: bot.token })).status, 200, 'alive after 23 h');
  clock.advance(3600_000);
  const r = await app.req('GET', '/bot/account', { token: bot.token });
  t.equal(r.status, 401, 'expired after 24 h');
  t.equal(r.headers['www-authenticate'], 'Bearer realm="dicechess"');
});

t.test('the 31st anonymous mint from one address within an hour is 429 with Retry-After', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock });
  for (let i = 0; i < 30; i++) {
    const r = await app.req('POST', `/bot/anon?name=m${i}`);
    if (r.status !== 201) t.fail(`mint ${i + 1} answered ${r.status}`);
  }
  clock.advance(600_000); // ten minutes later
  const r = await app.req('POST', '/bot/anon?name=one-too-many');
  t.equal(r.status, 429, 'the 31st mint is refused');
  t.equal(r.headers['retry-after'], '3000', 'Retry-After: seconds until the oldest mint leaves the window');
  t.equal(problemOf(r).status, 429);
  t.equal(problemOf(r).code, 'too_many_mints');
  clock.advance(3000_000);
  t.equal((await app.req('POST', '/bot/anon?name=again')).status, 201, 'a mint works once the window has moved on');
});

t.test('registration: 201 and the account; 400 for reserved teams, bad slugs and bad bodies; 409 when taken', async (t) => {
  const app = await bootApp(t);
  const ok = await register(app, { team: 'acme', name: 'alpha-1', extra: 'ignored' });
  t.equal(ok.status, 201, 'registered (an unknown field is ignored)');
  const tok = ok.json as Json;
  t.same({ ...tok, token: 'x' }, { token: 'x', team: 'acme', name: 'alpha-1', id: 'bot:team:acme:alpha-1' });
  t.match(tok.token, TOKEN_RE);
  t.same((await app.req('GET', '/bot/account', { token: tok.token })).json, {
    team: 'acme', name: 'alpha-1', id: 'bot:team:acme:alpha-1', eventHosts: { hosts: [], rated: false },
  });

  for (const team of ['anon', 'house']) {
    const r = await register(app, { team, name: 'x' });
    t.equal(r.status, 400, `team ${team} is reserved`);
    t.equal(problemOf(r).code, 'reserved_team');
  }
  const badSlugs: [Json, string][] = [
    [{ team: 'Acme', name: 'x' }, 'team'],
    [{ team: '-acme', name: 'x' }, 'team'],
    [{ team: 'acme', name: 'a_b' }, 'name'],
    [{ team: 'acme', name: 'a b' }, 'name'],
    [{ team: 'acme', name: '' }, 'name'],
    [{ team: 'a'.repeat(33), name: 'x' }, 'team'],
    [{ team: 'acme', name: 'n'.repeat(33) }, 'name'],
    [{ team: 5, name: 'x' }, 'team'],
    [{ team: 'acme', name: null }, 'name'],
    [{ team: 'acme' }, 'name'],
  ];
  for (const [body, field] of badSlugs) {
    const r = await register(app, body);
    t.equal(r.status, 400, `refused: ${JSON.stringify(body)}`);
    t.match(problemOf(r).detail, field, `the detail names ${field}: ${problemOf(r).detail}`);
  }
  t.equal((await register(app, { team: 'a'.repeat(32), name: 'n'.repeat(32) })).status, 201, '32 characters are fine');

  const taken = await register(app, { team: 'acme', name: 'alpha-1' });
  t.equal(taken.status, 409, 'the same team and name again');
  t.equal(problemOf(taken).code, 'identity_taken');

  const malformed = await app.req('POST', '/bot/register', { body: '{"team": "acme",', headers: { 'content-type': 'application/json' } });
  t.equal(malformed.status, 400, 'malformed JSON');
  t.equal(problemOf(malformed).code, 'malformed_json');
  const notObject = await register(app, [1, 2]);
  t.equal(notObject.status, 400, 'an array is not a register request');
  const empty = await app.req('POST', '/bot/register');
  t.equal(empty.status, 400, 'no body at all');
});

t.test('only successful registrations use the budget of 5 per hour; the 6th is 429', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock });
  t.equal((await register(app, { team: 'budget', name: 'b0' })).status, 201);
  // Refused attempts, many more than the budget: none of them may count.
  for (let i = 0; i < 8; i++) t.equal((await register(app, { team: 'house', name: `x${i}` })).status, 400);
  for (let i = 0; i < 8; i++) t.equal((await register(app, { team: 'Bad', name: `x${i}` })).status, 400);
  for (let i = 0; i < 8; i++) t.equal((await register(app, { team: 'budget', name: 'b0' })).status, 409);
  for (let i = 1; i < 5; i++) t.equal((await register(app, { team: 'budget', name: `b${i}` })).status, 201, `success ${i + 1} of 5`);
  const sixth = await register(app, { team: 'budget', name: 'b5' });
  t.equal(sixth.status, 429, 'the 6th successful registration is refused');
  t.equal(sixth.headers['retry-after'], '3600');
  t.equal(problemOf(sixth).code, 'too_many_registrations');
  clock.advance(3600_000);
  t.equal((await register(app, { team: 'budget', name: 'b5' })).status, 201, 'an hour later it works');
});

t.test('401: missing, malformed, unknown and rotated tokens, with WWW-Authenticate', async (t) => {
  const app = await bootApp(t);
  const reg = (await register(app, { team: 'auth', name: 'one' })).json as Json;
  const routes: [string, string][] = [
    ['GET', '/bot/account'],
    ['POST', '/bot/token'],
    ['POST', '/bot/ladder/join'],
    ['POST', '/bot/challenge'],
    ['GET', '/bot/challenges'],
    ['POST', '/bot/challenge/abc/accept'],
    ['POST', '/bot/challenge/abc/decline'],
    ['GET', '/bot/games'],
    ['POST', '/bot/game/abc/move'],
    ['POST', '/bot/game/abc/seed'],
    ['POST', '/bot/game/abc/resign'],
    ['GET', '/bot/stream/event'],
    ['GET', '/bot/game/stream/abc'],
  ];
  const headerSets: [string, Record<string, string>][] = [
    ['no header', {}],
    ['unknown token', { authorization: 'Bearer dcb_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['Basic scheme', { authorization: `Basic ${reg.token}` }],
    ['empty Bearer', { authorization: 'Bearer ' }],
  ];
  for (const [method, path] of routes) {
    for (const [what, headers] of headerSets) {
      const r = await app.req(method, path, { headers });
      t.equal(r.status, 401, `${method} ${path}: ${what}`);
      t.equal(r.headers['www-authenticate'], 'Bearer realm="dicechess"', `${method} ${path}: ${what} has the challenge`);
      t.equal(problemOf(r).status, 401);
    }
  }
  t.equal((await app.req('GET', '/bot/account', { headers: { authorization: `bearer ${reg.token}` } })).status, 200, 'the scheme is case-insensitive');
});

t.test('token rotation: registered only; the old token is refused at once, the new one works', async (t) => {
  const app = await bootApp(t, { overrides: { houseBots: `house|tester|${STATIC_TOKEN}` } });
  const reg = (await register(app, { team: 'rot', name: 'bot' })).json as Json;
  const r = await app.req('POST', '/bot/token', { token: reg.token });
  t.equal(r.status, 200);
  const fresh = (r.json as Json).token;
  t.match(fresh, TOKEN_RE);
  t.not(fresh, reg.token);
  const old = await app.req('GET', '/bot/account', { token: reg.token });
  t.equal(old.status, 401, 'the old token stops at once');
  t.equal(old.headers['www-authenticate'], 'Bearer realm="dicechess"');
  t.equal((await app.req('POST', '/bot/token', { token: reg.token })).status, 401, 'the old token cannot rotate again');
  t.same((await app.req('GET', '/bot/account', { token: fresh })).json, { team: 'rot', name: 'bot', id: 'bot:team:rot:bot', eventHosts: { hosts: [], rated: false } });

  // Rotations at once with one token: compare-and-swap on the token, so exactly one is granted and
  // every other is 401; the granted token is live.
  const racing = await Promise.all(Array.from({ length: 6 }, () => app.req('POST', '/bot/token', { token: fresh })));
  const statuses = racing.map((x) => x.status).sort();
  t.same(statuses, [200, 401, 401, 401, 401, 401], `statuses ${statuses}`);
  const winner = racing.find((x) => x.status === 200)!;
  const granted = (winner.json as Json).token as string;
  t.equal((await app.req('GET', '/bot/account', { token: granted })).status, 200, "the winner's new token works");
  t.equal((await app.req('GET', '/bot/account', { token: fresh })).status, 401, 'and the token they rotated is gone');

  const anon = await anonBot(app, 'rot');
  const a = await app.req('POST', '/bot/token', { token: anon.token });
  t.equal(a.status, 403, 'anonymous callers re-mint instead');
  t.equal(problemOf(a).code, 'registered_only');
  t.equal((await app.req('GET', '/bot/account', { token: anon.token })).status, 200, 'a refused rotation leaves the token alone');

  const st = await app.req('GET', '/bot/account', { token: STATIC_TOKEN });
  t.same(st.json, { team: 'house', name: 'tester', id: 'bot:team:house:tester' }, 'the static bot authenticates');
  t.equal((await app.req('POST', '/bot/token', { token: STATIC_TOKEN })).status, 403, 'static callers rotate through configuration');
});

t.test('rotations racing on a disk store: exactly one 200, the rest 401, and the winner works', async (t) => {
  // LMDB commits a write asynchronously, so every request below authenticates before the first
  // rotation commits: only the compare-and-swap on the token keeps them from all being granted.
  const app = await bootApp(t, { store: await diskStore(t) });
  for (let round = 0; round < 3; round++) {
    const reg = (await register(app, { team: 'race', name: `bot${round}` })).json as Json;
    const racing = await Promise.all(Array.from({ length: 4 }, () => app.req('POST', '/bot/token', { token: reg.token })));
    const statuses = racing.map((x) => x.status).sort();
    t.same(statuses, [200, 401, 401, 401], `round ${round}: statuses ${statuses}`);
    const winner = racing.find((x) => x.status === 200);
    const granted = (winner?.json as Json | undefined)?.token as string;
    t.equal((await app.req('GET', '/bot/account', { token: granted })).status, 200, "the winner's token works");
    t.equal((await app.req('GET', '/bot/account', { token: reg.token })).status, 401, 'the old token is gone');
  }
});

t.test('ladder join and leave: registered bots get their state, anonymous and static bots 403', async (t) => {
  const app = await bootApp(t, { overrides: { houseBots: `house|tester|${STATIC_TOKEN}` } });
  const reg = (await register(app, { team: 'lad', name: 'der' })).json as Json;
  const join = await app.req('POST', '/bot/ladder/join', { token: reg.token });
  t.equal(join.status, 200);
  t.same(join.json, { onLadder: true, glickoRating: 1500, glickoRd: 350 });
  t.same((await app.req('POST', '/bot/ladder/join', { token: reg.token })).json, { onLadder: true, glickoRating: 1500, glickoRd: 350 }, 'joining twice is harmless');
  const leave = await app.req('POST', '/bot/ladder/leave', { token: reg.token });
  t.equal(leave.status, 200);
  t.same(leave.json, { onLadder: false, glickoRating: 1500, glickoRd: 350 });

  const anon = await anonBot(app, 'lad');
  for (const [who, token] of [['anonymous', anon.token], ['static', STATIC_TOKEN]]) {
    for (const path of ['/bot/ladder/join', '/bot/ladder/leave']) {
      const r = await app.req('POST', path, { token });
      t.equal(r.status, 403, `${who}: POST ${path}`);
      t.equal(problemOf(r).code, 'registered_only');
    }
  }
});

t.test('the edge: unknown routes 404, wrong methods 405 with Allow, 413, bodies of any type, and webhooks 503', async (t) => {
  const app = await bootApp(t);
  const anon = await anonBot(app, 'edge');

  const unknown = await app.req('GET', '/no/such/route');
  t.equal(unknown.status, 404);
  t.equal(problemOf(unknown).status, 404);

  const wrong: [string, string, string[]][] = [
    ['GET', '/bot/register', ['POST']],
    ['DELETE', '/games', ['GET']],
    ['PUT', '/bot/game/abc/move', ['POST']],
    ['POST', '/games/abc', ['GET']],
    ['GET', '/bot/challenge', ['POST']],
    ['POST', '/bot/account', ['GET']],
  ];
  for (const [method, path, allowed] of wrong) {
    const r = await app.req(method, path, { token: anon.token });
    t.equal(r.status, 405, `${method} ${path}`);
    const allow = (r.headers.allow ?? '').split(',').map((s) => s.trim());
    for (const m of allowed) t.ok(allow.includes(m), `${method} ${path}: Allow ${r.headers.allow} has ${m}`);
    t.notOk(allow.includes(method), `${method} ${path}: Allow does not offer ${method}`);
    t.equal(problemOf(r).status, 405);
  }

  const big = JSON.stringify({ team: 'big', name: 'x', pad: 'p'.repeat(70 * 1024) });
  const tooLarge = await app.req('POST', '/bot/register', { body: big, headers: { 'content-type': 'application/json' } });
  t.equal(tooLarge.status, 413, 'a body over 64 KiB');
  t.equal(problemOf(tooLarge).code, 'body_too_large');
  const bigMove = await app.req('POST', '/bot/challenge', { token: anon.token, body: big, headers: { 'content-type': 'application/json' } });
  t.equal(bigMove.status, 413, 'also on an authenticated route');
  const justUnder = JSON.stringify({ team: 'under', name: 'x', pad: 'p'.repeat(60 * 1024) });
  t.equal((await app.req('POST', '/bot/register', { body: justUnder, headers: { 'content-type': 'application/json' } })).status, 201, 'a 60 KiB body is fine');

  // The limit is exactly 64 KiB of body: one byte more is refused.
  const sized = (n: number) => {
    const head = '{"team":"edge","name":"x","pad":"';
    return head + 'p'.repeat(n - head.length - 2) + '"}';
  };
  t.equal(Buffer.byteLength(sized(65536)), 65536);
  t.equal((await app.req('POST', '/bot/register', { body: sized(65536), headers: { 'content-type': 'application/json' } })).status, 201, 'exactly 64 KiB is accepted');
  t.equal((await app.req('POST', '/bot/register', { body: sized(65537), headers: { 'content-type': 'application/json' } })).status, 413, '64 KiB + 1 is refused');
  const chunked = await app.req('POST', '/bot/register', { body: big, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
  t.equal(chunked.status, 413, 'a chunked upload without Content-Length is cut off too');

  // Bodies are JSON whatever their Content-Type: valid JSON is read, anything else is 400.
  const plain = await app.req('POST', '/bot/register', { body: '{"team":"plain","name":"x"}', headers: { 'content-type': 'text/plain' } });
  t.equal(plain.status, 201, 'a JSON body labelled text/plain is read');
  t.equal((plain.json as Json).id, 'bot:team:plain:x');
  const untyped = await app.req('POST', '/bot/challenge', { token: anon.token, body: '{"team":"house","name":"random"}' });
  t.equal(untyped.status, 201, 'a JSON body with no Content-Type is read');
  const form = await app.req('POST', '/bot/challenge', { token: anon.token, body: 'team=house&name=random', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(form.status, 400, 'a form body is not JSON');
  t.equal(problemOf(form).code, 'malformed_json');

  t.equal((await app.req('POST', '/bot/ladder/join', { token: anon.token })).status, 403, 'a body-less POST is fine where no body is taken');

  for (const [method, path] of [['POST', '/bot/webhook'], ['GET', '/bot/webhook'], ['DELETE', '/bot/webhook']]) {
    const r = await app.req(method, path, method === 'POST' ? { body: { url: 'https://example.org/hook' } } : {});
    t.equal(r.status, 503, `${method} ${path} without a token: webhooks are off, checked before authentication`);
  }

  const health = await app.req('GET', '/health');
  t.equal(health.status, 200);
  t.equal((health.json as Json).status, 'ok');
});
