// Output pumped into an ndjson stream (ndjson-pump.ts) through a real uWS server: it arrives whole and
// byte-exact, written as many chunks of about a slice each (read off the wire: one HTTP chunk per
// write), its pieces made only as they go out; a reader that takes nothing holds the source back and
// is cut off after the drain timeout; the send budget's bytes per minute hold it back too; and lines
// written meanwhile, and the end, come after it.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import type { NdjsonStream } from '../../src/edge/ndjson.js';
import { SendBudget, type SendLimits } from '../../src/edge/send-budget.js';
import { chunksOf, rawGet } from '../helpers/chunked.js';
import { serve } from '../helpers/http.js';
import { until } from '../helpers/poll.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const LINE = `${JSON.stringify({ pad: 'y'.repeat(500) })}\n`;

/** A source of `count` lines (Infinity: endless), counting the bytes it has made. */
function lines(count: number): { made: number; pieces: Iterator<string> } {
  const src = { made: 0, pieces: [][Symbol.iterator]() as Iterator<string> };
  src.pieces = (function* () {
    for (let i = 0; i < count; i++) {
      src.made += LINE.length;
      yield LINE;
    }
  })();
  return src;
}

async function server(t: Parameters<typeof serve>[0], limits: Partial<SendLimits>, route: (s: NdjsonStream) => void) {
  const clock = new ManualClock();
  const budget = new SendBudget(clock, { unsentBytesPerAddress: 1024 * MiB, unsentBytesTotal: 1024 * MiB, ...limits });
  const s = await serve(t, (r) => r.get('/pumped', (ctx) => route(ctx.ndjson()), { cors: 'public' }), { sendBudget: budget });
  return { ...s, clock, budget };
}

t.test('a pumped source arrives whole and byte-exact, in many chunks of about a slice', async (t) => {
  const COUNT = 40_000; // about 20 MiB
  const src = lines(COUNT);
  const s = await server(t, {}, (stream) => stream.pump(src.pieces, () => stream.end()));
  const r = rawGet(t, s.port, '/pumped');
  await until(() => (chunksOf(r.bytes()).complete ? true : undefined), 'the whole answer');
  const { chunks } = chunksOf(r.bytes());
  t.equal(Buffer.concat(chunks).toString(), `\n${LINE.repeat(COUNT)}`, 'byte-exact: the opening blank line, then every line');
  const slice = s.budget.limits.sliceBytes;
  t.ok(chunks.length > (COUNT * LINE.length) / slice, `${chunks.length} chunks`);
  t.ok(Math.max(...chunks.map((c) => c.length)) <= slice + LINE.length, 'none larger than a slice and a line');
  t.equal(s.budget.unsent(), 0, 'nothing left counted');
});

t.test('a reader that takes nothing holds the source back, and is cut off after the drain timeout', async (t) => {
  const src = lines(Infinity);
  let closedWith = '';
  const s = await server(t, { drainTimeoutMs: 30_000 }, (stream) => {
    stream.onClose((why) => (closedWith = why));
    stream.pump(src.pieces, () => stream.end());
  });
  const r = rawGet(t, s.port, '/pumped', true);
  // The source is drawn on until the socket's buffers are full, then waits for the reader.
  let last = -1;
  await until(async () => {
    const now = src.made;
    const stalled = now > 0 && now === last;
    last = now;
    await new Promise((res) => setTimeout(res, 50));
    return stalled && src.made === now ? true : undefined;
  }, 'the source to stop being drawn on');
  t.ok(src.made < 64 * MiB, `an endless source drawn on for ${(src.made / MiB).toFixed(1)} MiB: what the socket buffers hold`);
  t.ok(s.budget.unsent() <= s.budget.limits.sliceBytes + LINE.length, 'at most one slice counted as unsent');
  s.clock.advance(30_000);
  r.sock.resume();
  await r.closed;
  t.equal(closedWith, 'slow', 'cut off as a slow reader');
  t.equal(s.budget.unsent(), 0, 'nothing left counted');
});

