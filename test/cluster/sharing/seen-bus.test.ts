// When bots were last seen, across nodes on a real three-server cluster: a bot polling one node is
// recent on another (the ladder runs on one node only), until the window passes; a node tells the
// others at most once per bot per throttle period.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { connectCluster, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { SeenBus } from '../../../src/cluster/sharing/seen-bus.js';
import { Presence } from '../../../src/services/presence.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-seen', size: 2 });
const conns: NatsConnection[] = [];
const buses: SeenBus[] = [];
t.teardown(async () => {
  for (const b of buses) b.close();
  for (const nc of conns) await nc.close();
  await cluster.stop();
});

const clock = new ManualClock();
const WINDOW = 60_000;

async function node(i: number, name: string): Promise<{ nc: NatsConnection; presence: Presence }> {
  const nc = await connectCluster([cluster.urls[i]], name);
  conns.push(nc);
  const bus = new SeenBus(nc, { throttleMs: 15_000 });
  buses.push(bus);
  await nc.flush();
  return { nc, presence: new Presence(clock, WINDOW, 1000, bus) };
}

t.test('a bot seen on one node is recent on another until the window passes', async (t) => {
  const a = await node(0, 'sa');
  const b = await node(1, 'sb');
  const told: string[] = [];
  let probes = 0;
  const watcher = b.nc.subscribe('dc.seen', {
    callback: (_e, m) => {
      const text = new TextDecoder().decode(m.data);
      if (text === 'probe') probes++;
      else told.push(text);
    },
  });
  t.teardown(() => watcher.unsubscribe());
  await b.nc.flush();
  // Node b's subscriptions reach node a's server asynchronously: probe (the bus ignores it) until one
  // gets through, then touch once.
  t.ok(
    await eventually(async () => {
      a.nc.publish('dc.seen', 'probe');
      await a.nc.flush();
      return probes > 0;
    }),
  );
  for (let i = 0; i < 5; i++) a.presence.touch('bot:team:t:poller');
  await a.nc.flush();
  t.ok(await eventually(() => b.presence.recent('bot:team:t:poller')), 'recent on the other node');
  await new Promise((r) => setTimeout(r, 100));
  t.equal(told.length, 1, 'told once however often it was touched within the throttle');
  t.equal(b.presence.recent('bot:team:t:other'), false, 'only the bot that was seen');
  clock.advance(10_000);
  a.presence.touch('bot:team:t:poller');
  await a.nc.flush();
  await new Promise((r) => setTimeout(r, 100));
  t.equal(told.length, 1, 'still within the throttle: not told again');
  clock.advance(WINDOW - 10_000 + 1);
  t.equal(b.presence.recent('bot:team:t:poller'), false, 'gone from the other node once the window passed');
  a.presence.touch('bot:team:t:poller');
  await a.nc.flush();
  t.ok(await eventually(() => b.presence.recent('bot:team:t:poller')), 'a new request after the throttle is told again');
  t.equal(told.length, 2);
});
