// Leases on a real three-server cluster (bucket with three replicas): exactly one of several
// contenders holds a key; a holder process paused with SIGSTOP past its TTL is replaced by another,
// and when it resumes it notices the loss itself and its stale write is refused by the bucket.
import t from 'tap';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../../../src/domain/clock.js';
import { connectCluster, leaseBucket, openBucket } from '../../../src/cluster/transport/nats.js';
import { Lease, LeaseCandidate } from '../../../src/cluster/coordination/lease.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';
import { spawnBound } from '../../helpers/spawn-bound.js';

const TTL = 1500;
const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'lease-child.js');
const cluster = await startNatsCluster({ name: 'dc-lease' });
const nc = await connectCluster(cluster.urls, 'lease-test');
t.teardown(async () => {
  await nc.close();
  await cluster.stop();
});
const kv = leaseBucket(await openBucket(nc, { bucket: 'leases', replicas: 3, ttlMs: TTL, timeoutMs: 1000 }));

t.test('of five contenders racing for one key, exactly one holds it', async (t) => {
  const leases = ['a', 'b', 'c', 'd', 'e'].map((holder) => new Lease({ kv, key: 'race', holder, ttlMs: TTL, clock: systemClock }));
  const won = await Promise.all(leases.map((l) => l.acquire()));
  t.equal(won.filter(Boolean).length, 1, 'one winner');
  const winner = leases[won.indexOf(true)];
  t.equal((await winner.currentHolder())?.holder, ['a', 'b', 'c', 'd', 'e'][won.indexOf(true)], 'the bucket names it');
  // It keeps the key across several TTLs by renewing; the others still cannot take it.
  await new Promise((r) => setTimeout(r, 2 * TTL));
  t.ok(winner.held(), 'still held after two TTLs');
  const again = await Promise.all(leases.filter((l) => l !== winner).map((l) => l.acquire()));
  t.same(again, [false, false, false, false]);
  // Released and raced for again, ten times: one winner each time (a release leaves no marker).
  let holder = winner;
  for (let round = 0; round < 10; round++) {
    await holder.release();
    const next = await Promise.all(leases.map((l) => l.acquire()));
    t.equal(next.filter(Boolean).length, 1, `round ${round}: after release, exactly one takes it`);
    holder = leases[next.indexOf(true)] ?? holder;
  }
  await Promise.all(leases.map((l) => l.release()));
});

t.test('a paused holder process is replaced, then notices and drops the lease', async (t) => {
  const child = spawnBound(process.execPath, [CHILD, cluster.urls.join(','), 'leases', 'paused', String(TTL)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  t.ok(await eventually(() => out.includes('held\n')), 'the child holds the lease');
  let gained = false;
  const taker = new LeaseCandidate({ kv, key: 'paused', holder: 'taker', ttlMs: TTL, clock: systemClock, retryMs: 100, onGained: () => (gained = true) });
  taker.start();
  t.teardown(() => taker.stop());
  await new Promise((r) => setTimeout(r, TTL));
  t.notOk(gained, 'no takeover while the child renews');

  process.kill(child.pid!, 'SIGSTOP');
  t.ok(await eventually(() => gained), 'another takes over once the paused holder key expired');
  t.equal((await taker.lease.currentHolder())?.holder, 'taker');
  process.kill(child.pid!, 'SIGCONT');
  t.ok(await eventually(() => out.includes('stale write')), 'the child woke up');
  t.match(out, /lost (expired|taken)\n/, 'it noticed the loss itself');
  t.match(out, /stale write refused/, 'its write with the old revision was refused by the bucket');
  t.ok(taker.lease.held(), 'the new holder keeps it');
});

t.test('a lease survives kill -9 of the nats-server leading its bucket', async (t) => {
  // The holder must get a renewal through within safety·TTL of its last one while a new leader is
  // elected and its connection moves to a live server (seconds on 2.9, more on a loaded machine): a
  // 20 s TTL leaves it 15 s, and renewing every 2 s gives it several tries inside that.
  const raw = await openBucket(nc, { bucket: 'leases-long', replicas: 3, ttlMs: 20_000, timeoutMs: 1000 });
  const lost: string[] = [];
  const l = new Lease({ kv: leaseBucket(raw), key: 'survive', holder: 'x', ttlMs: 20_000, renewEveryMs: 2_000, clock: systemClock, onLost: (w) => lost.push(w) });
  t.ok(await l.acquire());
  const leader = (await raw.status()).streamInfo.cluster?.leader;
  const victim = cluster.servers.findIndex((s) => s.name === leader);
  t.ok(victim >= 0, `the bucket's leader is ${leader}`);
  const before = l.currentRevision();
  await cluster.kill9(victim);
  // Renewals go on once a new leader is elected; wait for two of them.
  t.ok(await eventually(() => l.currentRevision() > before + 1 || lost.length > 0, 30_000), 'renewed twice after the kill');
  t.same(lost, [], 'never lost while two of three servers are up');
  t.ok(l.held());
  await l.release();
  await cluster.start(victim);
});
