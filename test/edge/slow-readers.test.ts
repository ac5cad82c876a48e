// Large answers and clients that never read (raw node:net sockets): the server's own count of unsent
// bytes stays within its bounds, a slow reader keeps its place under the per-address connection cap
// until its last byte has left, other addresses are served meanwhile, a reader that takes nothing is
// disconnected after the drain timeout (ManualClock), and body bytes per minute are budgeted.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { parseTrustedProxies } from '../../src/edge/client-ip.js';
import { json, jsonBytes } from '../../src/edge/reply.js';
import { SendBudget, type SendLimits } from '../../src/edge/send-budget.js';
import { request, serve } from '../helpers/http.js';
import { until } from '../helpers/poll.js';

const MiB = 1024 * 1024;
// Bigger than what loopback's socket buffers take from a reader that never reads.
const BIG = Buffer.alloc(24 * MiB, 0x20);
BIG[0] = 0x5b; // '['
BIG[BIG.length - 1] = 0x5d; // ']'

const proxies = parseTrustedProxies(['127.0.0.0/8']);
if (!proxies.ok) throw new Error(proxies.error);

async function server(t: Parameters<typeof serve>[0], limits: Partial<SendLimits>, maxOpenPerIp = 100) {
  const clock = new ManualClock();
  const budget = new SendBudget(clock, limits);
  const s = await serve(
    t,
    (r) => {
      r.get('/big', () => jsonBytes(200, BIG), { cors: 'public' });
      r.get('/small', () => json(200, { ok: true }), { cors: 'public' });
    },
    { sendBudget: budget, maxOpenPerIp, trustedProxies: proxies.ok ? proxies.value : undefined },
  );
  return { ...s, clock, budget };
}

/** A client at `address` (via X-Forwarded-For) that asks for /big and never reads a byte. */
function slowReader(t: Parameters<typeof serve>[0], port: number, address: string): Socket {
  const sock = connect({ host: '127.0.0.1', port });
  sock.pause();
  sock.write(`GET /big HTTP/1.1\r\nHost: test\r\nX-Forwarded-For: ${address}\r\n\r\n`);
  sock.on('error', () => {});
  t.teardown(() => void sock.destroy());
  return sock;
}

const closed = (sock: Socket): Promise<void> => new Promise((r) => (sock.closed ? r() : sock.once('close', () => r())));

t.test('slow readers hold their connection places until drained, are bounded, and are cut after the drain timeout', async (t) => {
  const s = await server(t, { unsentBytesPerAddress: 200 * MiB, drainTimeoutMs: 10_000 }, 3);
  const slow = [0, 1, 2].map(() => slowReader(t, s.port, '10.0.0.1'));
  await until(() => (s.budget.unsent('10.0.0.1') > 0 && s.budget.unsent() === s.budget.unsent('10.0.0.1') ? true : undefined), 'the slow answers to be pending');
  t.ok(s.budget.unsent() > 0, `${s.budget.unsent()} bytes wait for the slow readers`);
  t.ok(s.budget.unsent() <= 3 * BIG.length, 'never more than the bodies asked for');

  const same = await request('GET', `${s.base}/small`, { headers: { 'x-forwarded-for': '10.0.0.1' } });
  t.equal(same.status, 429, 'the slow address still holds its 3 places: the cap holds until the last byte has left');
  t.match(same.json, { code: 'too_many_connections' });
  const other = await request('GET', `${s.base}/small`, { headers: { 'x-forwarded-for': '10.0.0.2' } });
  t.equal(other.status, 200, 'another address is served');
  const otherBig = await request('GET', `${s.base}/big`, { headers: { 'x-forwarded-for': '10.0.0.2' } });
  t.equal(otherBig.status, 200, 'and gets a large answer whole');
  t.equal(otherBig.text.length, BIG.length);

  s.clock.advance(10_000);
  await until(() => (s.budget.unsent() === 0 ? true : undefined), 'the slow answers to be dropped');
  t.equal(s.budget.unsent(), 0, 'after the drain timeout nothing is pending');
  // A paused socket reports its end only once its data is read: read what arrived, then see it closed.
  for (const sock of slow) sock.resume();
  await Promise.all(slow.map(closed));
  t.ok(slow.every((sock) => sock.closed), 'the server closed every slow connection');
  const again = await until(async () => {
    const r = await request('GET', `${s.base}/small`, { headers: { 'x-forwarded-for': '10.0.0.1' } });
    return r.status === 200 ? r : undefined;
  }, 'the slow address’s places to come back');
  t.equal(again.status, 200);
});

t.test('past the unsent-bytes bound a new large answer gets 429; small answers and other addresses are not affected', async (t) => {
  const s = await server(t, { unsentBytesPerAddress: BIG.length, unsentBytesTotal: 2 * BIG.length });
  slowReader(t, s.port, '10.0.0.1');
  await until(() => (s.budget.unsent('10.0.0.1') > 0 ? true : undefined), 'the first answer to be pending');
  const more = await request('GET', `${s.base}/big`, { headers: { 'x-forwarded-for': '10.0.0.1' } });
  t.equal(more.status, 429, 'the same address asks for more while its first answer is unsent');
  t.match(more.json, { code: 'too_many_unsent_bytes' });
  t.ok(Number(more.headers['retry-after']) >= 1);
  t.equal((await request('GET', `${s.base}/small`, { headers: { 'x-forwarded-for': '10.0.0.1' } })).status, 200, 'small answers still go out');
  // Fill the total with a second slow address; a third address is then refused as well.
  slowReader(t, s.port, '10.0.0.2');
  await until(() => (s.budget.unsent('10.0.0.2') > 0 ? true : undefined), 'the second answer to be pending');
  t.ok(s.budget.unsent() <= 2 * BIG.length, `the total stays bounded (${s.budget.unsent()} bytes)`);
  const third = await request('GET', `${s.base}/big`, { headers: { 'x-forwarded-for': '10.0.0.3' } });
  t.equal(third.status, 429, 'the server-wide bound');
});

t.test('large-body bytes per minute are budgeted per address', async (t) => {
  const s = await server(t, { bodyBytesPerMinute: 2 * BIG.length });
  const get = (address: string) => request('GET', `${s.base}/big`, { headers: { 'x-forwarded-for': address } });
  t.equal((await get('10.0.0.1')).status, 200);
  t.equal((await get('10.0.0.1')).status, 200);
  const over = await get('10.0.0.1');
  t.equal(over.status, 429, 'the third body in a minute');
  t.match(over.json, { code: 'too_many_body_bytes' });
  t.equal(over.headers['retry-after'], '30', 'half a minute refills one body');
  t.equal((await get('10.0.0.2')).status, 200, 'another address has its own budget');
  s.clock.advance(30_000);
  t.equal((await get('10.0.0.1')).status, 200, 'the budget refills with time');
});
