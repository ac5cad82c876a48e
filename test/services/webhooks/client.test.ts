// The pinned webhook client against real receivers on 127.0.0.1 (insecure-local mode, the only mode a
// test can reach a socket in): the connection goes to the checked address even when DNS changes its
// answer, redirects are not followed, the answer is read up to 64 KiB, the injected clock bounds the
// wait, one origin's calls share a keep-alive connection, and refusals at connect time are reported.
import t from 'tap';
import { ManualClock, systemClock, type Clock } from '../../../src/domain/clock.js';
import { MAX_ANSWER_BYTES, UndiciWebhookClient } from '../../../src/services/webhooks/client.js';
import type { Resolver } from '../../../src/services/webhooks/policy.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';
import type { Teardown } from '../../helpers/http.js';

function client(t: Teardown, resolve: Resolver, opts: { clock?: Clock; onPinnedLookup?: (h: string, a: string) => void; maxPools?: number } = {}) {
  const c = new UndiciWebhookClient({
    policy: { resolve, allowInsecureLocalTargets: true },
    clock: opts.clock ?? systemClock,
    maxPools: opts.maxPools ?? 4,
    connectionsPerPool: 2,
    recheckMs: 60_000,
    userAgent: 'test',
    onPinnedLookup: opts.onPinnedLookup,
  });
  t.teardown(() => c.close());
  return c;
}
const noDns: Resolver = async () => {
  throw Object.assign(new Error('no DNS in this test'), { code: 'ENOTFOUND' });
};
const turn = '{"type":"yourTurn"}';

t.test('DNS rebinding: the connection goes to the address that was checked', async (t) => {
  const rx = await startReceiver(t);
  rx.onTurn = () => ({ status: 200, json: { moves: [] } });
  const asked: string[] = [];
  // First answer: the receiver's address. Every later answer: 127.0.0.2, where nothing listens.
  const rebinding: Resolver = async (host) => {
    asked.push(host);
    return asked.length === 1 ? ['127.0.0.1'] : ['127.0.0.2'];
  };
  const pinned: [string, string][] = [];
  const c = client(t, rebinding, { onPinnedLookup: (h, a) => void pinned.push([h, a]) });
  const url = `http://rebind.test:${rx.port}/hook`;
  for (let i = 0; i < 3; i++) {
    const r = await c.post(url, turn, {}, 5_000);
    t.equal(r.kind, 'answer', `call ${i + 1} answered`);
  }
  t.same(asked, ['rebind.test'], 'DNS was asked once, by the policy check');
  t.ok(pinned.length >= 1, 'the socket resolved the host through the pinned lookup');
  t.same(new Set(pinned.map(([, a]) => a)), new Set(['127.0.0.1']), 'and got the checked address every time');
  t.ok(pinned.every(([h]) => h === 'rebind.test'), 'for the host of the URL');
  t.equal(rx.deliveries.length, 3, 'every call reached the checked address');
  t.equal(rx.deliveries[0].headers.host, `rebind.test:${rx.port}`, 'the Host header is the URL host');
});

t.test('a redirect is an answer like any other: never followed', async (t) => {
  const rx = await startReceiver(t);
  const elsewhere = await startReceiver(t);
  rx.onTurn = () => ({ status: 302, json: {}, headers: { location: elsewhere.url } });
  const c = client(t, noDns);
  const r = await c.post(rx.url, turn, {}, 5_000);
  t.equal(r.kind === 'answer' && r.status, 302);
  t.equal(elsewhere.deliveries.length, 0, 'the redirect target got nothing');
});

t.test('the answer is read up to 64 KiB', async (t) => {
  const rx = await startReceiver(t);
  const c = client(t, noDns);
  rx.onTurn = () => ({ status: 200, text: 'x'.repeat(MAX_ANSWER_BYTES) });
  const fits = await c.post(rx.url, turn, {}, 5_000);
  t.equal(fits.kind === 'answer' && fits.body.length, MAX_ANSWER_BYTES, 'exactly 64 KiB is read');
  rx.onTurn = () => ({ status: 200, text: 'x'.repeat(MAX_ANSWER_BYTES + 1) });
  t.equal((await c.post(rx.url, turn, {}, 5_000)).kind, 'tooLarge', 'one byte more is cut off');
});

