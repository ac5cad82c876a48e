// Request bodies over real HTTP: JSON only, 64 KiB cap enforced both from Content-Length and while
// streaming, precise problems, and uploads that stall or vanish don't hurt the server.
import t from 'tap';
import { json, readJson, type BodyResult } from '../../src/edge/toolkit.js';
import { deferred, rawConnect, request, serve } from '../helpers/http.js';

const LIMIT = 64 * 1024;

async function toy(t: Parameters<typeof serve>[0]) {
  const outcomes: BodyResult[] = [];
  let nextOutcome = deferred<BodyResult>();
  const s = await serve(t, (r) => {
    r.post('/echo', async (ctx) => {
      // An await before reading: the body must have been collected from the start regardless.
      await new Promise((resolve) => setImmediate(resolve));
      const body = await readJson(ctx);
      outcomes.push(body);
      nextOutcome.resolve(body);
      if (!body.ok) return body.error;
      return json(200, { body: body.value ?? null });
    });
    r.post('/small', async (ctx) => {
      const body = await readJson(ctx);
      return body.ok ? json(200, { body: body.value ?? null }) : body.error;
    }, { bodyLimit: 10 });
    r.get('/health', () => json(200, { status: 'ok' }));
  });
  return {
    ...s,
    outcomes,
    /** The readJson result of the next /echo request, as the handler saw it. */
    next: () => {
      const d = nextOutcome;
      return d.promise.then((v) => {
        nextOutcome = deferred<BodyResult>();
        return v;
      });
    },
  };
}

const post = (base: string, path: string, body: string | Buffer, contentType?: string) =>
  request('POST', base + path, { body, headers: contentType === undefined ? {} : { 'content-type': contentType } });

t.test('JSON bodies, with parameters and +json types', async (t) => {
  const s = await toy(t);
  for (const ct of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']) {
    const r = await post(s.base, '/echo', '{"moves":["e2e4"],"n":1}', ct);
    t.equal(r.status, 200, ct);
    t.same(r.json, { body: { moves: ['e2e4'], n: 1 } });
  }
});

t.test('an empty body is fine and reads as undefined', async (t) => {
  const s = await toy(t);
  const bare = await request('POST', s.base + '/echo');
  t.equal(bare.status, 200);
  t.same(bare.json, { body: null });
  const typed = await post(s.base, '/echo', '', 'text/plain');
  t.same(typed.json, { body: null }, 'no body, so the content type does not matter');
});

t.test('a valid JSON body is parsed whatever its content type; anything else is 400', async (t) => {
  const s = await toy(t);
  for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', 'application/octet-stream', undefined]) {
    const r = await post(s.base, '/echo', '{"a":1}', ct);
    t.equal(r.status, 200, String(ct));
    t.same(r.json, { body: { a: 1 } }, `${String(ct)}: the JSON was read`);
    const bad = await post(s.base, '/echo', 'a=1&b=2', ct);
    t.equal(bad.status, 400, `${String(ct)}: a form-encoded body is not JSON`);
    t.equal(bad.headers['content-type'], 'application/problem+json');
    t.match(bad.json, { status: 400, title: 'Bad Request', code: 'malformed_json' });
  }
});

t.test('malformed JSON or bytes: 400 malformed_json', async (t) => {
  const s = await toy(t);
  for (const body of ['{"a":', 'nope', Buffer.from([0x22, 0xff, 0xfe, 0x22])]) {
    const r = await post(s.base, '/echo', body, 'application/json');
    t.equal(r.status, 400);
    t.match(r.json, { status: 400, title: 'Bad Request', code: 'malformed_json' });
  }
});

t.test('a body of exactly the limit is accepted', async (t) => {
  const s = await toy(t);
  const body = JSON.stringify('x'.repeat(LIMIT - 2));
  t.equal(Buffer.byteLength(body), LIMIT);
  const r = await post(s.base, '/echo', body, 'application/json');
  t.equal(r.status, 200);
  t.equal((r.json as { body: string }).body.length, LIMIT - 2);
});

t.test('Content-Length over the cap: 413 before any of the body is sent', async (t) => {
  const s = await toy(t);
  const c = await rawConnect(s.port);
  c.write(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`);
  const text = await c.closed;
  t.match(text, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
  t.match(text, /content-type: application\/problem\+json/i);
  t.match(text, /"code":"body_too_large"/);
  t.equal(s.outcomes.length, 0, 'the handler never ran');
  const small = await post(s.base, '/small', '{"abc":123}', 'application/json');
  t.equal(small.status, 413, 'a per-route limit applies too');
});

t.test('a chunked upload past the cap: 413 at once, without waiting for the rest', async (t) => {
  const s = await toy(t);
  const c = await rawConnect(s.port);
  c.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
  const piece = 'a'.repeat(16 * 1024);
  for (let i = 0; i < 5; i++) c.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
  // The upload is not finished (no terminating chunk) and never will be: the answer must not wait.
  const text = await c.until((x) => x.includes('body_too_large'));
  t.match(text, /^HTTP\/1\.1 413 /);
  const outcome = await s.next();
  t.match(outcome, { ok: false, error: { status: 413 } }, 'readJson reports the 413 too');
  await c.closed; // and the server hangs up rather than swallow the rest
  const health = await request('GET', s.base + '/health');
  t.equal(health.status, 200);
});

t.test('an upload that stops half-way and disconnects does not hurt the server', async (t) => {
  const s = await toy(t);
  for (let i = 0; i < 3; i++) {
    const c = await rawConnect(s.port);
    c.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"half":');
    await new Promise((resolve) => setImmediate(resolve));
    c.destroy();
    const outcome = await s.next();
    t.match(outcome, { ok: false, error: { status: 400, body: /"code":"aborted"/ } }, 'readJson resolves, never rejects');
  }
  const health = await request('GET', s.base + '/health');
  t.equal(health.status, 200);
  const again = await post(s.base, '/echo', '{"whole":true}', 'application/json');
  t.same(again.json, { body: { whole: true } });
});
