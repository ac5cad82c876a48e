// The router over real HTTP: 404/405 problems, params and query, replies as values, thrown handlers
// turned into a 500 that leaks nothing while the server keeps serving, and the observe hook.
import t from 'tap';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { bearerToken, json, noContent, tooManyRequests, unauthorized, type ObservedResponse } from '../../src/edge/toolkit.js';
import { rawConnect, request, serve } from '../helpers/http.js';

const PROBLEM = 'application/problem+json';

async function toy(t: Parameters<typeof serve>[0], observe?: (o: ObservedResponse) => void) {
  return serve(
    t,
    (r) => {
      r.get('/hello', (ctx) => json(200, { hi: ctx.query.get('name') }), { cors: 'public' });
      r.get('/items/:id/sub/:sub', (ctx) => json(200, { params: ctx.params, path: ctx.path, pattern: ctx.pattern }));
      r.post('/items/:id', async (ctx) => json(201, { created: ctx.params.id }));
      r.delete('/items/:id', () => noContent());
      r.get('/prebuilt', () => json(200, '{"pre":"built"}'));
      r.get('/boom', () => {
        throw new Error('secret database password');
      });
      r.get('/boom-async', async () => {
        await Promise.resolve();
        throw new Error('secret async detail');
      });
      r.get('/silent', () => undefined);
      r.get('/unserialisable', () => json(200, { n: 1n }));
      r.get('/me', (ctx) => {
        const token = bearerToken(ctx);
        return token === undefined ? unauthorized('missing_token') : json(200, { token });
      });
      r.get('/limited', () => tooManyRequests('game_busy', 2.2));
      r.get('/zipped/:how', (ctx) => {
        const text = Buffer.from('{"zipped":true}');
        const how = ctx.params.how;
        const body = how === 'br' ? brotliCompressSync(text) : gzipSync(text);
        return { status: 200, body, contentType: 'application/json', headers: { 'content-encoding': how } };
      });
      r.get('/direct', (ctx) => {
        ctx.res.send(202, { direct: true }, { 'x-extra': 'yes' });
      });
    },
    { observe },
  );
}

t.test('unknown route: 404 problem', async (t) => {
  const s = await toy(t);
  for (const [method, path] of [
    ['GET', '/nope'],
    ['POST', '/items'],
    ['GET', '/items/1/sub/2/extra'],
    ['DELETE', '/'],
  ]) {
    const r = await request(method, s.base + path);
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.headers['content-type'], PROBLEM);
    t.same(r.json, { type: 'about:blank', title: 'Not Found', status: 404, detail: 'no such route', code: 'not_found' });
  }
});

t.test('known route, wrong method: 405 with Allow', async (t) => {
  const s = await toy(t);
  const r = await request('PUT', s.base + '/items/7');
  t.equal(r.status, 405);
  t.equal(r.headers['content-type'], PROBLEM);
  t.equal(r.headers.allow, 'POST, DELETE, OPTIONS');
  t.match(r.json, { status: 405, title: 'Method Not Allowed', code: 'method_not_allowed' });
  const g = await request('POST', s.base + '/hello');
  t.equal(g.status, 405);
  t.equal(g.headers.allow, 'GET, HEAD, OPTIONS');
});

