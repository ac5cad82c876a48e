// Child process for lease.test.ts (not a test itself): takes a lease on the cluster and reports on
// stdout when it holds it and when it notices it lost it; after the loss it tries one write with its
// old revision and reports whether the bucket refused it. The parent pauses it with SIGSTOP.
import { systemClock } from '../../../src/domain/clock.js';
import { connectCluster, leaseBucket, openBucket } from '../../../src/cluster/transport/nats.js';
import { isRevisionConflict, Lease } from '../../../src/cluster/coordination/lease.js';

const [servers, bucket, key, ttl] = process.argv.slice(2);
const nc = await connectCluster(servers.split(','), 'lease-child');
const bucketKv = await openBucket(nc, { bucket, replicas: 3, ttlMs: Number(ttl), timeoutMs: 1000 });
const kv = leaseBucket(bucketKv);
let oldRevision = 0;
const lease = new Lease({
  kv,
  key,
  holder: 'child',
  ttlMs: Number(ttl),
  clock: systemClock,
  onLost: (why) => {
    process.stdout.write(`lost ${why}\n`);
    bucketKv.update(key, new TextEncoder().encode('stale'), oldRevision).then(
      () => process.stdout.write('stale write accepted\n'),
      (e) => process.stdout.write(isRevisionConflict(e) ? 'stale write refused\n' : `stale write failed ${String(e)}\n`),
    );
  },
});
while (!(await lease.acquire())) await new Promise((r) => setTimeout(r, 100));
oldRevision = lease.currentRevision();
process.stdout.write('held\n');
const stop = setTimeout(() => process.exit(3), 60_000); // bounded, in case the parent never kills it
process.on('SIGTERM', () => {
  clearTimeout(stop);
  void nc.close().then(() => process.exit(0));
});
