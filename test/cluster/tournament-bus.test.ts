// Followers of an event's stream across nodes on a real two-server cluster: a line the scheduler's
// node publishes reaches the followers on another node once; the last line closes them there too.
import t from 'tap';
import { EventBus } from '../../src/cluster/sharing/tournament-bus.js';
import { connectCluster, type NatsConnection } from '../../src/cluster/transport/nats.js';
import { EventBook } from '../../src/services/tournaments/book.js';
import { MemoryStore } from '../../src/store/memory.js';
import { eventually, startNatsCluster } from '../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-evt', size: 2 });
const conns: NatsConnection[] = [];
t.teardown(async () => {
  for (const nc of conns) await nc.close();
  await cluster.stop();
});

async function node(i: number, name: string): Promise<{ nc: NatsConnection; bus: EventBus; book: EventBook }> {
  const nc = await connectCluster([cluster.urls[i]], name);
  conns.push(nc);
  const bus = new EventBus(nc);
  const book = new EventBook(new MemoryStore(), bus);
  bus.bind(book);
  return { nc, bus, book };
}

class Follower {
  lines: string[] = [];
  closed = false;
  send(line: string) {
    this.lines.push(line);
  }
  close() {
    this.closed = true;
  }
}

t.test("an event's lines reach its followers on another node, and the last one closes them", async (t) => {
  const a = await node(0, 'ea');
  const b = await node(1, 'eb');
  const far = new Follower();
  const near = new Follower();
  b.book.follow('ev1', far);
  a.book.follow('ev1', near);
  await b.nc.flush();
  // b's subscription reaches a's server asynchronously: probe until one line gets through.
  t.ok(
    await eventually(async () => {
      a.book.publish('ev1', { probe: true });
      await a.nc.flush();
      return far.lines.length > 0;
    }),
  );
  const real = (f: Follower) => f.lines.filter((l) => !l.includes('probe'));
  a.book.publish('ev1', { PairStarted: { index: 1 } });
  a.book.publish('ev2', { PairStarted: { index: 9 } });
  a.book.publish('ev1', { EventEnded: { state: 'finished' } }, true);
  await a.nc.flush();
  t.ok(await eventually(() => real(far).length === 2 && far.closed), 'both lines arrived and the stream closed');
  t.same(real(far), ['{"PairStarted":{"index":1}}\n', '{"EventEnded":{"state":"finished"}}\n'], 'in order, nothing of another event');
  t.same(real(near), real(far), 'the local follower got the same, once');
  t.ok(near.closed);
  t.equal(a.bus.following(), 0, 'no subscription left after the last line');
  t.equal(b.bus.following(), 0);
});
