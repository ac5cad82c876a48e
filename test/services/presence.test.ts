// The last-seen record behind "an authenticated request within the last minute": answers by the
// window, and holds at most its bound, dropping the least recently seen first.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { Presence } from '../../src/services/presence.js';

t.test('recent within the window, not after', async (t) => {
  const clock = new ManualClock();
  const p = new Presence(clock, 60_000, 10);
  t.notOk(p.recent('a'), 'never seen');
  p.touch('a');
  clock.advance(60_000);
  t.ok(p.recent('a'), 'seen exactly a minute ago');
  clock.advance(1);
  t.notOk(p.recent('a'), 'a minute and a millisecond ago: away');
  p.touch('a');
  t.ok(p.recent('a'), 'a new request makes it recent again');
});

t.test('bounded: stale entries go as new ones arrive, and never more than maxEntries', async (t) => {
  const clock = new ManualClock();
  const p = new Presence(clock, 60_000, 100);
  for (let i = 0; i < 50; i++) p.touch(`old${i}`);
  clock.advance(61_000);
  p.touch('fresh');
  t.equal(p.size(), 1, 'entries older than the window are dropped by the next touch');
  for (let i = 0; i < 10_000; i++) p.touch(`bot${i}`);
  t.equal(p.size(), 100, 'never more than maxEntries');
  t.ok(p.recent('bot9999') && !p.recent('bot0'), 'the least recently seen went first');
  p.touch('bot9900');
  p.touch('another');
  t.ok(p.recent('bot9900'), 'a touch moves a bot to the back of the line');
  t.notOk(p.recent('bot9901'), 'the oldest one went instead');
});