t.test('the injected clock bounds the wait', async (t) => {
  const rx = await startReceiver(t);
  rx.onTurn = () => 'hang';
  const clock = new ManualClock();
  const c = client(t, noDns, { clock });
  const pending = c.post(rx.url, turn, {}, 1_500);
  await rx.nextTurn();
  clock.advance(1_499);
  clock.advance(1);
  const r = await pending;
  t.equal(r.kind, 'timeout');
  t.equal(r.ms, 1_500, 'timed out exactly at the wait');
});

t.test('one origin, one keep-alive connection for sequential calls', async (t) => {
  const rx = await startReceiver(t);
  const c = client(t, noDns);
  for (let i = 0; i < 20; i++) await c.post(rx.url, turn, {}, 5_000);
  t.equal(rx.deliveries.length, 20);
  t.ok(rx.connections() <= 2, `twenty calls on at most the pool's 2 connections (${rx.connections()})`);
  t.ok(new Set(rx.deliveries.map((d) => d.remotePort)).size <= 2, 'connections are reused');
});

t.test('refused at connect time, unreachable, and closed while in flight', async (t) => {
  const c = client(t, async (h) => (h === 'zero.test' ? ['0.0.0.0'] : ['127.0.0.1']));
  const blocked = await c.post('http://zero.test:9/hook', turn, {}, 5_000);
  t.equal(blocked.kind, 'blocked', 'a host that now resolves to 0.0.0.0');
  const gone = await startReceiver(t);
  const port = gone.port;
  const closed = await startReceiver(t);
  closed.onTurn = () => 'hang';
  // Nothing listens on a port whose receiver is closed.
  const dead = new UndiciWebhookClient({
    policy: { resolve: noDns, allowInsecureLocalTargets: true }, clock: systemClock, maxPools: 1, connectionsPerPool: 1, recheckMs: 1, userAgent: 'x',
  });
  const srv = await import('node:net');
  const probe = srv.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const freePort = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const unreachable = await dead.post(`http://127.0.0.1:${freePort}/hook`, turn, {}, 5_000);
  t.equal(unreachable.kind, 'unreachable', `nothing listening: ${unreachable.kind === 'unreachable' ? unreachable.detail : ''}`);
  const inFlight = dead.post(closed.url, turn, {}, 60_000);
  await closed.nextTurn();
  await dead.close();
  t.equal((await inFlight).kind, 'closed', 'close() cuts off calls in flight');
  t.equal((await dead.post(`http://127.0.0.1:${port}/hook`, turn, {}, 1_000)).kind, 'closed', 'and refuses new ones');
});

t.test('pooled origins are bounded: the least recently used pool is closed', async (t) => {
  const a = await startReceiver(t);
  const b = await startReceiver(t);
  const c = client(t, noDns, { maxPools: 1 });
  for (let i = 0; i < 6; i++) await c.post(a.url, turn, {}, 5_000);
  const before = a.connections();
  for (let i = 0; i < 6; i++) await c.post(a.url, turn, {}, 5_000);
  t.equal(a.connections(), before, 'a keeps its pooled connections while it is the only origin');
  await c.post(b.url, turn, {}, 5_000);
  await c.post(a.url, turn, {}, 5_000);
  t.equal(a.connections(), before + 1, 'a’s pool was closed when b took the one place: a new connection');
});

t.test('connections are pooled per bot: bots hanging on one origin hold none of another bot’s', async (t) => {
  const rx = await startReceiver(t);
  const release: (() => void)[] = [];
  let bothHeld: () => void = () => {};
  const held = new Promise<void>((r) => (bothHeld = r));
  // Calls for the slow bot hang until released; the quick bot's are answered at once.
  rx.onTurn = (d) => {
    if (d.json.bot !== 'slow') return { status: 200, json: { moves: [] } };
    return new Promise((resolve) => {
      release.push(() => resolve({ status: 200, json: { moves: [] } }));
      if (release.length === 2) bothHeld();
    });
  };
  const c = client(t, noDns); // 2 connections per pool
  const slow = [0, 1].map(() => c.post(rx.url, '{"type":"yourTurn","bot":"slow"}', {}, 5_000, 'slow-bot'));
  await held;
  t.equal(release.length, 2, 'the slow bot holds both connections of its pool');
  const quick = await c.post(rx.url, '{"type":"yourTurn","bot":"quick"}', {}, 5_000, 'quick-bot');
  t.equal(quick.kind, 'answer', 'the quick bot on the same origin is answered while the slow bot’s calls hang');
  t.equal(release.length, 2, 'and no slow call was answered meanwhile');
  for (const r of release) r();
  t.same((await Promise.all(slow)).map((r) => r.kind), ['answer', 'answer']);
});
