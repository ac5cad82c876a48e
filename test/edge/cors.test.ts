// CORS over real HTTP: public reads open to any origin, token routes only to configured origins,
// preflight answered 204 for known paths.
import t from 'tap';
import { json, unauthorized } from '../../src/edge/toolkit.js';
import { request, serve } from '../helpers/http.js';

const GOOD = 'https://play.example.org';
const EVIL = 'https://evil.example.com';

async function toy(t: Parameters<typeof serve>[0]) {
  return serve(
    t,
    (r) => {
      r.get('/games', () => json(200, { games: [] }), { cors: 'public' });
      r.get('/bot/account', (ctx) => (ctx.headers.authorization ? json(200, { id: 'me' }) : unauthorized('missing_token')));
      r.post('/bot/account', () => json(200, {}));
      r.post('/bot/anon', () => json(201, {}), { cors: 'public' });
    },
    { corsOrigins: [GOOD + '/'] },
  );
}

t.test('public reads allow any origin', async (t) => {
  const s = await toy(t);
  const r = await request('GET', s.base + '/games', { headers: { origin: EVIL } });
  t.equal(r.headers['access-control-allow-origin'], '*');
  t.match(r.headers['access-control-expose-headers'], /Retry-After/);
  const noOrigin = await request('GET', s.base + '/games');
  t.equal(noOrigin.headers['access-control-allow-origin'], '*', 'the same bytes for everyone: cache-safe');
});

t.test('authenticated routes allow only the configured origins', async (t) => {
  const s = await toy(t);
  const good = await request('GET', s.base + '/bot/account', { headers: { origin: GOOD, authorization: 'Bearer x' } });
  t.equal(good.status, 200);
  t.equal(good.headers['access-control-allow-origin'], GOOD);
  t.equal(good.headers.vary, 'Origin');
  const evil = await request('GET', s.base + '/bot/account', { headers: { origin: EVIL, authorization: 'Bearer x' } });
  t.equal(evil.headers['access-control-allow-origin'], undefined);
  t.equal(evil.headers.vary, 'Origin');
  const denied = await request('GET', s.base + '/bot/account', { headers: { origin: GOOD } });
  t.equal(denied.status, 401);
  t.equal(denied.headers['access-control-allow-origin'], GOOD, 'errors are readable by the allowed page too');
  t.match(denied.headers['access-control-expose-headers'], /WWW-Authenticate/);
});

t.test('preflight: 204 with the grant for allowed origins only', async (t) => {
  const s = await toy(t);
  const good = await request('OPTIONS', s.base + '/bot/account', {
    headers: { origin: GOOD, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });
  t.equal(good.status, 204);
  t.equal(good.text, '');
  t.equal(good.headers['access-control-allow-origin'], GOOD);
  t.equal(good.headers['access-control-allow-methods'], 'GET, POST');
  t.equal(good.headers['access-control-allow-headers'], 'Authorization, Content-Type');
  t.ok(Number(good.headers['access-control-max-age']) > 0);

  const evil = await request('OPTIONS', s.base + '/bot/account', {
    headers: { origin: EVIL, 'access-control-request-method': 'GET' },
  });
  t.equal(evil.status, 204);
  t.equal(evil.headers['access-control-allow-origin'], undefined);
  t.equal(evil.headers['access-control-allow-methods'], undefined);

  const open = await request('OPTIONS', s.base + '/games', { headers: { origin: EVIL, 'access-control-request-method': 'GET' } });
  t.equal(open.headers['access-control-allow-origin'], '*');
  t.equal(open.headers['access-control-allow-methods'], 'GET');

  const missing = await request('OPTIONS', s.base + '/games', { headers: { origin: GOOD, 'access-control-request-method': 'DELETE' } });
  t.equal(missing.status, 204);
  t.equal(missing.headers['access-control-allow-origin'], undefined, 'no grant for a method the path lacks');

  const plain = await request('OPTIONS', s.base + '/bot/account');
  t.equal(plain.status, 204);
  t.equal(plain.headers.allow, 'GET, HEAD, POST, OPTIONS');

  const unknown = await request('OPTIONS', s.base + '/nowhere', { headers: { origin: GOOD, 'access-control-request-method': 'GET' } });
  t.equal(unknown.status, 404);
});
