// The cluster store while one of three nats-servers dies: kill -9 of the server leading the store's
// bucket. Two nodes connected to every server go on: a write refused or unanswered during the leader
// election is retried (every write of the store may be repeated: finishGame and rating batches are
// idempotent), both replicas keep following the bucket, and after the restart of the server nothing
// written is missing or doubled. (The watches of both replicas may have lived on the dead server: they
// are started again from the last revision seen, see bucket-copy.ts.)
import t from 'tap';
import { connectCluster } from '../../../src/cluster/transport/nats.js';
import { ClusterStore, openLeaderBucket } from '../../../src/cluster/store/cluster-store.js';
import { computeBatch } from '../../../src/services/ratings.js';
import type { GameRecord } from '../../../src/domain/records.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';
import { bot, ended, game, linesFor } from '../../helpers/store-fixtures.js';

const cluster = await startNatsCluster({ name: 'dc-cstore-failover' });
const ncA = await connectCluster(cluster.urls, 'node-a');
const ncB = await connectCluster([...cluster.urls].reverse(), 'node-b');
let retries = 0;
/** Repeats a write until it resolves (each attempt times out after 2 s); gives up after a minute. */
async function retrying<T>(write: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await write();
    } catch (e) {
      retries++;
      if (i >= 60) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

// Retried: right after start-up the servers may not all be placement peers yet.
const open = (nc: typeof ncA) => retrying(() => ClusterStore.open(nc, { replicas: 3, prefix: 'fo_', timeoutMs: 2_000 }));
const a = await open(ncA);
const b = await open(ncB);
t.teardown(async () => {
  await a.close();
  await b.close();
  await ncA.close();
  await ncB.close();
  await cluster.stop();
});

t.test('kill -9 of the server leading the store bucket: both nodes go on, nothing lost or doubled', async (t) => {
  const alpha = bot('alpha', 'one');
  const beta = bot('beta', 'two');
  await a.createBot(alpha);
  await a.createBot(beta);
  const finished = (i: number): GameRecord => ended(game(`fo${i}`, { history: [] }), 1_000 + i);
  for (let i = 0; i < 10; i++) await a.finishGame(finished(i), linesFor(finished(i), 1_000 + i));

  const leader = (await (await openLeaderBucket(ncA, 'fo_store', 3, 0, 2_000)).status()).streamInfo.cluster?.leader;
  const victim = cluster.servers.findIndex((s) => s.name === leader);
  t.ok(victim >= 0, `the store bucket's leader is ${leader}`);
  await cluster.kill9(victim);

  for (let i = 10; i < 20; i++) {
    const g = finished(i);
    await retrying(() => (i % 2 ? a : b).finishGame(g, linesFor(g, 1_000 + i)));
  }
  t.ok(await eventually(() => a.pendingRatings(100).length === 20 && b.pendingRatings(100).length === 20), 'twenty pending on both nodes');
  const batch = computeBatch(b, 50_000, { tau: 0.5, maxGamesPerBatch: 1_000 })!;
  // A batch that failed half-way leaves its journal: the repeat completes it and is then refused.
  const applied = await retrying(() => b.applyRatingBatch(batch));
  t.ok(applied || (b.pendingRatings(100).length === 0 && b.ladderStats(alpha.id).games === 20), 'the batch went through');

  t.comment(`writes repeated during the election: ${retries}`);
  await cluster.start(victim);
  const g = finished(20);
  await retrying(() => a.finishGame(g, linesFor(g, 1_020)));
  t.ok(
    await eventually(() =>
      [a, b].every(
        (s) =>
          s.pendingRatings(100).length === 1 &&
          s.ladderStats(alpha.id).games === 20 &&
          s.getBot(alpha.id)?.rating.rating === batch.updates.find((u) => u.botId === alpha.id)?.after.rating,
      ),
    ),
    'both nodes agree after the restart',
  );
  for (const s of [a, b]) {
    t.equal(s.allResults().length, 42, 'every result line once');
    t.same(s.ladderStats(alpha.id), { games: 20, wins: 20, draws: 0, losses: 0 }, 'twenty games counted once');
    t.equal(s.ratingHistory(beta.id).length, 1, 'one history point');
    t.same(s.getBot(alpha.id)?.rating, batch.updates.find((u) => u.botId === alpha.id)?.after);
  }
});
