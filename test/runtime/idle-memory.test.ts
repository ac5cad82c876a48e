// The idle collection: a thread is collected once it has gone quiet after real work, never while it
// is busy, and not again while it stays idle. Driven by made-up CPU readings (no clock, no timer).
import t from 'tap';
import { armIdleCollection, fullCollection, IdleCollector } from '../../src/idle-memory.js';

/** Feeds readings of `share` CPU per 5-second interval; returns on which readings it said collect. */
function feed(c: IdleCollector, cpu: { s: number }, shares: number[]): boolean[] {
  return shares.map((share) => {
    cpu.s += share * 5;
    return c.observe(cpu.s, 5);
  });
}

t.test('collects after two quiet intervals that follow work, once', async (t) => {
  const c = new IdleCollector();
  const cpu = { s: 10 };
  t.notOk(c.observe(cpu.s, 0), 'the first reading only sets the start');
  t.same(feed(c, cpu, [0.5, 0.5, 0.01, 0.01, 0.01, 0.0, 0.0]), [false, false, false, true, false, false, false]);
});

t.test('a busy interval between quiet ones starts the count again', async (t) => {
  const c = new IdleCollector();
  const cpu = { s: 0 };
  c.observe(cpu.s, 0);
  t.same(feed(c, cpu, [0.5, 0.01, 0.4, 0.01, 0.01]), [false, false, false, false, true]);
});

t.test('too little work since the last collection: none', async (t) => {
  const c = new IdleCollector({ minWorkSeconds: 1 });
  const cpu = { s: 0 };
  c.observe(cpu.s, 0);
  // 0.1 CPU share for one interval is 0.5 s of work: below the minimum.
  t.same(feed(c, cpu, [0.1, 0, 0, 0, 0]), [false, false, false, false, false]);
  // Another 0.5 s makes it 1 s: the next quiet spell collects.
  t.same(feed(c, cpu, [0.1, 0, 0]), [false, false, true]);
});

t.test('a reading with no wall time resets the CPU start without counting', async (t) => {
  const c = new IdleCollector({ quietIntervals: 1, minWorkSeconds: 0.5 });
  c.observe(0, 0);
  t.notOk(c.observe(100, 0), 'no interval: not a decision');
  t.notOk(c.observe(100.01, 5), 'the 100 s before the reset are not counted as work');
  t.ok(c.observe(102, 5) === false && c.observe(102, 5), 'work, then a quiet interval');
});

t.test('the collection can be had and arming can be turned off', async (t) => {
  const gc = fullCollection();
  t.type(gc, 'function');
  gc?.();
  let armed = 0;
  const disarm = armIdleCollection(() => armed++, 60_000, { DICECHESS_IDLE_GC: '0' });
  disarm();
  const disarm2 = armIdleCollection(() => armed++, 60_000, {});
  disarm2();
  t.equal(armed, 0, 'nothing collected while disarmed straight away');
});