t.test('past its bytes per minute the pumped answer waits, then goes on', async (t) => {
  const COUNT = 6_000; // about 3 MiB
  const src = lines(COUNT);
  const s = await server(t, { bodyBytesPerMinute: MiB }, (stream) => stream.pump(src.pieces, () => stream.end()));
  const r = rawGet(t, s.port, '/pumped');
  await until(() => (src.made >= MiB - s.budget.limits.sliceBytes ? true : undefined), 'the first minute’s bytes');
  await new Promise((res) => setTimeout(res, 100));
  t.ok(src.made < 1.5 * MiB, `held back at ${(src.made / MiB).toFixed(2)} MiB`);
  t.notOk(chunksOf(r.bytes()).complete, 'not all sent yet');
  for (let i = 0; i < 10 && !chunksOf(r.bytes()).complete; i++) {
    s.clock.advance(60_000);
    await new Promise((res) => setTimeout(res, 50));
  }
  t.equal(Buffer.concat(chunksOf(r.bytes()).chunks).toString(), `\n${LINE.repeat(COUNT)}`, 'then all of it, byte-exact');
});

t.test('lines written while a source is pumped follow it, and the end waits for it', async (t) => {
  const big = Array.from({ length: 4000 }, (_, i) => `{"part":${i}}`);
  const s = await server(t, {}, (stream) => {
    stream.pump(big[Symbol.iterator]());
    stream.write('{"live":1}');
    stream.end();
  });
  const r = rawGet(t, s.port, '/pumped');
  await until(() => (chunksOf(r.bytes()).complete ? true : undefined), 'the whole answer');
  t.equal(Buffer.concat(chunksOf(r.bytes()).chunks).toString(), `\n${big.join('')}{"live":1}\n`);
});

// A source that must load something first (a cluster node's export of games out of its cache) hands
// a promise: the pump takes nothing more from it until the promise settles, then goes on; a promise
// that fails cuts the stream as a failing source does.
t.test('a source that hands a promise is waited for, and one whose promise fails is cut off', async (t) => {
  const gates: { open: () => void; fail: (e: Error) => void }[] = [];
  let drawn = 0;
  const source = (fails: boolean): Iterator<string | PromiseLike<unknown>> =>
    (function* () {
      for (let i = 0; i < 3; i++) {
        drawn++;
        yield LINE;
        yield new Promise<void>((open, fail) => gates.push({ open, fail: fails && i === 1 ? fail : () => open() }));
      }
    })();
  let closedWith = '';
  let failing = false;
  const s = await server(t, {}, (stream) => {
    stream.onClose((why) => (closedWith = why));
    stream.pump(source(failing), () => stream.end());
  });
  const r = rawGet(t, s.port, '/pumped');
  await until(() => (gates.length >= 1 ? true : undefined), 'the first promise');
  t.equal(drawn, 1, 'nothing more taken while the promise is pending');
  t.equal(chunksOf(r.bytes()).complete, false, 'and the answer not ended');
  gates[0].open();
  await until(() => (gates.length === 2 ? true : undefined), 'the second promise');
  gates[1].open();
  await until(() => (gates.length === 3 ? true : undefined), 'the third promise');
  gates[2].open();
  await until(() => (chunksOf(r.bytes()).complete ? true : undefined), 'the whole answer');
  t.equal(Buffer.concat(chunksOf(r.bytes()).chunks).toString(), `\n${LINE.repeat(3)}`, 'every line, in order');
  t.equal(closedWith, 'end', 'ended normally');

  failing = true;
  gates.length = 0;
  closedWith = '';
  const r2 = rawGet(t, s.port, '/pumped');
  await until(() => (gates.length === 1 ? true : undefined), 'the first promise');
  gates[0].open();
  await until(() => (gates.length === 2 ? true : undefined), 'the second promise');
  gates[1].fail(new Error('the store did not answer'));
  await r2.closed;
  t.equal(closedWith, 'error', 'cut off as a failed source');
  t.equal(s.budget.unsent(), 0, 'nothing left counted');
});
