// Followers of an event's stream across nodes on a real two-server cluster: a line the scheduler's
// node publishes reaches the followers on another node once; the last line closes them there too.
import t from 'tap';
import { TournamentBus } from '../../../src/cluster/sharing/tournament-bus.js';
import { connectCluster, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { TournamentFollowers } from '../../../src/services/tournaments/followers.js';
import { MemoryStore } from '../../../src/store/memory.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-evt', size: 2 });
const conns: NatsConnection[] = [];
t.teardown(async () => {
  for (const nc of conns) await nc.close();
  await cluster.stop();
});

async function node(i: number, name: string): Promise<{ nc: NatsConnection; bus: TournamentBus; followers: TournamentFollowers }> {
  const nc = await connectCluster([cluster.urls[i]], name);
  conns.push(nc);
  const bus = new TournamentBus(nc);
  const followers = new TournamentFollowers(new MemoryStore(), bus);
  bus.bind(followers);
  return { nc, bus, followers };
}

class Follower {
  lines: string[] = [];
  closed = false;
  send(line: string) {
    this.lines.push(line);
  }
  pump(pieces: Iterator<string>) {
    let line = '';
    for (let p = pieces.next(); !p.done; p = pieces.next()) line += p.value;
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
  b.followers.follow('ev1', far);
  a.followers.follow('ev1', near);
  await b.nc.flush();
  // b's subscription reaches a's server asynchronously: probe until one line gets through.
  t.ok(
    await eventually(async () => {
      a.followers.publish('ev1', { probe: true });
      await a.nc.flush();
      return far.lines.length > 0;
    }),
  );
  const real = (f: Follower) => f.lines.filter((l) => !l.includes('probe'));
  a.followers.publish('ev1', { PairStarted: { index: 1 } });
  a.followers.publish('ev2', { PairStarted: { index: 9 } });
  a.followers.publish('ev1', { EventEnded: { state: 'finished' } }, true);
  await a.nc.flush();
  t.ok(await eventually(() => real(far).length === 2 && far.closed), 'both lines arrived and the stream closed');
  t.same(real(far), ['{"PairStarted":{"index":1}}\n', '{"EventEnded":{"state":"finished"}}\n'], 'in order, nothing of another event');
  t.same(real(near), real(far), 'the local follower got the same, once');
  t.ok(near.closed);
  t.equal(a.bus.following(), 0, 'no subscription left after the last line');
  t.equal(b.bus.following(), 0);
});
