// The lease holder's timing on a ManualClock, against an in-memory bucket that behaves like a NATS
// KV with a max age (test/helpers/fake-lease-kv.ts) and that can be told to stop answering. The
// real-cluster behaviour is in lease.test.ts.
import t, { type Test } from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { Lease, LeaseCandidate, type LeaseLoss } from '../../../src/cluster/coordination/lease.js';
import { FakeKv } from '../../helpers/fake-lease-kv.js';

const TTL = 3000;
const flush = () => new Promise((r) => setImmediate(r));
async function advance(clock: ManualClock, ms: number, step = 100) {
  for (let done = 0; done < ms; done += step) {
    clock.advance(Math.min(step, ms - done));
    await flush();
  }
}

/** A lease on key `k` taken by holder `a`, with the losses it is told of. */
async function heldByA(t: Test) {
  const clock = new ManualClock();
  const kv = new FakeKv(clock, TTL);
  const lost: LeaseLoss[] = [];
  const a = new Lease({ kv, key: 'k', holder: 'a', ttlMs: TTL, clock, onLost: (w) => lost.push(w) });
  t.ok(await a.acquire(), 'a takes the lease');
  return { clock, kv, lost, a };
}

t.test('one holder at a time; renewals keep it; release frees it', async (t) => {
  const clock = new ManualClock();
  const kv = new FakeKv(clock, TTL);
  const a = new Lease({ kv, key: 'shard.1', holder: 'a', ttlMs: TTL, clock });
  const b = new Lease({ kv, key: 'shard.1', holder: 'b', ttlMs: TTL, clock });
  t.ok(await a.acquire(), 'a takes it');
  t.notOk(await b.acquire(), 'b cannot');
  await advance(clock, 10 * TTL);
  t.ok(a.held(), 'a still holds it after ten TTLs of renewals');
  t.notOk(await b.acquire(), 'b still cannot');
  t.equal((await a.currentHolder())?.holder, 'a');
  await a.release();
  t.notOk(a.held());
  t.ok(await b.acquire(), 'b takes it once released');
});

t.test('a holder whose renewals get no answer gives up before the key can expire', async (t) => {
  const { clock, kv, lost, a } = await heldByA(t);
  const lastWrite = kv.entries.get('k')!.writtenAt;
  kv.silent = true;
  let gaveUpAt = 0;
  while (a.held()) {
    await advance(clock, 10, 10);
    if (!a.held()) gaveUpAt = clock.now();
  }
  t.same(lost, ['expired'], 'told once, as expired');
  t.ok(gaveUpAt <= lastWrite + 0.75 * TTL, 'gave up at 3/4 of the TTL after its last good write');
  t.ok(gaveUpAt < lastWrite + TTL, 'strictly before the key expires for others');
  kv.silent = false;
  t.ok(await kv.get('k'), 'the key was still there when it gave up');
});

t.test('a paused holder (no timers ran) is not held the moment it wakes', async (t) => {
  const clock = new ManualClock();
  const kv = new FakeKv(clock, TTL);
  const a = new Lease({ kv, key: 'k', holder: 'a', ttlMs: TTL, clock });
  t.ok(await a.acquire());
  // Time jumps without any timer running in between, as after SIGSTOP/SIGCONT.
  clock.jump(TTL);
  t.notOk(a.held(), 'held() reads the clock, not a timer');
  const b = new Lease({ kv, key: 'k', holder: 'b', ttlMs: TTL, clock });
  t.ok(await b.acquire(), 'the key expired: b takes it');
});

t.test('a holder released after its deadline passed unseen is told it lost the lease first', async (t) => {
  const { clock, kv, lost, a } = await heldByA(t);
  // A pause: the deadline passes and no timer has run yet when the holder lets the lease go.
  clock.jump(TTL);
  await a.release();
  t.same(lost, ['expired'], 'the loss is reported, not swallowed by the release');
  const b = new Lease({ kv, key: 'k', holder: 'b', ttlMs: TTL, clock });
  t.ok(await b.acquire(), 'the key had expired: b takes it');
  await a.release();
  t.same(lost, ['expired'], 'told once');
});

t.test('a holder whose deadline passed unseen and who takes the lease again is told of the loss first', async (t) => {
  const { clock, kv, lost, a } = await heldByA(t);
  clock.jump(TTL);
  t.ok(await a.acquire(), 'the key had expired: a takes it anew');
  t.same(lost, ['expired'], 'the earlier hold ended in a loss');
  await a.release();
});

t.test('a holder released while its lease holds is not told of a loss', async (t) => {
  const { clock, kv, lost, a } = await heldByA(t);
  await advance(clock, TTL);
  await a.release();
  t.same(lost, []);
  t.equal(await kv.get('k'), null, 'the key is gone');
});

