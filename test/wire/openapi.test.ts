// The OpenAPI document: every route with exactly its statuses, resolvable references, determinism.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildOpenApi, openApiJson } from '../../src/wire/openapi.js';
import { allowedMethods, findRoute, ROUTES, toUwsPattern } from '../../src/wire/routes.js';
import type { Json } from '../../src/wire/jsonschema.js';
import { refs, resolve } from '../helpers/json-refs.js';

// Written from the API as docs/API.md describes it (per-route errors), plus the statuses implied by
// a route's shape: 400/413 with a body, 401 with authentication, 500 everywhere.
const EXPECTED: Record<string, number[]> = {
  'POST /bot/anon': [201, 403, 413, 429, 500],
  'POST /bot/register': [201, 400, 403, 409, 413, 429, 500],
  'POST /bot/token': [200, 401, 403, 413, 500],
  'GET /bot/account': [200, 401, 500],
  'POST /bot/ladder/join': [200, 401, 403, 413, 429, 500],
  'POST /bot/ladder/leave': [200, 401, 403, 413, 429, 500],
  'GET /bot/capacity': [200, 401, 403, 500],
  'POST /bot/capacity': [200, 400, 401, 403, 413, 500],
  'POST /bot/challenge': [201, 400, 401, 404, 413, 429, 500, 503],
  'GET /bot/challenges': [200, 401, 500],
  'POST /bot/challenge/{id}/accept': [201, 401, 403, 404, 413, 429, 500, 503],
  'POST /bot/challenge/{id}/decline': [200, 400, 401, 403, 404, 413, 500],
  'POST /bot/seeks': [201, 400, 401, 413, 429, 500, 503],
  'POST /bot/seeks/{id}/accept': [201, 400, 401, 404, 409, 413, 429, 500, 503],
  'GET /lobby/seeks': [200, 400, 500],
  'POST /lobby/seeks': [201, 400, 403, 413, 429, 500],
  'GET /lobby/seeks/{id}': [200, 400, 404, 500],
  'DELETE /lobby/seeks/{id}': [204, 400, 403, 404, 409, 413, 500],
  'POST /lobby/seeks/{id}/accept': [201, 400, 403, 404, 409, 413, 429, 500, 503],
  'POST /lobby/house/{name}': [201, 400, 403, 404, 413, 429, 500, 503],
  'POST /bot/game/{id}/seed': [202, 400, 401, 403, 404, 413, 500, 503],
  'POST /bot/game/{id}/move': [200, 202, 400, 401, 403, 404, 409, 413, 429, 500, 503],
  'POST /bot/game/{id}/resign': [202, 401, 403, 404, 413, 500, 503],
  'GET /bot/games': [200, 401, 500],
  'GET /games': [200, 500],
  'GET /games/{id}': [200, 404, 500, 503],
  'GET /games/{id}/moves': [200, 404, 500, 503],
  'GET /games/{id}/history': [200, 404, 500, 503],
  'GET /leaderboard': [200, 400, 404, 500],
  'GET /bots/{team}/{name}': [200, 404, 500],
  'GET /bot/stream/event': [200, 401, 429, 500],
  'GET /bot/game/stream/{id}': [200, 401, 403, 404, 429, 500, 503],
  'GET /games/{id}/stream': [200, 404, 429, 500, 503],
  'POST /bot/webhook': [201, 400, 401, 403, 413, 422, 429, 500, 503],
  'GET /bot/webhook': [200, 401, 403, 404, 500, 503],
  'DELETE /bot/webhook': [204, 401, 403, 404, 413, 500, 503],
  'POST /events': [201, 400, 401, 403, 413, 429, 500],
  'GET /events': [200, 500],
  'GET /events/{id}': [200, 404, 500],
  'GET /events/{id}/stream': [200, 404, 429, 500],
  'GET /events/{id}/games': [200, 404, 500],
  'GET /events/{id}/games.pgn': [200, 404, 500],
  'POST /events/{id}/accept': [200, 401, 404, 409, 413, 500],
  'POST /events/{id}/decline': [200, 401, 404, 409, 413, 500],
  'POST /events/{id}/start': [200, 401, 403, 404, 409, 413, 500],
  'POST /events/{id}/cancel': [200, 401, 403, 404, 409, 413, 500],
  'POST /events/{id}/pause': [200, 401, 403, 404, 409, 413, 500],
  'POST /events/{id}/resume': [200, 401, 403, 404, 409, 413, 500],
  'POST /events/{id}/players/{team}/{name}/withdraw': [200, 401, 403, 404, 409, 413, 500],
  'POST /events/{id}/withdraw': [200, 401, 404, 409, 413, 500],
  'GET /bot/events': [200, 401, 500],
  'PUT /bot/account/event-hosts': [200, 400, 401, 403, 413, 500],
  'GET /health': [200, 500, 503],
  'GET /ready': [200, 500, 503],
  'GET /metrics': [200, 404, 500],
  'GET /openapi.json': [200, 500],
  'GET /asyncapi.json': [200, 500],
};

