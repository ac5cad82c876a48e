// The cache of finished games a cluster node reads on demand (FinishedGames), on a ManualClock with a
// stand-in for the bucket: a record the node wrote itself stays a minute, so steady play keeps a
// minute of endings rather than filling the cache's 2,000 records; a record read from the bucket stays
// until the bounds push it out.
import t from 'tap';
import type { KV } from '@nats-io/kv';
import { ManualClock } from '../../../src/domain/clock.js';
import type { GameRecord } from '../../../src/domain/records.js';
import { FinishedGames, WRITTEN_KEPT_MS } from '../../../src/cluster/store/finished-games.js';
import { ended, game, history } from '../../helpers/store-fixtures.js';

function setup() {
  const clock = new ManualClock();
  const bucket = new Map<string, GameRecord>();
  const cache = new FinishedGames({} as KV, async (id) => bucket.get(id), { entries: 2000, bytes: 64 * 1024 * 1024 }, clock);
  return { clock, bucket, cache };
}

t.test('records written here stay a minute: steady endings keep a minute of them', async (t) => {
  const { clock, bucket, cache } = setup();
  // One game ended here every 600 ms for ten minutes: 1,000 in all.
  for (let i = 0; i < 1000; i++) {
    const g = ended(game(`w${i}`, { history: history(4) }), 1000 + i);
    bucket.set(g.id, g);
    cache.keep(g);
    clock.advance(600);
  }
  const held = cache.use().records;
  t.ok(held <= 101, `a minute of endings cached (${held}), not 1,000`);
  t.equal(cache.get('w999')?.id, 'w999', 'the latest ending is read from the cache');
  t.equal(cache.get('w0'), undefined, 'an ending older than the minute is not');
  clock.advance(WRITTEN_KEPT_MS);
  t.equal(cache.use().records, 0, 'nothing once the minute has passed');
  t.equal(cache.use().bytes, 0);

  // Read back from the bucket: kept without expiry (the LRU bounds still hold).
  t.equal((await cache.load('w5'))?.id, 'w5');
  t.equal(cache.loads, 1);
  clock.advance(10 * WRITTEN_KEPT_MS);
  t.equal(cache.get('w5')?.id, 'w5', 'a record read from the bucket stays');
  t.equal((await cache.load('w5'))?.id, 'w5');
  t.equal(cache.loads, 1, 'and is not read again');
});
