// Account streams across nodes on a real three-server cluster: two "nodes" (a hub and an AccountBus
// each, on their own connections to different servers). An event published on one reaches a stream
// held on the other exactly once; presence (isOnline) is seen across nodes, ends when the stream
// closes, and ages out when the node holding the stream dies without a word.
import t from 'tap';
import { systemClock } from '../../../src/domain/clock.js';
import { AccountBus, accountToken } from '../../../src/cluster/sharing/account-bus.js';
import { connectCluster, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { AccountHub } from '../../../src/services/account-hub.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';
import { Sink } from '../../helpers/services.js';

const TTL = 1500;
const cluster = await startNatsCluster({ name: 'dc-acct' });
const conns: NatsConnection[] = [];
const buses: AccountBus[] = [];
t.teardown(async () => {
  for (const b of buses) await b.close();
  for (const nc of conns) await nc.close();
  await cluster.stop();
});

/** One node: its own connection (to server i), bus and hub. */
async function node(i: number, name: string, bucket: string): Promise<{ nc: NatsConnection; bus: AccountBus; hub: AccountHub }> {
  const nc = await connectCluster([cluster.urls[i]], name);
  conns.push(nc);
  const bus = await AccountBus.open(nc, { node: name, replicas: 3, clock: systemClock, presenceTtlMs: TTL, bucket });
  buses.push(bus);
  const hub = new AccountHub(bus);
  bus.bind(hub);
  return { nc, bus, hub };
}

const BOT = 'bot:team:t:far';

t.test('an event published on one node reaches the streams on another, once each', async (t) => {
  const a = await node(0, 'a', 'online1');
  const b = await node(1, 'b', 'online1');
  const onB = new Sink();
  const onA = new Sink();
  b.hub.subscribe(BOT, onB);
  a.hub.subscribe(BOT, onA);
  // The subscriptions reach the servers asynchronously: wait until an event gets through.
  t.ok(
    await eventually(async () => {
      a.hub.publish(BOT, { ChallengeDeclined: { id: 'probe' } });
      await a.nc.flush();
      return onB.lines.length > 0;
    }),
    'the other node receives',
  );
  // Probes still in flight may land later: count only what follows.
  const real = (s: Sink) => s.lines.filter((l) => !l.includes('probe'));
  a.hub.publish(BOT, { ChallengeReceived: { id: 'c1', challenger: { Bot: { team: 't', name: 'near' } }, timeControl: { Unlimited: {} } } } as never);
  b.hub.publish(BOT, { ChallengeDeclined: { id: 'c2' } });
  await a.nc.flush();
  await b.nc.flush();
  t.ok(await eventually(() => real(onA).length === 2 && real(onB).length === 2), 'both events reach both nodes');
  t.ok(real(onB).some((l) => l.includes('"c1"')), 'from a to b');
  t.ok(real(onA).some((l) => l.includes('"c2"')), 'from b to a');
  // Give echoes time to arrive if they were going to: still exactly two lines each.
  await b.nc.flush();
  await new Promise((r) => setTimeout(r, 100));
  t.equal(real(onA).length, 2, 'a node does not deliver its own event twice');
  t.equal(real(onB).length, 2);

  // Another identity's stream gets nothing.
  const other = new Sink();
  b.hub.subscribe('bot:team:t:other', other);
  a.hub.publish(BOT, { ChallengeDeclined: { id: 'c3' } });
  await a.nc.flush();
  t.ok(await eventually(() => real(onB).length === 3));
  t.same(other.lines, [], 'only the identity the event is for');
});

t.test('presence across nodes: online while a stream is open anywhere, then not', async (t) => {
  const a = await node(0, 'pa', 'online2');
  const b = await node(2, 'pb', 'online2');
  t.equal(a.hub.isOnline(BOT), false);
  const off = b.hub.subscribe(BOT, new Sink());
  t.ok(await eventually(() => a.hub.isOnline(BOT)), 'node a sees the stream held on node b');
  t.ok(b.hub.isOnline(BOT), 'and node b sees its own');
  // Held across several TTLs: the key is rewritten before it ages out.
  await new Promise((r) => setTimeout(r, 2 * TTL));
  t.ok(a.hub.isOnline(BOT), 'still online after two TTLs');
  off();
  t.ok(await eventually(() => !a.hub.isOnline(BOT)), 'offline once the last stream on b closed');
  t.equal(b.bus.attachedHere(), 0);
});

t.test('a node that dies without a word: its identities age out of presence', async (t) => {
  const a = await node(1, 'da', 'online3');
  const b = await node(2, 'db', 'online3');
  b.hub.subscribe(BOT, new Sink());
  t.ok(await eventually(() => a.hub.isOnline(BOT)), 'online while b holds the stream');
  // b vanishes: no delete, no renewal (its connection is cut; close() would have deleted the key).
  await b.nc.close();
  t.ok(await eventually(() => !a.hub.isOnline(BOT)), 'offline once its key was not rewritten for a TTL');
});

t.test('identity tokens are valid subject tokens and differ per identity', async (t) => {
  const ids = ['bot:team:t:a', 'bot:team:t:b', 'guest:xyz', 'bot:team:anon:bot-1a2b3c4d'];
  const tokens = ids.map(accountToken);
  for (const tok of tokens) t.match(tok, /^[A-Za-z0-9_-]{24}$/);
  t.equal(new Set(tokens).size, ids.length);
});