t.test('HEAD: the headers of GET and never a body, even for 404 and 405', async (t) => {
  const s = await toy(t);
  const c = await rawConnect(s.port);
  // Pipelined on one connection: a stray body byte would corrupt every response after it.
  c.write(
    'HEAD /hello?name=x HTTP/1.1\r\nHost: x\r\n\r\n' +
      'HEAD /nope HTTP/1.1\r\nHost: x\r\n\r\n' +
      'HEAD /items/1 HTTP/1.1\r\nHost: x\r\n\r\n' +
      'GET /hello?name=y HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  );
  const parts = (await c.closed).split('\r\n\r\n');
  t.equal(parts.length, 5);
  t.match(parts[0], /^HTTP\/1\.1 200 OK\r\n/);
  t.match(parts[0], /content-type: application\/json/);
  t.match(parts[0], /content-length: 10\r\n/i, 'the length of the body GET would send');
  t.match(parts[1], /^HTTP\/1\.1 404 /);
  t.match(parts[2], /^HTTP\/1\.1 405 /);
  t.match(parts[2], /allow: POST, DELETE, OPTIONS/);
  t.match(parts[3], /^HTTP\/1\.1 200 OK/);
  t.equal(parts[4], '{"hi":"y"}');
});

t.test('params by name (decoded), path, pattern and query', async (t) => {
  const s = await toy(t);
  const r = await request('GET', s.base + '/items/a%20b/sub/x?ignored=1');
  t.equal(r.status, 200);
  t.same(r.json, { params: { id: 'a b', sub: 'x' }, path: '/items/a%20b/sub/x', pattern: '/items/:id/sub/:sub' });
  const q = await request('GET', s.base + '/hello?name=K%C3%A9vin');
  t.same(q.json, { hi: 'Kévin' });
  t.equal(q.headers['content-type'], 'application/json');
  const c = await request('POST', s.base + '/items/42');
  t.equal(c.status, 201);
  t.same(c.json, { created: '42' });
});

t.test('204 has no body and no content-length; prebuilt JSON goes out as is', async (t) => {
  const s = await toy(t);
  const d = await request('DELETE', s.base + '/items/1');
  t.equal(d.status, 204);
  t.equal(d.text, '');
  t.equal(d.headers['content-length'], undefined);
  t.equal(d.headers['content-type'], undefined);
  const p = await request('GET', s.base + '/prebuilt');
  t.equal(p.text, '{"pre":"built"}');
  const x = await request('GET', s.base + '/direct');
  t.equal(x.status, 202);
  t.equal(x.headers['x-extra'], 'yes');
  t.same(x.json, { direct: true });
});

t.test('a thrown handler is a logged 500 that leaks nothing, and the server keeps serving', async (t) => {
  const s = await toy(t);
  for (const path of ['/boom', '/boom-async', '/unserialisable']) {
    const r = await request('GET', s.base + path);
    t.equal(r.status, 500, path);
    t.equal(r.headers['content-type'], PROBLEM);
    t.same(r.json, { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'internal error', code: 'internal' });
    t.notMatch(r.text, /secret|bigint/i);
  }
  t.equal(s.logger.errors.length, 3);
  t.match(s.logger.errors[0], { msg: 'request handler failed', obj: { method: 'GET', path: '/boom' } });
  t.match(String((s.logger.errors[0].obj as { err: Error }).err.message), /secret database password/);
  const ok = await request('GET', s.base + '/hello?name=again');
  t.equal(ok.status, 200);
  t.same(ok.json, { hi: 'again' });
});

t.test('a handler that forgets to reply gets a 500 instead of a hung request', async (t) => {
  const s = await toy(t);
  const r = await request('GET', s.base + '/silent');
  t.equal(r.status, 500);
  t.match(s.logger.errors, [{ msg: 'handler finished without a reply' }]);
});

t.test('401 carries the Bearer challenge; bearer tokens are read from Authorization', async (t) => {
  const s = await toy(t);
  const none = await request('GET', s.base + '/me');
  t.equal(none.status, 401);
  t.equal(none.headers['www-authenticate'], 'Bearer realm="dicechess"');
  t.equal(none.headers['content-type'], PROBLEM);
  t.match(none.json, { status: 401, title: 'Unauthorized', code: 'missing_token' });
  const basic = await request('GET', s.base + '/me', { headers: { authorization: 'Basic abc' } });
  t.equal(basic.status, 401);
  const ok = await request('GET', s.base + '/me', { headers: { authorization: 'bearer dcb_tok' } });
  t.same(ok.json, { token: 'dcb_tok' });
});

t.test('429 carries Retry-After in whole seconds', async (t) => {
  const s = await toy(t);
  const r = await request('GET', s.base + '/limited');
  t.equal(r.status, 429);
  t.equal(r.headers['retry-after'], '3');
  t.match(r.json, { status: 429, title: 'Too Many Requests', code: 'game_busy' });
});

t.test('the observer sees every response the toolkit sends', async (t) => {
  const seen: ObservedResponse[] = [];
  const s = await toy(t, (o) => seen.push(o));
  await request('GET', s.base + '/hello?name=x');
  await request('GET', s.base + '/nowhere');
  await request('PATCH', s.base + '/items/1');
  await request('GET', s.base + '/boom');
  await request('DELETE', s.base + '/items/1');
  t.same(
    seen.map((o) => [o.method, o.pattern, o.status, o.contentType]),
    [
      ['GET', '/hello', 200, 'application/json'],
      ['GET', '/*', 404, PROBLEM],
      ['PATCH', '/items/:id', 405, PROBLEM],
      ['GET', '/boom', 500, PROBLEM],
      ['DELETE', '/items/:id', 204, undefined],
    ],
  );
  t.equal(seen[0].body, '{"hi":"x"}');
  t.equal(seen[4].body, '');
});

t.test('the observer reads a compressed body as the client does: decompressed', async (t) => {
  const seen: ObservedResponse[] = [];
  const s = await toy(t, (o) => seen.push(o));
  for (const how of ['br', 'gzip']) {
    const r = await request('GET', `${s.base}/zipped/${how}`, { headers: { 'accept-encoding': how } });
    t.equal(r.headers['content-encoding'], how, `${how} went out compressed`);
  }
  t.same(seen.map((o) => o.body), ['{"zipped":true}', '{"zipped":true}']);
});

t.test('registering the same route twice is a programming error', async (t) => {
  await serve(t, (r) => {
    r.get('/x', () => noContent());
    t.throws(() => r.get('/x', () => noContent()), /registered twice/);
  });
});
