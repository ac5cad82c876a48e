// What a BucketCopy keeps per key is the value's bytes and no more. The NATS client hands each watched
// entry over as a view into the read buffer it came in (tens of KB), and a copy that kept the view kept
// the whole buffer alive: in the three-node soak, every result record another node wrote pinned about
// 19 KB on each node, and the nodes' memory grew with the games played (docs/CLUSTER.md, "Memory of a
// node: values are copied"). Against a real nats-server: another connection's writes come by the watch.
import t from 'tap';
import { connectCluster, openBucket } from '../../../src/cluster/transport/nats.js';
import { BucketCopy, ownBytes } from '../../../src/cluster/store/bucket-copy.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-kvmemory' });
const nc = await connectCluster(cluster.urls, 'bucket-copy-memory');
const other = await connectCluster([...cluster.urls].reverse(), 'bucket-copy-memory-2');
t.teardown(async () => {
  await nc.close();
  await other.close();
  await cluster.stop();
});

/** True when the value is the only thing its buffer holds (keeping it keeps nothing else). */
const alone = (v: Uint8Array | undefined): boolean => v !== undefined && v.byteOffset === 0 && v.buffer.byteLength === v.byteLength;

t.test('a value applied as a view into a larger buffer is kept as bytes of its own', async (t) => {
  const a = await BucketCopy.open(await openBucket(nc, { bucket: 'kvm1', replicas: 3 }), () => {}, ['x']);
  t.teardown(() => a.close());
  const big = new Uint8Array(64 * 1024).fill(7);
  a.apply({ key: 'x.view', revision: 1_000_000, operation: 'PUT', value: big.subarray(100, 200) });
  const kept = a.get('x.view');
  t.equal(kept?.byteLength, 100);
  t.ok(kept?.every((b) => b === 7), 'the same bytes');
  t.ok(alone(kept), 'its buffer is its own, not the 64 KiB one it came in');
  const whole = new Uint8Array([1, 2, 3]);
  t.equal(ownBytes(whole), whole, 'a value that fills its buffer is not copied');
});

t.test('values written by another node and delivered by the watch keep no read buffer alive', async (t) => {
  const bucket = 'kvm2';
  const a = await BucketCopy.open(await openBucket(nc, { bucket, replicas: 3 }), () => {}, ['r']);
  const b = await BucketCopy.open(await openBucket(other, { bucket, replicas: 3 }), () => {}, ['r']);
  t.teardown(() => {
    a.close();
    b.close();
  });
  // Many small values at once, as result records come: several arrive in one read of the socket.
  const n = 200;
  await Promise.all(Array.from({ length: n }, (_, i) => b.put(`r.g${i}`, new TextEncoder().encode(JSON.stringify({ game: i, lines: ['w', 'b'] })))));
  t.ok(await eventually(() => a.keysOf('r').length === n), 'every value reached the other copy');
  const values = a.keysOf('r').map((k) => a.get(k));
  t.equal(values.filter(alone).length, n, 'each value kept owns its buffer');
  const pinned = new Set(values.map((v) => v!.buffer)).size;
  t.equal(pinned, n, 'one buffer per value, each the size of its value');
  const { bytes } = a.heldUse();
  const buffers = values.reduce((s, v) => s + v!.buffer.byteLength, 0);
  t.equal(buffers, bytes, 'the buffers kept hold exactly the bytes of the values');
});
