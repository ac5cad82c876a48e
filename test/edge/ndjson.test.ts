// ndjson streams over real HTTP: framing, keep-alives driven by a ManualClock (no sleeping),
// client disconnects, backpressure without loss, and a stalled client cut off at the buffer limit
// while the server stays healthy.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { json, type CloseReason, type NdjsonStream } from '../../src/edge/toolkit.js';
import { deferred, openLines, request, serve } from '../helpers/http.js';

const MiB = 1024 * 1024;
const BULK_LINES = 100_000; // about 50 MiB: more than loopback socket buffers hold

async function toy(t: Parameters<typeof serve>[0]) {
  const clock = new ManualClock();
  let opened = deferred<NdjsonStream>();
  let closed = deferred<CloseReason>();
  const closes: CloseReason[] = [];
  const flood = { bytes: 0, maxQueued: 0 };
  const pushedBack = deferred<boolean>();
  const track = (s: NdjsonStream): void => {
    s.onClose((why) => {
      closes.push(why);
      closed.resolve(why);
    });
    opened.resolve(s);
  };
  const s = await serve(
    t,
    (r) => {
      r.get('/events', async (ctx) => {
        await Promise.resolve(); // opened after an await: every write is a late, corked one
        track(ctx.ndjson());
      });
      // Writes 1 KiB lines as fast as the event loop allows, until the stream refuses them.
      r.get('/flood', (ctx) => {
        const s = ctx.ndjson();
        track(s);
        const line = JSON.stringify({ pad: 'x'.repeat(1000) });
        const pump = (): void => {
          for (let i = 0; i < 256; i++) {
            if (!s.write(line)) return;
            flood.bytes += line.length + 1;
            flood.maxQueued = Math.max(flood.maxQueued, s.queuedBytes);
          }
          if (flood.bytes < 512 * MiB) setImmediate(pump);
        };
        pump();
      });
      // Numbered lines in batches, then a server-side end: every line must arrive, in order. Says
      // when the socket first pushes back (or that it never did, once all is written).
      r.get('/bulk', (ctx) => {
        const s = ctx.ndjson({ maxBufferedBytes: 256 * MiB });
        track(s);
        const pad = 'y'.repeat(500);
        let n = 0;
        const pump = (): void => {
          for (let i = 0; i < 500; i++, n++) s.write(`{"n":${n},"pad":"${pad}"}`);
          if (s.queuedBytes > 0) pushedBack.resolve(true);
          if (n < BULK_LINES) setImmediate(pump);
          else {
            pushedBack.resolve(false);
            s.end();
          }
        };
        pump();
      });
      r.get('/fail', async (ctx) => {
        track(ctx.ndjson());
        // Let the 200 go out first (microtasks still run inside uWS's corked callback): the failure
        // is mid-stream.
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('broke mid-stream');
      });
      r.get('/health', () => json(200, { status: 'ok' }));
    },
    { stream: { clock, keepAliveMs: 25_000 } },
  );
  return {
    ...s,
    clock,
    closes,
    flood,
    pushedBack: pushedBack.promise,
    opened: () => opened.promise.finally(() => (opened = deferred())),
    closed: () => closed.promise.finally(() => (closed = deferred())),
  };
}

t.test('framing and keep-alives on the injected clock', { timeout: 20_000 }, async (t) => {
  const s = await toy(t);
  const c = await openLines(s.base + '/events');
  t.equal(c.status, 200);
  t.equal(c.headers['content-type'], 'application/x-ndjson');
  t.match(c.headers['cache-control'], /no-cache/);
  const stream = await s.opened();
  t.equal(await c.next(), '', 'a blank line opens the stream, so the 200 is seen at once');

  t.ok(stream.write('{"a":1}'));
  t.equal(await c.next(), '{"a":1}', 'a newline is added');
  stream.write('{"b":2}\n');
  t.equal(await c.next(), '{"b":2}', 'a line that has one is written as is');

  // Keep-alives are due exactly one period after the last thing written, whatever the timer's phase.
  s.clock.advance(24_999);
  stream.write('{"c":3}');
  t.equal(await c.next(), '{"c":3}', 'no keep-alive 1 ms short of the period');
  s.clock.advance(25_000); // exactly 25 s after {"c":3}
  stream.write('{"d":4}');
  t.equal(await c.next(), '', 'a keep-alive exactly 25 s after the last line');
  t.equal(await c.next(), '{"d":4}');

  s.clock.advance(10_000);
  stream.write('{"e":5}');
  s.clock.advance(24_999); // 34.999 s after {"d":4}, 24.999 s after {"e":5}
  stream.write('{"f":6}');
  t.equal(await c.next(), '{"e":5}');
  t.equal(await c.next(), '{"f":6}', 'no keep-alive between two lines less than a period apart');

  s.clock.advance(50_000); // two silent periods after {"f":6}
  stream.write('{"g":7}');
  t.equal(await c.next(), '');
  t.equal(await c.next(), '');
  t.equal(await c.next(), '{"g":7}', 'one keep-alive per silent period');

  stream.end();
  t.equal(await c.next(), undefined);
  t.same(await c.closed, { complete: true }, 'a server-side end is a clean end of the response');
  t.same(s.closes, ['end']);
  t.equal(s.clock.pending(), 0, 'the keep-alive timer is gone');
  t.notOk(stream.write('{"late":1}'), 'writes after the end are refused');
  const health = await request('GET', s.base + '/health');
  t.equal(health.status, 200);
});

