// Results to the rater, exactly once in effect, on a real three-server cluster: a result published
// twice is stored once; a rater that dies before acknowledging leaves its results to the next one;
// with a write that recognises rated games, every game is rated exactly once.
import t from 'tap';
import { connectCluster, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { ResultsQueue, type PendingResult } from '../../../src/cluster/store/results.js';
import { startNatsCluster } from '../../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-results' });
const conns: NatsConnection[] = [];
t.teardown(async () => {
  for (const nc of conns) if (!nc.isClosed()) await nc.close();
  await cluster.stop();
});
const open = async (i: number) => {
  const nc = await connectCluster([cluster.urls[i]], `node-${i}`);
  conns.push(nc);
  return { nc, q: await ResultsQueue.open(nc, { replicas: 3, ackWaitMs: 3000 }) };
};

t.test('each finished game is rated exactly once, across a rater that dies mid-batch', async (t) => {
  const finisher = await open(0);
  const games = Array.from({ length: 30 }, (_, i) => `game-${i}`);
  // Every result is published twice (a retry after a lost answer): the second is a duplicate.
  for (const g of games) t.notOk((await finisher.q.publish(g, new TextEncoder().encode(g))).duplicate);
  for (const g of games) t.ok((await finisher.q.publish(g, new TextEncoder().encode(g))).duplicate, `${g} stored once`);

  // The rater's store: a game is rated once; a second delivery is recognised and changes nothing.
  const rated = new Map<string, number>();
  const write = async (batch: PendingResult[]) => {
    for (const r of batch) if (!rated.has(r.gameId)) rated.set(r.gameId, rated.size);
  };

  // The first rater takes ten results, writes them, and dies before acknowledging.
  const first = await open(1);
  const taken: PendingResult[] = [];
  await t.rejects(
    first.q.rateOnce(10, 1000, async (batch) => {
      taken.push(...batch);
      await write(batch);
      await first.nc.close(); // the process dies here: no acknowledgement goes out
      throw new Error('died');
    }),
  );
  t.equal(taken.length, 10);

  // The next holder of the rater lease drains the queue.
  const second = await open(2);
  const redelivered: string[] = [];
  let handled = 0;
  for (let round = 0; round < 20 && rated.size < games.length; round++) {
    handled += await second.q.rateOnce(16, 1000, async (batch) => {
      for (const r of batch) if (r.deliveries > 1) redelivered.push(r.gameId);
      await write(batch);
    });
  }
  t.ok(handled >= games.length - taken.length, 'the second rater took the rest');
  // Drain anything still due (the unacknowledged ten come back after the ack wait).
  for (let round = 0; round < 10 && redelivered.length < taken.length; round++) {
    await second.q.rateOnce(16, 1000, async (batch) => {
      for (const r of batch) if (r.deliveries > 1) redelivered.push(r.gameId);
      await write(batch);
    });
  }
  t.same([...rated.keys()].sort(), [...games].sort(), 'every game rated');
  t.equal(rated.size, games.length, 'each once');
  t.same(redelivered.sort(), taken.map((r) => r.gameId).sort(), 'exactly the unacknowledged results came again');
  t.equal(await second.q.rateOnce(16, 1000, write), 0, 'nothing left: acknowledged results left the stream');
});
