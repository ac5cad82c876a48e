// A lease holder's deadlines are kept on the monotonic clock, not the wall clock: an operator or NTP
// stepping the holder's wall clock back must not stretch its belief in the lease past the moment the
// server lets the key expire (two owners), and stepping it forward must not make it give up a lease
// it renews in time. On a ManualClock whose wall reading is stepped (stepWall) while its monotonic
// reading and timers go on; the bucket (test/helpers/fake-lease-kv.ts) ages keys on the server's own
// time, which a node's wall step does not touch. With `clock.now()` for the deadlines (the code before),
// the first test sees two holders for an hour and the second loses the lease at once.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { Lease, type LeaseKv, type LeaseLoss } from '../../../src/cluster/coordination/lease.js';
import { FakeKv } from '../../helpers/fake-lease-kv.js';

const TTL = 3000;
const HOUR = 3_600_000;
const flush = () => new Promise((r) => setImmediate(r));

/** The bucket as one node reaches it: `cut` makes its writes go unanswered (a partitioned holder). */
function reach(kv: FakeKv): LeaseKv & { cut: boolean } {
  const link = {
    cut: false,
    create: (k: string, v: Uint8Array) => (link.cut ? new Promise<number>(() => {}) : kv.create(k, v)),
    update: (k: string, v: Uint8Array, rev: number) => (link.cut ? new Promise<number>(() => {}) : kv.update(k, v, rev)),
    remove: (k: string) => (link.cut ? new Promise<void>(() => {}) : kv.remove(k)),
    get: (k: string) => kv.get(k),
  };
  return link;
}

for (const [label, step] of [['back an hour', -HOUR], ['back a second', -1000], ['forward an hour', HOUR]] as const) {
  t.test(`wall clock stepped ${label} while cut off: the holder gives up on time, and there is never a second owner`, async (t) => {
    const clock = new ManualClock();
    const kv = new FakeKv(clock, TTL);
    const aLink = reach(kv);
    const lost: LeaseLoss[] = [];
    const a = new Lease({ kv: aLink, key: 'shard.1', holder: 'a', ttlMs: TTL, clock, onLost: (w) => lost.push(w) });
    const b = new Lease({ kv, key: 'shard.1', holder: 'b', ttlMs: TTL, clock });
    t.ok(await a.acquire(), 'a takes the lease');
    await flush();
    clock.advance(500);
    await flush();
    const lastWrite = kv.entries.get('shard.1')!.writtenAt; // the server's time of a's last good write
    aLink.cut = true;
    clock.stepWall(step);
    let gaveUpAt = 0;
    let bGotAt = 0;
    let both = 0;
    for (let ms = 0; ms < 3 * TTL; ms += 10) {
      clock.advance(10);
      await flush();
      if (gaveUpAt === 0 && !a.held()) gaveUpAt = clock.monotonic();
      if (bGotAt === 0 && (await b.acquire())) bGotAt = clock.monotonic();
      if (a.held() && b.held()) both++;
    }
    t.equal(both, 0, 'never two holders at once');
    t.ok(gaveUpAt > 0 && gaveUpAt <= lastWrite + 0.75 * TTL, `a gave up by 3/4 TTL after its last good write (at +${gaveUpAt - lastWrite} ms)`);
    t.same(lost, ['expired'], 'a was told, once');
    t.ok(bGotAt >= lastWrite + TTL, 'b took it only once the key expired on the server');
    t.ok(b.held(), 'b holds it');
  });
}

for (const [label, step] of [['back', -HOUR], ['forward', HOUR]] as const) {
  t.test(`wall clock stepped ${label} an hour while renewing: the holder keeps its lease`, async (t) => {
    const clock = new ManualClock();
    const kv = new FakeKv(clock, TTL);
    const lost: LeaseLoss[] = [];
    const a = new Lease({ kv, key: 'k', holder: 'a', ttlMs: TTL, clock, onLost: (w) => lost.push(w) });
    const b = new Lease({ kv, key: 'k', holder: 'b', ttlMs: TTL, clock });
    t.ok(await a.acquire(), 'a takes the lease');
    clock.advance(1000);
    await flush();
    clock.stepWall(step);
    t.ok(a.held(), 'still held right after the step');
    for (let ms = 0; ms < 10 * TTL; ms += 100) {
      clock.advance(100);
      await flush();
    }
    t.ok(a.held(), 'held after ten TTLs of renewals');
    t.same(lost, [], 'never told of a loss');
    t.notOk(await b.acquire(), 'nobody else can take it');
    t.ok(a.remainingMs() <= 0.75 * TTL, `its remaining time stays within 3/4 TTL (${a.remainingMs()} ms)`);
  });
}