t.test('a holder whose key was taken is told so at its next renewal', async (t) => {
  const { clock, kv, lost, a } = await heldByA(t);
  // Someone overwrites the key (as if a's key had expired and b had created it).
  kv.entries.set('k', { revision: ++kv.seq, value: new TextEncoder().encode('{}'), writtenAt: clock.now(), operation: 'PUT' });
  await advance(clock, TTL / 3 + 1);
  t.same(lost, ['taken']);
  t.notOk(a.held());
});

t.test('a renewal that landed but whose answer was lost is adopted, not mistaken for a takeover', async (t) => {
  const { clock, kv, lost, a } = await heldByA(t);
  kv.dropAnswers = true;
  await advance(clock, TTL / 3 + 1, 10);
  kv.dropAnswers = false;
  await advance(clock, 5 * TTL, 10);
  t.same(lost, [], 'never lost');
  t.ok(a.held());
  t.equal(a.currentRevision(), kv.entries.get('k')!.revision, 'renews from the revision that landed');
});

t.test('a candidate takes over when the holder stops renewing, and not before', async (t) => {
  const clock = new ManualClock();
  const kv = new FakeKv(clock, TTL);
  const a = new Lease({ kv, key: 'k', holder: 'a', ttlMs: TTL, clock });
  t.ok(await a.acquire());
  let gainedAt = 0;
  const b = new LeaseCandidate({ kv, key: 'k', holder: 'b', ttlMs: TTL, clock, onGained: () => (gainedAt = clock.now()) });
  b.start();
  await advance(clock, 2 * TTL);
  t.equal(gainedAt, 0, 'b waits while a renews');
  const stoppedAt = clock.now();
  (a as unknown as { stopTimers(): void }).stopTimers(); // a stops renewing (its process hangs)
  await advance(clock, 2 * TTL);
  t.ok(gainedAt > 0, 'b took over');
  t.ok(gainedAt >= stoppedAt + TTL - TTL / 3, 'only after the key expired');
  t.ok(b.lease.held());
  t.notOk(a.held(), 'a does not believe it holds it any more');
  await b.stop();
  t.notOk(b.lease.held());
});

t.test('a renewal refused while the key cannot be read (a fail-over) is retried, not taken as lost', async (t) => {
  const { clock, kv, lost, a } = await heldByA(t);
  // The next renewal lands but its answer is lost; the one after names the old revision and is refused,
  // and reading the key fails once (the server fails over) before it answers again.
  kv.dropAnswers = true;
  await advance(clock, TTL / 3);
  kv.dropAnswers = false;
  const realGet = kv.get.bind(kv);
  let failedReads = 0;
  kv.get = async (key: string) => {
    if (failedReads++ === 0) throw new Error('no responders');
    return realGet(key);
  };
  await advance(clock, TTL / 10 + 100);
  t.same(lost, [], 'a failed read after a refusal is not a loss');
  await advance(clock, TTL / 10 + 100);
  t.ok(failedReads >= 2, 'it read the key again');
  t.ok(a.held(), 'and adopted its own landed write');
  t.same(lost, []);
  await a.release();
});

t.test('renewEveryMs sets the renewal period and must be below safety·TTL', async (t) => {
  const clock = new ManualClock();
  const kv = new FakeKv(clock, TTL);
  t.throws(() => new Lease({ kv, key: 'k', holder: 'a', ttlMs: TTL, clock, renewEveryMs: TTL }), /renewal period/);
  const a = new Lease({ kv, key: 'k', holder: 'a', ttlMs: TTL, clock, renewEveryMs: 200 });
  t.ok(await a.acquire());
  const first = a.currentRevision();
  await advance(clock, 1000);
  t.ok(a.currentRevision() >= first + 4, `renewed about every 200 ms (revision ${first} → ${a.currentRevision()})`);
  await a.release();
});

t.test('a release the bucket refuses resolves false, never rejects; the key then expires at its TTL', async (t) => {
  // Seen on the cluster soak: a candidate stopped while its acquire was in flight released the lease
  // it got from a timer nobody awaited; the refused removal ("JetStream system temporarily
  // unavailable") was an unhandled rejection, and the node process ended.
  const { clock, kv, a } = await heldByA(t);
  kv.refuseRemove = true;
  t.equal(await a.release(), false, 'refused: resolves false');
  t.notOk(a.held(), 'no longer held all the same');
  const b = new Lease({ kv, key: 'k', holder: 'b', ttlMs: TTL, clock });
  t.notOk(await b.acquire(), 'the key is still there right after');
  await advance(clock, TTL + 100);
  t.ok(await b.acquire(), 'another takes it once the key expired');
  kv.refuseRemove = false;
  t.equal(await b.release(), true, 'an accepted release resolves true');
});
