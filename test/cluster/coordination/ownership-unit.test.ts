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

function node(clock: ManualClock, kv: FakeKv, log?: { info(o: object, m: string): void; warn(o: object, m: string): void }) {
  /** Shards this node acts for, as its callbacks say (gained, until lost or drained). */
  const acting = new Set<number>();
  const events: string[] = [];
  const own = new ShardOwnership({
    kv,
    node: 'b',
    shards: SHARDS,
    ttlMs: TTL,
    clock,
    log,
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

t.test('a hand-back whose lease release is refused by the server is logged, not thrown: the node keeps running', async (t) => {
  // Seen on the partition test (node-partition.test.ts): a healed host rejoined, the others handed its
  // shards back while JetStream answered "temporarily unavailable", and the unawaited hand-back's
  // rejection ended both node processes.
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  t.teardown(() => void process.off('unhandledRejection', onUnhandled));
  const clock = new ManualClock();
  const kv = new FakeKv(clock, TTL);
  const warned: string[] = [];
  const { own, acting, events } = node(clock, kv, { info: () => {}, warn: (_o, msg) => warned.push(msg) });
  own.start();
  await advance(clock, TTL);
  t.same(own.owned(), [0, 1, 2], 'the only member owns every shard');
  // Node a joins (its membership key, kept fresh), and the bucket refuses removals from now on.
  const a = new TextEncoder().encode(JSON.stringify({ holder: 'a', incarnation: 'x', n: 1 }));
  await kv.create('node.a', a);
  kv.refuseRemove = true;
  for (let k = 0; k < 6; k++) {
    await advance(clock, TTL / 6);
    const cur = await kv.get('node.a');
    if (cur) await kv.update('node.a', a, cur.revision);
  }
  await flush(20);
  t.same(unhandled.map(String), [], 'no unhandled rejection');
  t.same(own.owned(), [1], `it keeps only its share, shard 1 (events: ${events.join('; ')})`);
  t.same([...acting], [1], 'and acts only for it');
  t.ok(warned.filter((m) => m.includes('hand-back failed')).length >= 2, `each failed hand-back is logged (${warned.length} warnings)`);
  kv.refuseRemove = false;
  await own.stop();
});
