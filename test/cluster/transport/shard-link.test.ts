// Commands to a shard's owner over NATS request/reply on a real three-server cluster: the owner
// answers; when ownership moves the sender reaches the new owner without knowing who it is; a batch
// retried after a lost answer is handled once.
import t from 'tap';
import { systemClock } from '../../../src/domain/clock.js';
import { connectCluster, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { ShardClient, ShardServer, ShardUnavailable } from '../../../src/cluster/transport/shard-link.js';
import { startNatsCluster } from '../../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-link' });
const conns: NatsConnection[] = [];
const conn = async (i: number, name: string) => {
  const nc = await connectCluster([cluster.urls[i]], name);
  conns.push(nc);
  return nc;
};
t.teardown(async () => {
  for (const nc of conns) await nc.close();
  await cluster.stop();
});
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** A node that owns the shards in `owned` and answers `<node>:<batch>`, counting what it handled. */
function node(nc: NatsConnection, name: string, owned: Set<number>, handled: string[], delayMs = 0) {
  return new ShardServer(nc, {
    clock: systemClock,
    owns: (s) => owned.has(s),
    handle: async (s, batch) => {
      handled.push(`${s}:${dec(batch)}`);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      return enc(`${name}:${dec(batch)}`);
    },
  });
}

t.test('the sender reaches whichever node owns the shard, also after it moves', async (t) => {
  const ownedA = new Set([1]);
  const ownedB = new Set<number>();
  const handledA: string[] = [];
  const handledB: string[] = [];
  const a = node(await conn(0, 'a'), 'a', ownedA, handledA);
  const b = node(await conn(1, 'b'), 'b', ownedB, handledB);
  const client = new ShardClient(await conn(2, 'client'), { clock: systemClock });
  a.serve(1);
  t.equal(dec(await client.send(1, enc('x1'))), 'a:x1');

  // The shard moves: a stops owning it but still listens for a moment; b takes it and serves.
  ownedA.delete(1);
  ownedB.add(1);
  b.serve(1);
  t.equal(dec(await client.send(1, enc('x2'))), 'b:x2', 'the new owner answers, not the old one');
  await a.unserve(1);
  t.equal(dec(await client.send(1, enc('x3'))), 'b:x3');
  t.same(handledA, ['1:x1']);
  t.same(handledB, ['1:x2', '1:x3']);

  // Nobody serves it for a while: the sender keeps trying until someone does.
  await b.unserve(1);
  const pending = client.send(1, enc('x4'));
  setTimeout(() => {
    ownedA.add(1);
    a.serve(1);
  }, 300);
  t.equal(dec(await pending), 'a:x4', 'delivered once an owner appeared');
  await a.unserve(1);
  await t.rejects(client.send(1, enc('x5'), 300), ShardUnavailable, 'gives up at its deadline');
});

t.test('a batch retried after a timeout is handled once', async (t) => {
  const handled: string[] = [];
  const slow = node(await conn(0, 'slow'), 'slow', new Set([7]), handled, 400);
  slow.serve(7);
  const client = new ShardClient(await conn(1, 'client2'), { clock: systemClock, attemptTimeoutMs: 150 });
  t.equal(dec(await client.send(7, enc('once'))), 'slow:once', 'answered in the end');
  t.same(handled, ['7:once'], 'the owner ran it once although it was sent several times');
  await slow.unserve(7);
});
