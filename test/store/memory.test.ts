// The shared store suite against the in-memory store.
import t from 'tap';
import { MemoryStore } from '../../src/store/memory.js';
import { storeSuite } from '../helpers/store-suite.js';
import { ratingsSuite } from '../helpers/store-ratings-suite.js';
import { tournamentsSuite } from '../helpers/store-tournaments-suite.js';
import { ended, game, linesFor } from '../helpers/store-fixtures.js';

t.equal(new MemoryStore().persistent, false, 'the memory store does not claim persistence');

const fresh = async (t: Parameters<Parameters<typeof storeSuite>[1]>[0]) => {
  const s = new MemoryStore();
  t.teardown(() => s.close());
  return s;
};
storeSuite(t, fresh);
t.test('ratings suite', async (t) => ratingsSuite(t, fresh));
t.test('events suite', async (t) => tournamentsSuite(t, fresh));

t.test('without persistence the archive of finished games is bounded', async (t) => {
  const store = new MemoryStore({ maxFinishedGames: 3 });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const live = game(`g${i}`);
    await store.putGame(live);
    const done = ended(live, 1_700_000_000_000 + i);
    await store.finishGame(done, linesFor(done, done.finishedAt!));
    ids.push(live.id);
  }
  t.same(ids.map((id) => store.getGame(id) !== undefined), [false, false, true, true, true], 'the two oldest are forgotten');
  t.same(
    [...new Set(store.allResults().map((r) => r.gameId))].sort(),
    ids.slice(2).sort(),
    'and so are their result lines',
  );
});
