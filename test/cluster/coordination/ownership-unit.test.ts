// Shard ownership on a ManualClock against an in-memory bucket (test/helpers/fake-lease-kv.ts): what a
// node does with the shards it held when it wakes from a pause (SIGSTOP, a long GC) longer than its
// leases. The real-cluster behaviour is in ownership.test.ts and node-pause.test.ts.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { ShardOwnership } from '../../../src/cluster/coordination/ownership.js';
import { FakeKv } from '../../helpers/fake-lease-kv.js';

const TTL = 3000;
const SHARDS = 3;
const flush = async (turns = 5) => {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
};
async function advance(clock: ManualClock, ms: number, step = 50) {
  for (let done = 0; done < ms; done += step) {
    clock.advance(Math.min(step, ms - done));
    await flush(2);
  }
}

function node(clock: ManualClock, kv: FakeKv) {
  /** Shards this node acts for, as its callbacks say (gained, until lost or drained). */
  const acting = new Set<number>();
  const events: string[] = [];
  const own = new ShardOwnership({
    kv,
    node: 'b',
    shards: SHARDS,
    ttlMs: TTL,
    clock,
    onGained: (s) => {
      acting.add(s);
      events.push(`gained ${s}`);
    },
    onLost: (s, why) => {
      acting.delete(s);
      events.push(`lost ${s} ${why}`);
    },
    drain: async (s) => {
      acting.delete(s);
      events.push(`drained ${s}`);
    },
  });
  return { own, acting, events };
}

t.test('a node waking from a long pause while listing the members stops acting for every shard it held', async (t) => {
  const clock = new ManualClock();
  const kv = new FakeKv(clock, TTL);
  const { own, acting, events } = node(clock, kv);
  own.start();
  await advance(clock, TTL);
  t.same(own.owned(), [0, 1, 2], 'the only member owns every shard');
  t.same([...acting].sort(), [0, 1, 2]);

  // The next round's listing of the members is in flight when the process stops.
  let answer!: () => void;
  kv.listingGate = new Promise((r) => (answer = r));
  await advance(clock, TTL / 3 + 50);
  t.equal(kv.listing, 1, 'a listing is in flight');

  // Stopped for three TTLs: no timer runs, every lease's deadline passes (and its key expires).
  clock.jump(3 * TTL);
  t.same(own.owned(), [], 'no lease counts as held the moment it wakes');
  // The listing's answer is the first thing the woken process sees, before any of its timers runs:
  // the node, no longer a member by its own lease, hands every shard back.
  kv.listingGate = undefined;
  answer();
  await flush(20);
  t.same([...acting], [], `it stops acting for every shard it held (events: ${events.join('; ')})`);
  t.same(events.filter((e) => e.startsWith('lost')).sort(), ['lost 0 expired', 'lost 1 expired', 'lost 2 expired'], 'each as a lost lease');

  // Afterwards it joins again and takes the shards again, each gained anew.
  await advance(clock, 3 * TTL);
  t.same(own.owned(), [0, 1, 2], 'it owns them again once its leases are back');
  t.same([...acting].sort(), [0, 1, 2], 'gained again');
  await own.stop();
  t.same([...acting], [], 'an orderly stop drains them');
});

t.test('a node waking from a long pause with no listing in flight is told of each loss by its timers', async (t) => {
  const clock = new ManualClock();
  const kv = new FakeKv(clock, TTL);
  const { own, acting, events } = node(clock, kv);
  own.start();
  await advance(clock, TTL);
  t.same([...acting].sort(), [0, 1, 2]);
  clock.jump(3 * TTL);
  await advance(clock, 1);
  t.same([...acting], [], `it stops acting for every shard it held (events: ${events.join('; ')})`);
  await own.stop();
});
