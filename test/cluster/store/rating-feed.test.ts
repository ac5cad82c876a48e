// The rating batch fed by the results queue, end to end on a real three-server cluster: a node
// finishes rated games (each result published to the queue, once even when finished twice); a
// rater takes them, applies their batch, and dies before acknowledging; the next rater gets the
// same results again and rates nothing twice, and rates the games finished since in a batch of
// their own. Games left pending with no result in the queue are published again by the next rater
// and rated. Every rating, count and history point is what the one-machine batch (memory store,
// no queue) makes of the same games at the same times.
import t from 'tap';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectCluster, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { ClusterStore } from '../../../src/cluster/store/cluster-store.js';
import { ResultsQueue } from '../../../src/cluster/store/results.js';
import { ResultsFeed } from '../../../src/cluster/store/rating-feed.js';
import { ManualClock } from '../../../src/domain/clock.js';
import type { GameRecord } from '../../../src/domain/records.js';
import type { Store } from '../../../src/store/types.js';
import { MemoryStore } from '../../../src/store/memory.js';
import { RatingBatcher, type RatingFeed } from '../../../src/services/ratings.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';
import { bot, ended, game, linesFor, seat } from '../../helpers/store-fixtures.js';

const cluster = await startNatsCluster({ name: 'dc-rfeed' });
const conns: NatsConnection[] = [];
const stores: ClusterStore[] = [];
t.teardown(async () => {
  for (const s of stores) await s.close().catch(() => {});
  for (const nc of conns) if (!nc.isClosed()) await nc.close();
  await cluster.stop();
});

const QUEUE = { replicas: 3, stream: 'T_RESULTS', prefix: 't.result', ackWaitMs: 3000, timeoutMs: 20_000 };
const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];
const T1 = 1_700_000_100_000;
const T2 = 1_700_000_200_000;

/** A node: its own connections, its store replica, its queue handle. */
async function node(i: number, prefix = 'rf_', publish = true): Promise<{ store: ClusterStore; queue: ResultsQueue; queueConn: NatsConnection }> {
  const nc = await connectCluster([cluster.urls[i % 3]], `store-${i}`);
  const queueConn = await connectCluster([cluster.urls[i % 3]], `queue-${i}`);
  conns.push(nc, queueConn);
  const queue = await ResultsQueue.open(queueConn, QUEUE);
  const store = await ClusterStore.open(nc, { replicas: 3, prefix, timeoutMs: 20_000, ...(publish ? { results: queue } : {}) });
  stores.push(store);
  return { store, queue, queueConn };
}

/** Game `n` between two of the bots; who wins varies with n. */
function finished(n: number, at: number): GameRecord {
  const white = NAMES[n % NAMES.length];
  const black = NAMES[(n * 5 + 1) % NAMES.length] === white ? NAMES[(n + 1) % NAMES.length] : NAMES[(n * 5 + 1) % NAMES.length];
  const g = game(`rf-${n}`, { white: seat('t', white), black: seat('t', black) });
  const final = ended(g, at + n);
  if (n % 3 === 1) return { ...final, status: { Ended: { over: { result: { Win: { side: 'Black' } }, termination: 'Resign' } } } };
  if (n % 3 === 2) return { ...final, status: { Ended: { over: { result: { Draw: {} }, termination: 'Draw' } } } };
  return final;
}

const view = (s: Store) =>
  NAMES.map((n) => {
    const id = bot('t', n).id;
    return { id, rating: s.getBot(id)?.rating, stats: s.ladderStats(id), history: s.ratingHistory(id) };
  });

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

