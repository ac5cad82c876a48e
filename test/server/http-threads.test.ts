// Several edge threads on one port (`http.threads`, docs/ARCHITECTURE.md "Edge threads"): every
// thread takes connections, the per-address caps and the rate limits count what all threads take,
// and the port stays one process's. Each request here goes on a connection of its own, so that the
// kernel spreads them over the threads; the threads' request counters say which thread took which.
import t from 'tap';
import { startServer } from '../../src/main.js';
import { testConfig } from '../../src/server-config.js';
import { silentLogger } from '../../src/domain/log.js';
import { bootApp, anonBot, type TestApp } from '../helpers/app.js';
import { openLines, request, type HttpResult, type LineReader } from '../helpers/http.js';
import { until } from '../helpers/poll.js';

const THREADS = { 'http.threads': 2 };

function counters(app: TestApp): number[] {
  const threads = app.server.httpThreads;
  if (threads === undefined) throw new Error('the server has no edge threads');
  return threads.requestsPerThread();
}

/** One request on a fresh connection, and the edge thread that took it (by its counter). */
async function onFreshConnection(app: TestApp, method: string, path: string, headers?: Record<string, string>): Promise<{ r: HttpResult; thread: number }> {
  const before = counters(app);
  const r = await request(method, app.base + path, { headers });
  const after = counters(app);
  const thread = after.findIndex((n, i) => n > before[i]);
  return { r, thread };
}

t.test('with http.threads 2, both threads accept connections and answer like one', async (t) => {
  const app = await bootApp(t, { overrides: THREADS });
  t.equal(counters(app).length, 2, 'two edge threads');
  const seen = new Set<number>();
  await until(async () => {
    const { r, thread } = await onFreshConnection(app, 'GET', '/health');
    t.equal(r.status, 200);
    seen.add(thread);
    return seen.size === 2 ? true : undefined;
  }, 'both threads to take a connection', 200);
  t.ok(counters(app).every((n) => n > 0), `every thread counted requests: ${counters(app).join(', ')}`);
  const missing = await request('GET', `${app.base}/no/such/route`);
  t.equal(missing.status, 404);
  t.match(missing.json, { code: 'not_found' });
  const bot = await anonBot(app, 'threaded');
  const games = await request('GET', `${app.base}/bot/games`, { headers: { authorization: `Bearer ${bot.token}` } });
  t.same(games.json, { games: [] }, 'an authenticated read through an edge thread');
});

t.test('the per-address cap on requests and streams holds across threads', async (t) => {
  const cap = 4;
  const app = await bootApp(t, { overrides: { ...THREADS, 'limits.connectionsPerIp': cap, 'limits.streamsPerIdentity': cap } });
  const bot = await anonBot(app, 'holder');
  const streams: LineReader[] = [];
  const streamThreads: number[] = [];
  for (let i = 0; i < cap; i++) {
    const before = counters(app);
    const s = await openLines(`${app.base}/bot/stream/event`, { authorization: `Bearer ${bot.token}` });
    t.equal(s.status, 200, `stream ${i + 1} opens`);
    streams.push(s);
    streamThreads.push(counters(app).findIndex((n, j) => n > before[j]));
  }
  t.comment(`streams held on threads ${streamThreads.join(', ')}`);
  // Every further request from the address is refused, whichever thread takes it.
  const refusedOn = new Set<number>();
  await until(async () => {
    const { r, thread } = await onFreshConnection(app, 'GET', '/health');
    t.equal(r.status, 429, `refused on thread ${thread}`);
    t.match(r.json, { code: 'too_many_connections' });
    refusedOn.add(thread);
    return refusedOn.size === 2 ? true : undefined;
  }, 'a refusal on each thread', 200);
  for (const s of streams) s.destroy();
  await until(async () => ((await request('GET', `${app.base}/health`)).status === 200 ? true : undefined), 'the places to come back');
});

t.test('a rate limit counts what every thread takes', async (t) => {
  const app = await bootApp(t, { overrides: { ...THREADS, 'limits.anonMintsPerHour': 3 } });
  const mintedOn: number[] = [];
  const refusedOn = new Set<number>();
  await until(async () => {
    const { r, thread } = await onFreshConnection(app, 'POST', '/bot/anon', { 'content-type': 'application/json' });
    if (r.status === 201) mintedOn.push(thread);
    else {
      t.equal(r.status, 429, 'refused past the limit');
      refusedOn.add(thread);
    }
    return refusedOn.size === 2 ? true : undefined;
  }, 'a refusal on each thread', 200);
  t.equal(mintedOn.length, 3, `exactly the limit minted, on threads ${mintedOn.join(', ')}`);
});

t.test('the port stays one process’s: a second server on it fails with the usual cause', async (t) => {
  const app = await bootApp(t, { overrides: THREADS });
  for (const threads of [2, 1]) {
    const config = testConfig({ host: '127.0.0.1', port: app.port, memory: true, logLevel: 'silent', 'http.threads': threads, shards: 1 });
    const second = await startServer(config, { log: silentLogger, shards: 'loopback' });
    if (second.ok) await second.value.close();
    t.notOk(second.ok, `a second server with ${threads} thread(s) does not start`);
    t.equal(second.ok ? '' : second.error, `cannot listen on 127.0.0.1:${app.port}: port ${app.port} is already in use`);
  }
  t.equal((await request('GET', `${app.base}/health`)).status, 200, 'the first still serves');
});
