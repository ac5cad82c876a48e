// Keep-alive timing of an ndjson stream, to the millisecond: the stream writes into a recording
// stand-in for the uWS response, and a ManualClock decides when everything happens.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { openNdjson } from '../../src/edge/ndjson.js';
import { Responder } from '../../src/edge/responder.js';
import { prng } from '../helpers/prng.js';
import { recordingResponse } from '../helpers/uws-stub.js';

const PERIOD = 25_000;

function open(clock: ManualClock) {
  const rec = recordingResponse(() => clock.now());
  const stream = openNdjson(new Responder(rec.raw), { clock, keepAliveMs: PERIOD });
  return { stream, writes: rec.writes };
}

t.test('after a line at t, the keep-alive goes out at exactly t + period, not a millisecond earlier', async (t) => {
  const clock = new ManualClock(0);
  const { stream, writes } = open(clock);
  t.same(writes, [{ at: 0, text: '\n' }], 'the opening blank line');
  clock.advance(10_000);
  stream.write('{"n":1}');
  clock.advance(PERIOD - 1);
  t.equal(writes.length, 2, 'nothing yet 1 ms before the period is over');
  clock.advance(1);
  t.same(writes.slice(2), [{ at: 10_000 + PERIOD, text: '\n' }], 'the keep-alive, on the dot');
  clock.advance(PERIOD);
  t.same(writes.slice(3), [{ at: 10_000 + 2 * PERIOD, text: '\n' }], 'and every period of silence after it');
  stream.end();
  t.equal(clock.pending(), 0, 'an ended stream leaves no timer behind');
});

t.test('whatever the pattern of lines, no silence is ever longer than the period', async (t) => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const clock = new ManualClock(0);
    const { stream, writes } = open(clock);
    const rand = prng(seed);
    for (let i = 0; i < 400; i++) {
      // Steps from 1 ms to two periods, so lines land at every phase of the timer.
      clock.advance(1 + Math.floor(rand() * 2 * PERIOD));
      if (rand() < 0.6) stream.write(`{"i":${i}}`);
    }
    let worst = 0;
    let late = 0;
    for (let k = 1; k < writes.length; k++) {
      const gap = writes[k].at - writes[k - 1].at;
      worst = Math.max(worst, gap);
      // A keep-alive is only ever sent when a full period has passed since the last write.
      if (writes[k].text === '\n' && gap !== PERIOD) late++;
    }
    t.ok(worst <= PERIOD, `seed ${seed}: longest silence ${worst} ms`);
    t.equal(late, 0, `seed ${seed}: every keep-alive exactly one period after the write before it`);
    t.ok(clock.now() - writes[writes.length - 1].at < PERIOD, `seed ${seed}: the silence at the end is shorter than a period too`);
    stream.end();
  }
});
