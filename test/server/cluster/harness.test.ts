// The nats-server test harness: three real servers form one JetStream cluster, an R3 stream keeps
// taking writes while one server is killed -9, and a paused server comes back when resumed.
import t from 'tap';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { startNatsCluster } from '../../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ size: 3, name: 'dc-harness' });
t.teardown(() => cluster.stop());

t.test('three servers, one cluster, an R3 stream that survives kill -9 of one server', async (t) => {
  t.equal(cluster.servers.length, 3);
  t.equal(new Set(cluster.servers.map((s) => s.port)).size, 3, 'distinct ports');
  const nc = await connect({ servers: cluster.urls });
  t.teardown(() => nc.close());
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.add({ name: 'H', subjects: ['h.>'], num_replicas: 3 });
  t.equal(info.config.num_replicas, 3);
  const js = jetstream(nc);
  t.equal((await js.publish('h.1', 'a')).seq, 1);
  const victim = cluster.servers.findIndex((s) => s.url !== nc.getServer());
  await cluster.kill9(victim);
  t.not(cluster.servers[victim].child?.signalCode, null, 'the server was killed');
  // Two of three replicas are a quorum: writes still commit (a stream leader may move first).
  let seq = 0;
  for (let i = 0; i < 100 && seq === 0; i++) {
    try {
      seq = (await js.publish('h.1', 'b', { timeout: 2000 })).seq;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  t.equal(seq, 2, 'a write after the kill commits');
  await cluster.start(victim);
  t.equal((await js.publish('h.1', 'c')).seq, 3, 'and after the restart');
});

t.test('a paused server stops answering and resumes on SIGCONT', async (t) => {
  const i = 2;
  const nc = await connect({ servers: cluster.servers[i].url, reconnect: false });
  t.teardown(() => nc.close());
  cluster.pause(i);
  await t.rejects(nc.request('$JS.API.INFO', undefined, { timeout: 500 }), 'no answer while paused');
  cluster.resume(i);
  const jsm = await jetstreamManager(nc);
  t.ok((await jsm.getAccountInfo()).streams >= 1, 'answers again after SIGCONT');
});
