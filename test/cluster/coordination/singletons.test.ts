// Singletons on a real three-server cluster: three nodes offer the same two services; each runs on
// exactly one node at a time; when the holder's connection dies another node starts it (after the
// holder stopped it), and a node leaving in order hands its services over.
import t from 'tap';
import { systemClock } from '../../../src/domain/clock.js';
import { connectCluster, leaseBucket, openBucket, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { Singletons, type SingletonService } from '../../../src/cluster/coordination/singletons.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const TTL = 1500;
const NAMES = ['ladder', 'rater'];
const cluster = await startNatsCluster({ name: 'dc-single' });
const conns: NatsConnection[] = [];
const nodes: Singletons[] = [];
t.teardown(async () => {
  for (const n of nodes) await n.stop().catch(() => {});
  for (const nc of conns) if (!nc.isClosed()) await nc.close();
  await cluster.stop();
});

/** Which nodes run each service right now, as the services themselves see it; overlaps recorded. */
const runningOn = new Map<string, Set<string>>(NAMES.map((n) => [n, new Set<string>()]));
const overlaps: string[] = [];
const starts: string[] = [];

function service(name: string, node: string): SingletonService {
  return {
    name,
    start: () => {
      const on = runningOn.get(name)!;
      if (on.size > 0) overlaps.push(`${name} started on ${node} while it runs on ${[...on].join(',')}`);
      on.add(node);
      starts.push(`${name}@${node}`);
    },
    stop: async () => {
      runningOn.get(name)!.delete(node);
    },
  };
}

async function node(name: string, server: number): Promise<{ s: Singletons; nc: NatsConnection }> {
  const nc = await connectCluster([cluster.urls[server]], name);
  conns.push(nc);
  const kv = leaseBucket(await openBucket(nc, { bucket: 'singletons', replicas: 3, ttlMs: TTL, timeoutMs: 1000 }));
  const s = new Singletons({ kv, node: name, ttlMs: TTL, clock: systemClock }, NAMES.map((n) => service(n, name)));
  nodes.push(s);
  s.start();
  return { s, nc };
}

const holderOf = (name: string): string | undefined => [...runningOn.get(name)!][0];
const eachOnce = (): boolean => NAMES.every((n) => runningOn.get(n)!.size === 1);

t.test('each service runs on exactly one node; a dead holder is replaced, a leaving one hands over', async (t) => {
  const a = await node('node-a', 0);
  const b = await node('node-b', 1);
  const c = await node('node-c', 2);
  const byName = new Map([['node-a', a], ['node-b', b], ['node-c', c]]);
  t.ok(await eventually(eachOnce), 'both services run, once each');
  const total = a.s.running().length + b.s.running().length + c.s.running().length;
  t.equal(total, NAMES.length, 'the nodes agree with the services on who runs what');

  // The holder of `ladder` loses its connection: it stops the service, and another node starts it.
  const first = holderOf('ladder')!;
  const dead = byName.get(first)!;
  await dead.nc.close();
  t.ok(await eventually(() => holderOf('ladder') !== undefined && holderOf('ladder') !== first), 'another node runs it');
  t.strictSame(dead.s.running().filter((n) => n === 'ladder'), [], 'the dead holder stopped it');
  t.ok(await eventually(eachOnce), 'every service still runs once');

  // A node leaving in order stops its services and releases them: the remaining node takes them.
  const alive = [...byName.entries()].filter(([n]) => n !== first);
  const [leaving, staying] = alive;
  await leaving[1].s.stop();
  t.strictSame(leaving[1].s.running(), []);
  t.ok(await eventually(() => staying[1].s.running().length === NAMES.length), 'the last live node runs both');
  t.strictSame(overlaps, [], 'never two nodes running one service');
  t.ok(starts.length >= NAMES.length + 1, `starts: ${starts.join(' ')}`);
});

t.test('a service whose start fails gives its lease back and is started again', async (t) => {
  const nc = await connectCluster([cluster.urls[0]], 'flaky-node');
  conns.push(nc);
  const kv = leaseBucket(await openBucket(nc, { bucket: 'singletons', replicas: 3, ttlMs: TTL, timeoutMs: 1000 }));
  let tries = 0;
  let stops = 0;
  const s = new Singletons({ kv, node: 'flaky-node', ttlMs: TTL, clock: systemClock }, [
    {
      name: 'flaky',
      start: async () => {
        if (++tries === 1) throw new Error('not ready yet');
      },
      stop: async () => void stops++,
    },
  ]);
  nodes.push(s);
  s.start();
  t.ok(await eventually(() => s.running().includes('flaky')), 'running after a second start');
  t.equal(tries, 2);
  t.equal(stops, 1, 'the failed start was stopped once');
  t.ok(s.holds('flaky'));
  await s.stop();
  t.notOk(s.holds('flaky'));
  t.equal(stops, 2);
});
