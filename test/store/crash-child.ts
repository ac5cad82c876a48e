// Child process for the kill -9 test in lmdb.test.ts (not a test itself). It writes records one at a
// time and prints each id only after its write resolved, i.e. after the point where the server
// would publish the event. The parent kills it mid-stream and checks that every printed id survived.
import { LmdbStore } from '../../src/store/lmdb.js';
import { ended, game, linesFor } from '../helpers/store-fixtures.js';

const dir = process.argv[2];
const opened = await LmdbStore.open(dir);
if (!opened.ok) {
  process.stderr.write(`${opened.error}\n`);
  process.exit(2);
}
const store = opened.value;
// Bounded so a parent that never kills cannot leave it running forever.
for (let i = 0; i < 100_000; i++) {
  const g = game(`crash-${i}`, { ply: i });
  if (i % 2 === 0) await store.putGame(g);
  else await store.finishGame(ended(g, i), linesFor(g, i));
  process.stdout.write(`${g.id}\n`);
}
await store.close();
