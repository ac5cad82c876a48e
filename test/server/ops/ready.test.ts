// GET /ready over HTTP on a real server: 200 while every part serves, 503 naming the part that does
// not (a closed store), and 503 from the moment the server is told to stop while /health and the
// API still answer for shutdown.notReadyMs, the window a load balancer needs to take it out.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { bootApp, diskStore } from '../../helpers/app.js';
import { until } from '../../helpers/poll.js';

interface Ready {
  status: string;
  parts: Record<string, { ok: boolean; detail?: string }>;
}

t.test('a running server is ready, and says which parts it checked', async (t) => {
  const app = await bootApp(t, { store: await diskStore(t) });
  const r = await app.req('GET', '/ready');
  t.equal(r.status, 200);
  const body = r.json as Ready;
  t.equal(body.status, 'ready');
  t.same(Object.keys(body.parts).sort(), ['server', 'shards', 'store']);
  for (const [name, part] of Object.entries(body.parts)) t.ok(part.ok, `${name} serves`);
  t.equal((await app.req('GET', '/health')).status, 200, '/health stays liveness');
});

t.test('a store that cannot be read makes the server not ready, naming the store', async (t) => {
  const store = await diskStore(t);
  const app = await bootApp(t, { store });
  await store.close();
  const r = await app.req('GET', '/ready');
  t.equal(r.status, 503);
  const body = r.json as Ready;
  t.equal(body.status, 'not_ready');
  t.equal(body.parts.store?.ok, false, 'the store is the part that does not serve');
  t.ok(body.parts.store?.detail, `with the reason: ${body.parts.store?.detail}`);
  t.equal(body.parts.shards?.ok, true, 'the shards still do');
  t.equal((await app.req('GET', '/health')).status, 200, 'alive all the same');
});

t.test('told to stop, the server answers /ready 503 at once and keeps serving until the drain', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock, overrides: { 'shutdown.notReadyMs': 5000 } });
  t.equal((await app.req('GET', '/ready')).status, 200, 'ready before');
  // What SIGTERM does in `dicechess serve` (src/serve.ts): close the running server.
  const closing = app.server.close();
  const during = await app.req('GET', '/ready');
  t.equal(during.status, 503, 'not ready as soon as the stop begins');
  t.same((during.json as Ready).parts.server, { ok: false, detail: 'shutting down' });
  t.equal((await app.req('GET', '/health')).status, 200, 'still alive');
  t.equal((await app.req('POST', '/bot/anon?name=late')).status, 201, 'and still serving the API during the window');
  let closed = false;
  void closing.then(() => (closed = true));
  clock.advance(4999);
  await new Promise((r) => setImmediate(r));
  t.notOk(closed, 'the drain waits for shutdown.notReadyMs');
  clock.advance(1);
  await until(() => (closed ? true : undefined), 'the server to close');
  t.pass('closed after the window');
});
