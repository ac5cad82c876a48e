// The shared read caches are bounded by the characters they hold, whatever the number of games read,
// and serve a repeated read without making it again; the per-game ones hold one version per game.
import t from 'tap';
import type { GameRecord } from '../../src/domain/records.js';
import { clearReadCaches, forgetGame, GameReadCache, historyJsonCache, movesJsonCache, ReadCache } from '../../src/game/read-cache.js';
import { GameIndex } from '../../src/game/game-index.js';
import type { GameHandle } from '../../src/game/types.js';

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

t.test('a per-game cache keeps one version per game and lets an ended game go', async (t) => {
  const cache = new GameReadCache<object, string>(1_000_000, 100, (s) => s.length);
  const versions = Array.from({ length: 5 }, () => ({}));
  let made = 0;
  const read = (game: string, v: number): string => cache.get(game, versions[v], () => {
    made++;
    return `${game}@${v}`.padEnd(100, '.');
  });
  for (let v = 0; v < 5; v++) read('a', v);
  t.equal(cache.count, 1, 'five versions of one game: one entry');
  t.equal(cache.size, 100);
  read('a', 4);
  t.equal(made, 5, 'the version last read is served from the cache');
  read('a', 3);
  t.equal(made, 6, 'an older version is made again');
  read('b', 0);
  t.equal(cache.count, 2);
  cache.forget('a');
  t.equal(cache.count, 1, 'forget drops the game');
  t.equal(cache.size, 100);
});

t.test('retiring a game from a gameIndex drops what its reads left in the per-game caches', async (t) => {
  clearReadCaches();
  movesJsonCache.get('g1', {}, () => 'one');
  historyJsonCache.get('g1', [], () => '[]');
  movesJsonCache.get('g2', {}, () => 'two');
  const gameIndex = new GameIndex({ getGame: async () => null } as never, { size: 10, bytes: 1_000_000 }, [], { warn() {}, error() {}, info() {} } as never);
  const game = { id: 'g1', white: { id: 'w' }, black: { id: 'b' } } as unknown as GameHandle;
  gameIndex.add(game);
  gameIndex.retire(game, { id: 'g1', status: { Ended: {} } } as unknown as GameRecord);
  t.equal(movesJsonCache.count, 1, 'the ended game\'s moves body went, the other game\'s stayed');
  t.equal(historyJsonCache.count, 0, 'its history JSON went');
  forgetGame('g2');
  t.equal(movesJsonCache.count, 0, 'forgetGame drops a game from every per-game cache');
  clearReadCaches();
});
