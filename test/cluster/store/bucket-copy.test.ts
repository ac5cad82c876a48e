// BucketCopy against a real nats-server: a writer reads its own writes at once and another replica
// shortly after; a delete is not undone by a late delivery of the value it removed; a read-modify-
// write from two replicas at once loses nothing, and one blocked by the ticket of a writer that died
// waits until it expires; and a watch that stops delivering (as when the server holding its consumer
// dies) is replaced, the replica catching up from the revision it had.
import t from 'tap';
import type { Test } from 'tap';
import { connectCluster, openBucket } from '../../../src/cluster/transport/nats.js';
import { BucketCopy, TICKET_TTL_MS } from '../../../src/cluster/store/bucket-copy.js';
import { ManualClock, systemClock, type Clock } from '../../../src/domain/clock.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-kvreplica' });
const nc = await connectCluster(cluster.urls, 'bucket-copy');
const other = await connectCluster([...cluster.urls].reverse(), 'bucket-copy-2');
t.teardown(async () => {
  await nc.close();
  await other.close();
  await cluster.stop();
});

const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : new TextDecoder().decode(b));
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
let n = 0;
async function pair(t: Test, checkEveryMs = 2_000, clockOfA?: Clock) {
  const bucket = `kvr${++n}`;
  const changes: string[] = [];
  const a = await BucketCopy.open(await openBucket(nc, { bucket, replicas: 3 }), (c) => changes.push(`${c.key}:${text(c.after)}`), ['x'], { checkEveryMs, clock: clockOfA });
  const b = await BucketCopy.open(await openBucket(other, { bucket, replicas: 3 }), () => {}, ['x'], { checkEveryMs });
  t.teardown(() => {
    a.close();
    b.close();
  });
  return { a, b, changes };
}

t.test('own writes at once, the other replica shortly after, deletes stay deleted', async (t) => {
  const { a, b, changes } = await pair(t);
  await a.put('x.1', bytes('one'));
  t.equal(text(a.get('x.1')), 'one', 'the writer reads its write when the put resolves');
  t.ok(await eventually(() => text(b.get('x.1')) === 'one'), 'the other replica follows');
  t.equal(await a.create('x.1', bytes('again')), false, 'a create of a present key is refused');
  t.equal(await a.create('x.2', bytes('two')), true);
  t.same(a.keysOf('x').sort(), ['x.1', 'x.2']);
  const old = a.revisionOf('x.1')!;
  await a.delete('x.1');
  t.equal(a.get('x.1'), undefined, 'a delete applies at once');
  a.apply({ key: 'x.1', revision: old, operation: 'PUT', value: bytes('one') });
  t.equal(a.get('x.1'), undefined, 'a late delivery of the removed value does not bring it back');
  t.ok(await eventually(() => b.get('x.1') === undefined && b.keysOf('x').length === 1), 'deleted on the other replica too');
  t.same(changes.slice(0, 3), ['x.1:one', 'x.2:two', 'x.1:undefined'], 'changes reported once each, in order');
});

t.test('ticketed read-modify-writes from two replicas lose nothing', async (t) => {
  const { a, b } = await pair(t);
  const tickets = await openBucket(nc, { bucket: `kvrt${n}`, replicas: 3, ttlMs: TICKET_TTL_MS });
  const bump = (r: BucketCopy) =>
    r.ticketedModify(tickets, systemClock, 'x.count', (cur) => bytes(String(Number(text(cur) ?? '0') + 1)));
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < 10; i++) work.push(bump(a), bump(b));
  await Promise.all(work);
  t.ok(await eventually(() => text(a.get('x.count')) === '20' && text(b.get('x.count')) === '20'), 'twenty increments counted');
  t.equal(text(a.get('x.count')), '20');
});

t.test('a ticket left by a writer that died is waited out, not given up on', async (t) => {
  const { a } = await pair(t);
  // A tickets bucket whose keys live 2 s (the store's live a minute): enough to see the wait.
  const tickets = await openBucket(nc, { bucket: `kvrt${n}`, replicas: 3, ttlMs: 2_000 });
  await a.put('x.held', bytes('before'));
  // What a writer killed between its ticket and its update leaves: the ticket for the revision it read.
  await tickets.create(`x.held.${a.revisionOf('x.held')}`, bytes('dead writer'));
  // Few tries allowed: before, the writer gave up once they were spent, ticket still held.
  const after = await a.ticketedModify(tickets, systemClock, 'x.held', () => bytes('after'), 5);
  t.equal(text(after), 'after', 'the change is made once the dead writer\'s ticket expired');
  t.equal(text(a.get('x.held')), 'after');
});

t.test('a watch that stops delivering is replaced and the replica catches up', async (t) => {
  // The writer's checks run on a clock of the test's: on a loaded machine its own watch may deliver
  // later than one real check interval, and a watch silent for a whole interval is rightly replaced.
  const clockOfA = new ManualClock();
  const { a, b } = await pair(t, 100, clockOfA);
  await a.put('x.before', bytes('1'));
  t.ok(await eventually(() => b.get('x.before') !== undefined));
  // What a dead server does to the watch: it goes silent. Stop it behind the replica's back.
  (b as unknown as { watch: { stop(): void } }).watch.stop();
  for (let i = 0; i < 5; i++) await a.put(`x.after${i}`, bytes(String(i)));
  t.ok(await eventually(() => b.keysOf('x').length === 6), 'every later write reaches the replica');
  t.ok(b.restarts >= 1, `the watch was started again (${b.restarts} times)`);
  // The writer's watch delivered everything: its checks, each one interval apart, leave it alone.
  const seenOf = (r: BucketCopy): number => (r as unknown as { lastRevision: number }).lastRevision;
  t.ok(await eventually(() => seenOf(a) >= (a.revisionOf('x.after4') ?? Infinity)), 'the writer\'s watch delivered its writes');
  for (let i = 0; i < 3; i++) {
    clockOfA.advance(100);
    await new Promise((r) => setTimeout(r, 100)); // the check's round trip to the bucket
  }
  t.equal(a.restarts, 0, 'a watch that delivers is left alone');
});