t.test('HEAD on a stream route: the headers, no stream', { timeout: 20_000 }, async (t) => {
  const s = await toy(t);
  const r = await request('HEAD', s.base + '/events');
  t.equal(r.status, 200);
  t.equal(r.headers['content-type'], 'application/x-ndjson');
  t.equal(r.text, '');
  t.equal(await s.closed(), 'end', 'the handler sees a stream that is already over');
  t.equal(s.clock.pending(), 0);
});

t.test('a client disconnect closes the stream exactly once and stops the timer', { timeout: 20_000 }, async (t) => {
  const s = await toy(t);
  const c = await openLines(s.base + '/events');
  const stream = await s.opened();
  t.equal(await c.next(), '');
  t.equal(s.clock.pending(), 1);
  c.destroy();
  t.equal(await s.closed(), 'client');
  t.ok(stream.closed);
  t.equal(s.clock.pending(), 0);
  t.notOk(stream.write('{"x":1}'));
  stream.end();
  stream.abort();
  let late: CloseReason | undefined;
  stream.onClose((why) => (late = why));
  t.equal(late, 'client', 'a callback added after the close runs at once');
  t.same(s.closes, ['client'], 'the close callbacks ran once');
});

t.test('a slow but live client gets every line, in order, through backpressure', { timeout: 60_000 }, async (t) => {
  const s = await toy(t);
  const c = await openLines(s.base + '/bulk');
  t.equal(await c.next(), '');
  c.pause();
  t.equal(await s.pushedBack, true, 'the stalled socket pushed back and lines were queued');
  c.resume();
  let expected = 0;
  for (;;) {
    const line = await c.next();
    if (line === undefined) break;
    if (line === '') continue;
    const n = (JSON.parse(line) as { n: number }).n;
    if (n !== expected) {
      t.fail(`line ${n} arrived where ${expected} was expected`);
      break;
    }
    expected++;
  }
  t.equal(expected, BULK_LINES, 'all lines arrived');
  t.same(await c.closed, { complete: true });
  t.same(s.closes, ['end']);
});

t.test('a client that stops reading is cut off past 1 MiB behind; the server stays healthy', { timeout: 60_000 }, async (t) => {
  const s = await toy(t);
  const c = await openLines(s.base + '/flood');
  c.pause();
  t.equal(await s.closed(), 'slow');
  t.ok(s.flood.bytes > MiB, `the server wrote ${s.flood.bytes} bytes before giving up`);
  t.ok(s.flood.maxQueued <= MiB, 'what it held back never exceeded the limit');
  t.ok(s.flood.bytes < 512 * MiB, 'it gave up long before the pump did');
  const health = await request('GET', s.base + '/health');
  t.equal(health.status, 200);
  c.resume();
  t.same(await c.closed, { complete: false }, 'the client sees a cut, not a clean end');
});

t.test('a handler that throws mid-stream cuts the connection and logs the bug', { timeout: 20_000 }, async (t) => {
  const s = await toy(t);
  const c = await openLines(s.base + '/fail');
  t.equal(await s.closed(), 'error');
  t.same(await c.closed, { complete: false });
  t.match(s.logger.errors, [{ msg: 'request handler failed' }]);
  const health = await request('GET', s.base + '/health');
  t.equal(health.status, 200);
});
