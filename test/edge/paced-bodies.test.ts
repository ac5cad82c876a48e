// Large bodies written a slice per event-loop turn (send-pacer.ts) through a real uWS server: they
// arrive whole and byte-exact, identity and gzip, to several readers at once and to a reader that
// takes nothing for a while; and other requests are answered while a large body is half-written (the
// pacer's turns are held back by the test, so this is a matter of order, not of timing).
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { jsonBytes, json, JSON_TYPE } from '../../src/edge/reply.js';
import { SendBudget, type SendLimits } from '../../src/edge/send-budget.js';
import type { Defer } from '../../src/edge/send-pacer.js';
import { request, serve } from '../helpers/http.js';
import { prng } from '../helpers/prng.js';
import { until } from '../helpers/poll.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Bytes no two slices share a pattern of, so that a lost, doubled or misplaced slice shows. */
function noise(bytes: number, seed: number): Buffer {
  const rand = prng(seed);
  const b = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += 4) b.writeUInt32LE(Math.floor(rand() * 2 ** 32), i);
  return b;
}

// Bigger than what loopback's socket buffers take from a reader that never reads.
const BODY = noise(24 * MiB, 18);
const ZIPPED = gzipSync(Buffer.concat([BODY.subarray(0, MiB), Buffer.alloc(2 * MiB, 0x20)])); // compresses, but stays large
const ZIPPED_PLAIN = gunzipSync(ZIPPED);

async function server(t: Parameters<typeof serve>[0], limits: Partial<SendLimits>, defer?: Defer) {
  // The unsent-byte bounds are lifted: every reader here is 127.0.0.1, and the bounds have tests of their own.
  const budget = new SendBudget(new ManualClock(), { unsentBytesPerAddress: 1024 * MiB, unsentBytesTotal: 1024 * MiB, ...limits }, defer);
  const s = await serve(
    t,
    (r) => {
      r.get('/big', () => jsonBytes(200, BODY), { cors: 'public' });
      r.get('/zipped', () => ({ status: 200, body: ZIPPED, contentType: JSON_TYPE, headers: { 'content-encoding': 'gzip' } }), { cors: 'public' });
      r.get('/small', () => json(200, { ok: true }), { cors: 'public' });
    },
    { sendBudget: budget },
  );
  return { ...s, budget };
}

/** GET path; resolves with the status, headers and the raw body bytes (not decoded). */
function fetchBytes(port: number, path: string, onData?: (received: number) => void): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false, headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      let received = 0;
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        received += c.length;
        onData?.(received);
      });
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('several readers at once get every body whole and byte-exact, identity and gzip', async (t) => {
  // Small slices and a small turn budget: many turns, every one shared by several answers.
  const s = await server(t, { sliceBytes: 16 * KiB, bytesPerTurn: 40 * KiB });
  const turnsBefore = s.budget.pacer.turns;
  const answers = await Promise.all([
    fetchBytes(s.port, '/big'),
    fetchBytes(s.port, '/zipped'),
    fetchBytes(s.port, '/big'),
    fetchBytes(s.port, '/zipped'),
    fetchBytes(s.port, '/big'),
  ]);
  for (const [i, a] of answers.entries()) {
    t.equal(a.status, 200, `answer ${i}`);
    if (a.headers['content-encoding'] === 'gzip') {
      t.equal(a.body.length, ZIPPED.length, `gzip answer ${i}: every byte`);
      t.ok(a.body.equals(ZIPPED), `gzip answer ${i}: the kept compressed bytes, in order`);
      t.ok(gunzipSync(a.body).equals(ZIPPED_PLAIN), 'and they decompress to the text');
    } else {
      t.equal(Number(a.headers['content-length']), BODY.length);
      t.ok(a.body.equals(BODY), `identity answer ${i}: byte-exact`);
    }
  }
  t.ok(s.budget.pacer.turns - turnsBefore > BODY.length / (40 * KiB), `written over many turns (${s.budget.pacer.turns - turnsBefore})`);
  t.equal(s.budget.unsent(), 0, 'nothing is left counted as unsent');
});

t.test('a reader that takes nothing for a while still gets the whole body, and others are served meanwhile', async (t) => {
  const s = await server(t, { sliceBytes: 64 * KiB, bytesPerTurn: 128 * KiB });
  const sock = connect({ host: '127.0.0.1', port: s.port });
  t.teardown(() => void sock.destroy());
  sock.on('error', () => {});
  sock.pause();
  const chunks: Buffer[] = [];
  sock.on('data', (c: Buffer) => chunks.push(c));
  sock.write('GET /big HTTP/1.1\r\nHost: test\r\n\r\n');
  // The server fills the socket and waits for it to drain (its unsent count stays above zero).
  await until(() => (s.budget.unsent() > 0 && s.budget.pacer.waiting === 0 ? true : undefined), 'the slow answer to wait for its socket');
  const small = await request('GET', `${s.base}/small`);
  t.equal(small.status, 200, 'a small request is answered while the body waits');
  const other = await fetchBytes(s.port, '/big');
  t.ok(other.body.equals(BODY), 'another reader gets a whole body meanwhile');
  t.ok(s.budget.unsent() > 0, 'the slow answer is still pending');

  sock.resume();
  const whole = await until(() => {
    const got = Buffer.concat(chunks);
    const end = got.indexOf('\r\n\r\n');
    return end >= 0 && got.length - end - 4 >= BODY.length ? got : undefined;
  }, 'the slow reader to have the whole body', 100_000);
  const split = whole.indexOf('\r\n\r\n');
  const head = whole.subarray(0, split).toString('latin1');
  t.match(head, /^HTTP\/1\.1 200 OK/);
  t.match(head.toLowerCase(), new RegExp(`content-length: ${BODY.length}`));
  t.ok(whole.subarray(split + 4).equals(BODY), 'byte-exact after the pause');
  await until(() => (s.budget.unsent() === 0 ? true : undefined), 'the count to drop to zero');
});

t.test('requests that arrive while a large body is half-written are answered before it ends', async (t) => {
  // The pacer's turns run only when the test says so.
  const turns: (() => void)[] = [];
  const s = await server(t, { sliceBytes: 64 * KiB, bytesPerTurn: 64 * KiB }, (cb) => turns.push(cb));
  const order: string[] = [];
  let received = 0;
  const big = fetchBytes(s.port, '/big', (n) => (received = n)).then((a) => {
    order.push('big');
    return a;
  });
  await until(() => (turns.length > 0 ? true : undefined), 'the large answer to ask for its next turn');
  t.ok(s.budget.unsent() > 0, 'the large answer is under way');

  for (let i = 0; i < 3; i++) {
    const r = await request('GET', `${s.base}/small`);
    order.push(`small ${r.status}`);
  }
  t.same(order, ['small 200', 'small 200', 'small 200'], 'three requests answered while the body waits for its turn');
  t.ok(received < BODY.length, `the reader has only part of the body so far (${received} bytes)`);

  // Now let the turns run until the body is out.
  let done = false;
  void big.then(() => (done = true));
  await until(
    () => {
      turns.splice(0).forEach((cb) => cb());
      return done ? true : undefined;
    },
    'the large body to finish',
    100_000,
  );
  const a = await big;
  t.ok(a.body.equals(BODY), 'it arrives whole and byte-exact');
  t.same(order, ['small 200', 'small 200', 'small 200', 'big']);
});
