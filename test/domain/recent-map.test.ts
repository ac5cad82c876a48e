// RecentMap (src/domain/recent-map.ts) on a ManualClock: an entry lasts its window after it was last
// set, the count is capped (least recently set out first), and however many entries were set over
// time, what is held is only the last window's.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { RecentMap } from '../../src/domain/recent-map.js';

t.test('an entry lasts its window after its last set', async (t) => {
  const clock = new ManualClock();
  const m = new RecentMap<string, number>({ clock, windowMs: 1000, max: 10 });
  m.set('a', 1);
  clock.advance(600);
  m.set('b', 2);
  t.equal(m.get('a'), 1);
  clock.advance(400);
  t.equal(m.get('a'), undefined, 'a is 1000 ms old: gone');
  t.equal(m.get('b'), 2);
  m.set('b', 3); // set again: lasts from now
  clock.advance(900);
  t.equal(m.get('b'), 3);
  m.replace('b', 4); // replaced, not renewed
  clock.advance(100);
  t.equal(m.get('b'), undefined);
  t.same([...m.entries()], []);
});

t.test('at most max entries, the least recently set out first', async (t) => {
  const clock = new ManualClock();
  const m = new RecentMap<number, number>({ clock, windowMs: 60_000, max: 3 });
  for (let i = 0; i < 5; i++) m.set(i, i);
  t.equal(m.size, 3);
  t.same([...m.values()], [2, 3, 4]);
});

t.test('steady sets hold only the last window of them', async (t) => {
  const clock = new ManualClock();
  const m = new RecentMap<number, number>({ clock, windowMs: 1000, max: 1_000_000 });
  // 100 a second for 100 seconds: 10,000 set, about 100 held.
  for (let i = 0; i < 10_000; i++) {
    m.set(i, i);
    clock.advance(10);
  }
  t.ok(m.size <= 101, `held ${m.size}`);
  t.throws(() => new RecentMap({ clock, windowMs: 0, max: 1 }));
});
