// Child process for batch-crash.test.ts (not a test itself): plays rated games into an LMDB store
// and rates them in batches, printing `batch N` just before a batch commits and `done N` after, so
// the parent can kill -9 it in the middle of, or right after, a batch.
import { systemClock } from '../../../src/domain/clock.js';
import { LmdbStore } from '../../../src/store/lmdb.js';
import { RatingBatcher } from '../../../src/services/ratings.js';
import { bot, ended, game, linesFor, seat } from '../../helpers/store-fixtures.js';
import { prng } from '../../helpers/prng.js';

const [dir, seedArg] = process.argv.slice(2);
const opened = await LmdbStore.open(dir);
if (!opened.ok) {
  process.stderr.write(`${opened.error}\n`);
  process.exit(2);
}
const store = opened.value;
const BOTS = 12;
for (let i = 0; i < BOTS; i++) await store.createBot(bot('crash', `b${i}`));
const random = prng(Number(seedArg));
const batcher = new RatingBatcher(store, systemClock, { tau: 0.5 });
// Bounded so a parent that never kills cannot leave it running forever.
for (let k = 0; k < 200; k++) {
  const writes: Promise<void>[] = [];
  for (let j = 0; j < 300; j++) {
    const w = Math.floor(random() * BOTS);
    const b = (w + 1 + Math.floor(random() * (BOTS - 1))) % BOTS;
    const g = game(`s${seedArg}-k${k}-g${j}`, { white: seat('crash', `b${w}`), black: seat('crash', `b${b}`) });
    const at = 1_700_000_000_000 + k * 1000 + j;
    writes.push(store.finishGame(ended(g, at), linesFor(g, at)));
  }
  await Promise.all(writes);
  process.stdout.write(`batch ${k}\n`);
  await batcher.runBatch();
  process.stdout.write(`done ${k}\n`);
}
await store.close();
