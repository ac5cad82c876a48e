// The rate limiter on a ManualClock: sliding windows, Retry-After arithmetic, count-only-successes
// through refund, and a key table that never grows past maxKeys.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { RateLimiter } from '../../src/edge/toolkit.js';

const HOUR = 3_600_000;

t.test('at most limit actions in any window; Retry-After says when the oldest one expires', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ limit: 3, windowMs: 60_000, maxKeys: 100, clock });
  t.same(rl.take('a'), { ok: true, remaining: 2 });
  clock.advance(10_000);
  t.same(rl.take('a'), { ok: true, remaining: 1 });
  t.same(rl.take('a'), { ok: true, remaining: 0 });
  t.same(rl.take('a'), { ok: false, retryAfterSeconds: 50 });
  t.same(rl.take('b'), { ok: true, remaining: 2 }, 'keys are independent');
  clock.advance(49_000);
  t.same(rl.take('a'), { ok: false, retryAfterSeconds: 1 });
  clock.advance(500);
  t.same(rl.take('a'), { ok: false, retryAfterSeconds: 1 }, 'half a second left still says 1');
  clock.advance(500);
  t.same(rl.take('a'), { ok: true, remaining: 0 }, 'the first action left the window');
  t.same(rl.take('a'), { ok: false, retryAfterSeconds: 10 }, 'sliding: the next slot frees when the 2nd action expires');
  clock.advance(60_000);
  t.same(rl.take('a'), { ok: true, remaining: 2 }, 'all expired');
});

t.test('refused attempts do not count', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ limit: 5, windowMs: HOUR, maxKeys: 100, clock });
  for (let i = 0; i < 5; i++) t.ok(rl.take('ip').ok);
  t.notOk(rl.take('ip').ok);
  t.notOk(rl.take('ip').ok, 'a refusal is not recorded either');
  clock.advance(HOUR);
  t.ok(rl.take('ip').ok, 'so the budget comes back on time');
});

t.test('count only successes: take, then refund on failure; peek never counts', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ limit: 2, windowMs: HOUR, maxKeys: 100, clock });
  t.same(rl.peek('ip'), { ok: true, remaining: 1 });
  t.same(rl.peek('ip'), { ok: true, remaining: 1 }, 'peeking is free');
  for (let i = 0; i < 10; i++) {
    t.ok(rl.take('ip').ok);
    rl.refund('ip'); // e.g. 409 identity taken
  }
  t.ok(rl.take('ip').ok);
  t.ok(rl.take('ip').ok);
  t.same(rl.peek('ip'), { ok: false, retryAfterSeconds: 3600 });
  rl.refund('nobody');
  t.equal(rl.size, 1, 'refunding an unknown key creates nothing');
});

t.test('the key table is bounded; the least recently active key goes first', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ limit: 1, windowMs: HOUR, maxKeys: 3, clock });
  for (const k of ['a', 'b', 'c']) {
    rl.take(k);
    clock.advance(1);
  }
  t.notOk(rl.take('a').ok);
  t.equal(rl.size, 3);
  rl.take('d');
  t.equal(rl.size, 3);
  t.ok(rl.take('a').ok, 'a, the oldest, was forgotten');
  t.notOk(rl.take('c').ok, 'c is still remembered');
  for (let i = 0; i < 10_000; i++) rl.take(`flood-${i}`);
  t.equal(rl.size, 3, 'a flood of keys cannot grow it');
  clock.advance(HOUR);
  t.ok(rl.take('flood-9999').ok);
  t.equal(rl.size, 3);
});

t.test('nonsense options are refused at construction', async (t) => {
  const clock = new ManualClock();
  t.throws(() => new RateLimiter({ limit: 0, windowMs: 1000, maxKeys: 1, clock }));
  t.throws(() => new RateLimiter({ limit: 1, windowMs: 0, maxKeys: 1, clock }));
  t.throws(() => new RateLimiter({ limit: 1, windowMs: 1000, maxKeys: 0, clock }));
});
