// Shard ownership on a real three-server cluster: three nodes split twelve shards, never two owners of
// one shard at once; a node that dies (its connection cut) loses its shards to the others; a node that
// joins gets its share, handed over with a drain before each release.
import t from 'tap';
import { systemClock } from '../../../src/domain/clock.js';
import { connectCluster, leaseBucket, openBucket, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { ShardOwnership, assigned, shardOf } from '../../../src/cluster/coordination/ownership.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const TTL = 1500;
const SHARDS = 12;
const cluster = await startNatsCluster({ name: 'dc-own' });
const conns: NatsConnection[] = [];
t.teardown(async () => {
  for (const nc of conns) if (!nc.isClosed()) await nc.close();
  await cluster.stop();
});

/** Who acts for each shard, as the nodes themselves report it; any overlap is recorded. */
const acting = new Map<number, string>();
const overlaps: string[] = [];
const drained: string[] = [];

async function node(name: string, server: number): Promise<{ own: ShardOwnership; nc: NatsConnection }> {
  const nc = await connectCluster([cluster.urls[server]], name);
  conns.push(nc);
  const kv = leaseBucket(await openBucket(nc, { bucket: 'shards', replicas: 3, ttlMs: TTL, timeoutMs: 1000 }));
  const own = new ShardOwnership({
    kv,
    node: name,
    shards: SHARDS,
    ttlMs: TTL,
    clock: systemClock,
    onGained: (s) => {
      const other = acting.get(s);
      if (other !== undefined) overlaps.push(`shard ${s}: ${name} gained it while ${other} acts`);
      acting.set(s, name);
    },
    onLost: (s) => {
      if (acting.get(s) === name) acting.delete(s);
    },
    drain: async (s) => {
      drained.push(`${name}:${s}`);
      if (acting.get(s) === name) acting.delete(s);
    },
  });
  own.start();
  return { own, nc };
}

const counts = (nodes: ShardOwnership[]) => nodes.map((n) => n.owned().length);

t.test('assignment and shard of a game are the same everywhere', async (t) => {
  t.same(assigned(['b', 'a', 'c'], 'a', 6), [0, 3]);
  t.same(assigned(['c', 'b', 'a'], 'c', 6), [2, 5]);
  t.same(assigned(['a'], 'z', 6), [], 'not a member: nothing');
  const s = shardOf('game-123', SHARDS);
  t.ok(s >= 0 && s < SHARDS);
  t.equal(shardOf('game-123', SHARDS), s, 'stable');
});

t.test('three nodes split the shards; a dead node’s shards move; a joining node gets its share', async (t) => {
  const a = await node('a', 0);
  const b = await node('b', 1);
  const c = await node('c', 2);
  const all = [a.own, b.own, c.own];
  t.ok(await eventually(() => counts(all).join() === '4,4,4'), `4 shards each (now ${counts(all).join()})`);
  t.equal(acting.size, SHARDS, 'every shard has one acting node');

  // c dies: its connection is cut, so it can renew nothing.
  await c.nc.close();
  t.ok(await eventually(() => c.own.owned().length === 0), 'the dead node stops acting for its shards');
  t.ok(await eventually(() => counts([a.own, b.own]).join() === '6,6'), `the two others take them (now ${counts([a.own, b.own]).join()})`);
  t.equal(acting.size, SHARDS);
  await c.own.stop();

  // d joins: a and b drain and hand over its share.
  const d = await node('d', 2);
  const live = [a.own, b.own, d.own];
  t.ok(await eventually(() => counts(live).join() === '4,4,4'), `rebalanced (now ${counts(live).join()})`);
  t.ok(drained.length >= 4, 'shards were drained before they were handed over');
  t.equal(acting.size, SHARDS);
  t.same(overlaps, [], 'no shard ever had two acting nodes');

  // An orderly stop hands everything back.
  await d.own.stop();
  t.same(d.own.owned(), []);
  t.ok(await eventually(() => counts([a.own, b.own]).join() === '6,6'), 'the rest take over after an orderly leave');
  await a.own.stop();
  await b.own.stop();
  t.same(overlaps, []);
});