const PUBLIC = new Set([
  'POST /bot/anon', 'POST /bot/register', 'GET /lobby/seeks', 'POST /lobby/seeks', 'GET /lobby/seeks/{id}',
  'DELETE /lobby/seeks/{id}', 'POST /lobby/seeks/{id}/accept', 'POST /lobby/house/{name}', 'GET /games', 'GET /games/{id}',
  'GET /games/{id}/stream',
  'GET /games/{id}/moves', 'GET /games/{id}/history', 'GET /leaderboard', 'GET /bots/{team}/{name}',
  'GET /health', 'GET /ready', 'GET /metrics', 'GET /openapi.json', 'GET /asyncapi.json',
  'GET /events', 'GET /events/{id}', 'GET /events/{id}/stream', 'GET /events/{id}/games', 'GET /events/{id}/games.pgn',
]);

// The document is plain JSON; reading it loosely keeps the assertions short.
type Obj = Record<string, any>;
const doc = buildOpenApi('1.0') as Obj;

t.test('the catalogue has every route, and nothing else', async (t) => {
  const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
  t.same([...keys].sort(), Object.keys(EXPECTED).sort());
  t.equal(new Set(keys).size, keys.length, 'no route twice');
  const ids = ROUTES.map((r) => r.operationId);
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

/** Every route may also answer 429 `too_many_connections` (the per-address cap on what is held open). */
const GLOBAL = [429];

t.test('every route declares exactly its statuses, in the catalogue and the document', async (t) => {
  for (const [key, own] of Object.entries(EXPECTED)) {
    const statuses = [...new Set([...own, ...GLOBAL])].sort((a, b) => a - b);
    const [method, path] = key.split(' ') as [string, string];
    const r = findRoute(method, path);
    t.ok(r, `${key} catalogued`);
    t.same(Object.keys(r?.responses ?? {}).map(Number), statuses, `${key} catalogue statuses`);
    const op = doc.paths[path]?.[method.toLowerCase()];
    t.ok(op, `${key} in the document`);
    t.same(Object.keys(op?.responses ?? {}).map(Number), statuses, `${key} document statuses`);
  }
});

t.test('errors are problems, except the move verdict and the readiness report', async (t) => {
  for (const r of ROUTES) {
    for (const [status, spec] of Object.entries(r.responses)) {
      const s = Number(status);
      if (s < 400) continue;
      // A refused move is a verdict; /ready's 503 is the same report as its 200, which a probe reads by status.
      const verdict = (r.operationId === 'submitMove' && s === 409) || (r.operationId === 'ready' && s === 503);
      t.equal(spec.contentType, verdict ? 'application/json' : 'application/problem+json', `${r.operationId} ${s}`);
    }
  }
  const move = doc.paths['/bot/game/{id}/move'].post.responses;
  t.same(move['200'].content['application/json'].schema, { $ref: '#/components/schemas/MoveApplied' });
  t.same(move['202'].content['application/json'].schema, { $ref: '#/components/schemas/Empty' });
  t.same(move['409'].content['application/json'].schema, { $ref: '#/components/schemas/MoveRefused' });
  t.ok(doc.paths['/bot/stream/event'].get.responses['200'].content['application/x-ndjson'], 'streams are ndjson');
  t.ok(doc.paths['/bot/game/stream/{id}'].get.responses['200'].content['application/x-ndjson']);
  t.notOk(doc.paths['/bot/webhook'].delete.responses['204'].content, '204 has no body');
  t.ok(doc.paths['/bot/anon'].post.responses['429'].headers['Retry-After'], '429 names Retry-After');
  t.ok(doc.paths['/bot/account'].get.responses['401'].headers['WWW-Authenticate'], '401 names WWW-Authenticate');
  t.ok(doc['x-unmatched-responses']['405'], 'the global 405');
});

t.test('authentication', async (t) => {
  t.same(doc.components.securitySchemes.bearer, {
    type: 'http', scheme: 'bearer', description: doc.components.securitySchemes.bearer.description,
  });
  for (const r of ROUTES) {
    const key = `${r.method} ${r.path}`;
    t.equal(r.auth === 'public', PUBLIC.has(key), `${key} public or not`);
    const op = doc.paths[r.path][r.method.toLowerCase()];
    t.same(op.security, PUBLIC.has(key) ? [] : [{ bearer: [] }], `${key} security`);
  }
  for (const id of ['submitSeed', 'submitMove', 'resign']) {
    t.equal(ROUTES.find((r) => r.operationId === id)?.auth, 'seatOrBearer', `${id} takes a guest seat token`);
  }
});

t.test('requests and parameters', async (t) => {
  const body = (path: string, method: string) => doc.paths[path][method].requestBody;
  t.same(body('/bot/register', 'post').content['application/json'].schema, { $ref: '#/components/schemas/RegisterRequest' });
  t.equal(body('/bot/register', 'post').required, true);
  t.equal(body('/bot/seeks', 'post').required, false, 'a body-less seek is fine');
  t.equal(body('/bot/game/{id}/move', 'post').required, true);
  t.notOk(doc.paths['/bot/token'].post.requestBody, 'no body');
  const lenient = ROUTES.filter((r) => r.request?.lenient).map((r) => r.operationId);
  t.same(lenient, ['submitSeed'], 'only the seed route takes malformed bodies without a 400');
  t.match(doc.paths['/bot/game/{id}/seed'].post.responses['400'].description, /not JSON at all/);
  const poll = doc.paths['/lobby/seeks/{id}'].get.parameters;
  t.same(poll.map((p: Obj) => [p.name, p.in, p.required]), [['id', 'path', true], ['secret', 'query', true]]);
  const anon = doc.paths['/bot/anon'].post.parameters;
  t.same(anon.map((p: Obj) => [p.name, p.in, p.required]), [['name', 'query', false]]);
  const profile = doc.paths['/bots/{team}/{name}'].get.parameters;
  t.same(profile.map((p: Obj) => p.name), ['team', 'name']);
  t.same(toUwsPattern('/bots/{team}/{name}'), '/bots/:team/:name');
  t.same(findRoute('post', '/bot/game/:id/move')?.operationId, 'submitMove', 'uWS patterns are found');
  t.same(allowedMethods('/bot/webhook').sort(), ['DELETE', 'GET', 'POST']);
});

t.test('schemas: request objects open, responses closed, the tree recursive', async (t) => {
  const s = doc.components.schemas;
  t.equal(s.RegisterRequest.additionalProperties, undefined, 'unknown request fields are allowed');
  t.equal(s.GameState.additionalProperties, false, 'responses are exact');
  t.same(s.LegalMoveTree.additionalProperties, { $ref: '#/components/schemas/LegalMoveTree' });
  t.same(s.TimeControl.anyOf.length, 4);
  t.same(s.MoveRequest.properties.moves.maxItems, 16);
  t.same(s.SeedRequest.properties.seed.minLength, 16);
  t.same(s.SeedRequest.properties.seed.maxLength, 256);
  t.same(s.ProfileGame.properties.finishedAt.format, 'date-time');
  t.notOk(JSON.stringify(doc).includes('9007199254740991'), 'no safe-integer noise');
});



t.test('every reference resolves', async (t) => {
  const all = refs(doc as Json);
  t.ok(all.length > 100, `${all.length} references`);
  const broken = all.filter((r) => !r.startsWith('#/') || resolve(doc as Json, r) === undefined);
  t.same(broken, []);
  t.ok(doc.webhooks.yourTurn.post.requestBody, 'webhook deliveries are documented');
});

t.test('valid JSON, deterministic, built once', async (t) => {
  const text = openApiJson('1.0');
  t.same(JSON.parse(text), doc, 'the cached text is the document');
  t.equal(openApiJson('1.0'), text, 'same text');
  t.equal(buildOpenApi('1.0'), doc, 'same object');
  t.ok(Object.isFrozen(doc) && Object.isFrozen(doc.components.schemas.GameState), 'frozen');
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0', 'info.version is the contract version');
  const another = JSON.parse(openApiJson('7.3.1'));
  t.equal(another.info.version, '1.0', 'whatever the server version');
  t.equal(another.info['x-server-version'], '7.3.1', 'which has a field of its own');

  // Another process, importing the modules in a different order, must produce the same bytes.
  const here = fileURLToPath(new URL('.', import.meta.url));
  const script = `
    await import(${JSON.stringify(`${here}../../src/wire/events.js`)});
    await import(${JSON.stringify(`${here}../../src/wire/routes.js`)});
    const m = await import(${JSON.stringify(`${here}../../src/wire/openapi.js`)});
    process.stdout.write(m.openApiJson('1.0'));`;
  const other = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  t.equal(other, text, 'byte-identical across processes');
});

t.test('the document keeps the OpenAPI 3.1 rules a validator would check', async (t) => {
  const problems: string[] = [];
  const tags = new Set(doc.tags.map((x: Obj) => x.name));
  for (const [path, item] of Object.entries(doc.paths as Obj)) {
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, op] of Object.entries(item as Obj)) {
      const where = `${method} ${path}`;
      const declared = (op.parameters ?? []).filter((p: Obj) => p.in === 'path');
      if (JSON.stringify(declared.map((p: Obj) => p.name)) !== JSON.stringify(templated)) problems.push(`${where}: path parameters`);
      if (declared.some((p: Obj) => p.required !== true)) problems.push(`${where}: path parameter not required`);
      for (const tag of op.tags) if (!tags.has(tag)) problems.push(`${where}: undeclared tag ${tag}`);
      for (const [status, res] of Object.entries(op.responses as Obj)) {
        if (!/^[1-5]\d\d$/.test(status)) problems.push(`${where}: status key ${status}`);
        if (typeof res.description !== 'string' || res.description === '') problems.push(`${where} ${status}: description`);
        for (const [ct, media] of Object.entries((res.content ?? {}) as Obj)) {
          if (!media.schema) problems.push(`${where} ${status} ${ct}: no schema`);
        }
      }
      for (const req of op.security) {
        for (const scheme of Object.keys(req)) if (!doc.components.securitySchemes[scheme]) problems.push(`${where}: scheme ${scheme}`);
      }
    }
  }
  t.same(problems, []);
});
