// A node killed -9 in the middle of a rating batch: a child process applies a batch of 1,200 games
// over sixty bots and is killed once it has begun marking games rated, i.e. with some steps done and
// others not. The next batch on another node completes it: every game rated once, every bot's
// rating, counts and history exactly as one uninterrupted batch leaves them.
import t from 'tap';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectCluster } from '../../../src/cluster/transport/nats.js';
import { ClusterStore, openLeaderBucket } from '../../../src/cluster/store/cluster-store.js';
import { batchId, journalKey } from '../../../src/cluster/store/ratings.js';
import { eachLimited } from '../../../src/cluster/store/bucket-copy.js';
import { computeBatch } from '../../../src/services/ratings.js';
import type { GameRecord } from '../../../src/domain/records.js';
import { startNatsCluster } from '../../helpers/nats-cluster.js';
import { spawnBound } from '../../helpers/spawn-bound.js';
import { bot, ended, game, linesFor, seat } from '../../helpers/store-fixtures.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'cluster-store-child.js');
const PREFIX = 'crash_';
const AT = 1_800_000_000_000;
const cluster = await startNatsCluster({ name: 'dc-cstore-crash' });
const nc = await connectCluster(cluster.urls, 'parent');
const store = await ClusterStore.open(nc, { replicas: 3, prefix: PREFIX, timeoutMs: 20_000 });
t.teardown(async () => {
  await store.close();
  await nc.close();
  await cluster.stop();
});

t.test('a batch cut off by kill -9 is completed by the next one, each game rated once', async (t) => {
  const bots = Array.from({ length: 60 }, (_, i) => bot('crash', `b${i}`, { onLadder: true }));
  await eachLimited(bots, 16, async (b) => void (await store.createBot(b)));
  const games: GameRecord[] = Array.from({ length: 1200 }, (_, i) => {
    const w = bots[i % 60];
    const b = bots[((i % 60) + 1 + (Math.floor(i / 60) % 59)) % 60]; // never the same bot
    const g = ended(game(`c${i}`, { white: seat(w.team, w.name), black: seat(b.team, b.name) }), 1_000 + i);
    return i % 3 === 0 ? { ...g, status: { Ended: { over: { result: { Draw: {} }, termination: 'Draw' } } } } : g;
  });
  await eachLimited(games, 32, (g) => store.finishGame(g, linesFor(g, g.finishedAt!)));
  t.equal(store.pendingRatings(5_000).length, 1200, 'every game pending');
  const expected = computeBatch(store, AT, { tau: 0.5, maxGamesPerBatch: 50_000 })!;
  t.equal(expected.updates.length, 60);

  const raw = await openLeaderBucket(nc, `${PREFIX}store`, 3, 0, 20_000);
  const journal = journalKey(batchId(expected));
  const child = spawnBound(process.execPath, [CHILD, cluster.urls.join(','), PREFIX, String(AT)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  // Kill it once the first of its games is rated (the last of its steps has begun), so that it dies
  // with its bots rated and counted and its games partly marked.
  for (let i = 0; i < 12_000 && store.pendingRatings(5_000).length === 1200; i++) await new Promise((r) => setTimeout(r, 5));
  process.kill(child.pid!, 'SIGKILL');
  const left = store.pendingRatings(5_000).length;
  await exited;
  t.equal(child.signalCode, 'SIGKILL', 'the child was killed');
  t.ok(left > 0 && left < 1200, `killed with ${1200 - left} of 1200 games marked rated`);
  t.notMatch(out, /applied/, 'before it finished');
  t.equal((await raw.get(journal))?.operation, 'PUT', 'its journal is left in the bucket');

  t.equal(await store.applyRatingBatch(expected), false, 'the next batch completes the journal and finds its own games rated');
  t.same(store.pendingRatings(5_000), [], 'no game left pending');
  for (const u of expected.updates) {
    t.same(store.getBot(u.botId)?.rating, u.after, `${u.botId}: the rating one batch gives`);
    t.same(store.ladderStats(u.botId), u.counts, `${u.botId}: each game counted once`);
    t.same(store.ratingHistory(u.botId), [{ at: AT, rating: u.after.rating, rd: u.after.rd }], `${u.botId}: one history point`);
  }
  t.not((await raw.get(journal))?.operation, 'PUT', 'the journal is gone');
});