t.test('a rater killed between its write and its acknowledgement rates nothing twice', async (t) => {
  const finisher = await node(0);
  const reference = new MemoryStore();
  for (const n of NAMES) {
    await finisher.store.createBot(bot('t', n));
    await reference.createBot(bot('t', n));
  }
  const first = Array.from({ length: 20 }, (_, n) => finished(n, T1 - 1000));
  for (const g of first) {
    await finisher.store.finishGame(g, linesFor(g, g.finishedAt!));
    await reference.finishGame(g, linesFor(g, g.finishedAt!));
  }
  // One game finished again (a crash before the owner heard back): its result is not stored twice.
  await finisher.store.finishGame(first[3], linesFor(first[3], first[3].finishedAt!));

  // The reference: one machine's two batches, at T1 and then at T2.
  const refClock = new ManualClock(T1);
  const refBatcher = new RatingBatcher(reference, refClock, { tau: 0.5 });
  t.equal((await refBatcher.runBatch()).games, 20);

  // Rater 1 (its own replica, bots included) takes the results, writes their batch, and dies before
  // its acknowledgements go out.
  const r1 = await node(1);
  t.ok(await eventually(() => r1.store.pendingRatings(100).length === 20), 'rater 1 sees the 20 games pending');
  const feed1 = new ResultsFeed({ queue: r1.queue, store: r1.store });
  let wrote = false;
  const dying: RatingFeed = {
    next: (max, rate) =>
      feed1.next(max, async (games) => {
        const applied = await rate(games);
        wrote = applied;
        await r1.queueConn.close(); // killed here: the write is done, nothing acknowledged
        return applied;
      }),
  };
  await t.rejects(new RatingBatcher(r1.store, new ManualClock(T1), { tau: 0.5 }, undefined, dying).runBatch(), 'the rater died');
  t.ok(wrote, 'its batch was written before it died');
  t.ok(await eventually(() => finisher.store.pendingRatings(100).length === 0), 'every game is rated');
  await eventually(() => same(view(finisher.store), view(reference)));
  t.same(view(finisher.store), view(reference), 'the ratings are the one-machine batch');

  // More games finish meanwhile.
  const second = Array.from({ length: 5 }, (_, k) => finished(20 + k, T2 - 1000));
  for (const g of second) {
    await finisher.store.finishGame(g, linesFor(g, g.finishedAt!));
    await reference.finishGame(g, linesFor(g, g.finishedAt!));
  }
  refClock.advance(T2 - T1);
  t.equal((await refBatcher.runBatch()).games, 5);

  // Rater 2 holds the lease next: it gets the 20 results again (the ack wait passed) and the 5 new.
  const r2 = await node(2);
  const batcher2 = new RatingBatcher(r2.store, new ManualClock(T2), { tau: 0.5 }, undefined, new ResultsFeed({ queue: r2.queue, store: r2.store }));
  const jsm = await jetstreamManager(conns[0], { timeout: 20_000 });
  const left = async () => (await jsm.streams.info(QUEUE.stream)).state.messages;
  const rated: number[] = [];
  const drained = await eventually(async () => {
    const out = await batcher2.runBatch();
    if (out.games > 0) rated.push(out.games);
    return (await left()) === 0;
  }, 60_000);
  t.ok(drained, 'every result acknowledged: the queue is empty');
  t.same(rated, [5], 'rater 2 rated only the 5 new games, in one batch');
  t.ok(await eventually(() => finisher.store.pendingRatings(100).length === 0), 'nothing pending');
  await eventually(() => same(view(finisher.store), view(reference)));
  t.same(view(finisher.store), view(reference), 'ratings, counts and history as one machine has them: nothing rated twice');
  const counted = view(finisher.store).reduce((s, v) => s + v.stats.games, 0);
  t.equal(counted, 2 * 25, 'each game counted once for each of its two bots');
});

t.test('games pending with no result in the queue are swept into it by a rater and rated once', async (t) => {
  // A node that does not publish (as before the queue was wired) leaves its games pending only.
  const old = await node(0, 'rf2_', false);
  for (const n of NAMES) await old.store.createBot(bot('t', n));
  const games = Array.from({ length: 3 }, (_, n) => finished(100 + n, T1));
  for (const g of games) await old.store.finishGame(g, linesFor(g, g.finishedAt!));
  const rater = await node(1, 'rf2_');
  t.ok(await eventually(() => rater.store.pendingRatings(100).length === 3), 'three games pending');
  const batcher = new RatingBatcher(rater.store, new ManualClock(T2), { tau: 0.5 }, undefined, new ResultsFeed({ queue: rater.queue, store: rater.store }));
  t.equal((await batcher.runBatch()).games, 3, 'the first batch rates them');
  t.same(rater.store.pendingRatings(100), [], 'nothing pending');
  t.equal((await batcher.runBatch()).games, 0, 'and nothing more comes');
  const jsm = await jetstreamManager(conns[0], { timeout: 20_000 });
  t.equal((await jsm.streams.info(QUEUE.stream)).state.messages, 0, 'the queue is empty');
});
