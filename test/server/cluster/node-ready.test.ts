// GET /ready on a cluster node (a real `dicechess serve --cluster` process on one nats-server): ready
// with its two cluster parts once it serves its shards; not ready, naming `nats`, while the
// nats-server is gone and the node's client is reconnecting.
import t from 'tap';
import { startNatsCluster } from '../../helpers/nats-cluster.js';
import { settingsFile, startNode, settled } from '../../helpers/cluster-nodes.js';
import { eventually } from '../../helpers/nats-cluster.js';
import { request } from '../../helpers/http.js';

interface Ready {
  status: string;
  parts: Record<string, { ok: boolean; detail?: string }>;
}

t.test('a node is ready with NATS up and its shards served, and not ready while NATS is down', async (t) => {
  const nats = await startNatsCluster({ size: 1, name: 'dc-ready' });
  const file = settingsFile({ cluster: { shards: 4, replicas: 1 } });
  const node = await startNode('a', nats.urls, file.file);
  t.teardown(async () => {
    await node.stop();
    await nats.stop();
    file.remove();
  });
  t.ok(await eventually(() => settled([node], 4), 60_000), 'the node serves every shard');
  const ready = async (): Promise<{ status: number; body: Ready }> => {
    const r = await request('GET', `${node.url}/ready`);
    return { status: r.status, body: r.json as Ready };
  };
  t.ok(await eventually(async () => (await ready()).status === 200), 'ready');
  const up = await ready();
  t.same(Object.keys(up.body.parts).sort(), ['nats', 'ownedShards', 'server', 'shards', 'store'], 'the cluster parts are checked');

  await nats.kill9(0);
  t.ok(await eventually(async () => (await ready()).status === 503, 30_000), 'not ready once NATS is gone');
  const down = await ready();
  t.equal(down.body.parts.nats?.ok, false, `nats is the part: ${down.body.parts.nats?.detail}`);
  t.equal((await request('GET', `${node.url}/health`)).status, 200, 'alive all the same');
});
