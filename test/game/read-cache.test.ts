// The shared read caches are bounded by the characters they hold, whatever the number of games read,
// and serve a repeated read without making it again.
import t from 'tap';
import { ReadCache } from '../../src/game/read-cache.js';

t.test('a read cache stays within its bound and keeps the most recently read', async (t) => {
  const cache = new ReadCache<object, string>(1000, 100, (s) => s.length);
  const keys = Array.from({ length: 500 }, () => ({}));
  let made = 0;
  const read = (i: number): string => cache.get(keys[i], () => {
    made++;
    return 'x'.repeat(40);
  });
  for (let i = 0; i < keys.length; i++) read(i);
  t.equal(made, 500);
  t.ok(cache.size <= 1000, `holds ${cache.size} characters`);
  t.ok(cache.size >= 960, 'and is used up to its bound');
  read(499);
  t.equal(made, 500, 'the latest read is served from the cache');
  read(0);
  t.equal(made, 501, 'the oldest was evicted and is made again');
  cache.get({}, () => 'y'.repeat(5000));
  t.ok(cache.size <= 1000, 'a value over the whole bound is not kept');
  cache.clear();
  t.equal(cache.size, 0);
});

t.test('an entry count bound holds too', async (t) => {
  const cache = new ReadCache<object, string>(1_000_000, 10, (s) => s.length);
  for (let i = 0; i < 50; i++) cache.get({}, () => 'z');
  t.equal(cache.size, 10);
});
