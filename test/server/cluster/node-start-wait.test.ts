// A node started before its cluster waits for it. (1) Three nodes are started while their three
// nats-servers are not running yet: each answers at once, 503 `node_starting` on /health and on every
// other route (with Retry-After), and logs what it waits for; the servers are started afterwards, and
// the nodes come up on the port they answered on and play a house game to its end. (2) A node whose
// servers never appear exits after its start-up budget (a short `cluster.startTimeoutMs`), naming
// the cause. Before the wait, the first node exited at once ("cannot connect") and, started a few
// seconds after fresh servers, with "no suitable peers for placement".
import t from 'tap';
import { settingsFile, settled, startNode, type ClusterNodeProc } from '../../helpers/cluster-nodes.js';
import { call, checkPlayed, playHouseGame } from '../../helpers/cluster-play.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

type Json = any;
const SHARDS = 4;

t.test('nodes started before their nats-servers answer 503 starting, then come up and play', async (t) => {
  const nats = await startNatsCluster({ name: 'dc-startwait', deferred: true });
  const file = settingsFile({ cluster: { shards: SHARDS, leaseTtlMs: 10_000 }, games: { houseMoveDelayMs: 0, seedGraceMs: 0 } });
  const nodes: ClusterNodeProc[] = [];
  t.teardown(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await nats.stop();
    file.remove();
  });
  for (const name of ['a', 'b', 'c']) nodes.push(await startNode(name, nats.urls, file.file, 60_000, { starting: true }));

  for (const n of nodes) {
    const health = await call(n, 'GET', '/health');
    t.equal(health.status, 503, `${n.name}: /health is 503 while its servers are down`);
    t.equal((health.json as Json)?.code, 'node_starting', `${n.name}: the code says starting`);
    t.match((health.json as Json)?.detail, /starting/, `${n.name}: the body says starting`);
    const other = await call(n, 'GET', '/games');
    t.equal(other.status, 503, `${n.name}: another route is 503 too`);
    t.equal(other.headers['retry-after'], '1', `${n.name}: with Retry-After`);
    t.equal(other.headers['content-type'], 'application/problem+json', `${n.name}: a problem body`);
  }
  // Each node says what it waits for: the servers refuse its connections.
  t.ok(await eventually(() => nodes.every((n) => n.log.some((l) => l.includes('cluster: waiting for JetStream'))), 30_000), 'each node logs its waits with their cause');
  t.ok(nodes.every((n) => n.child.exitCode === null), 'no node exited while its servers were down');

  await nats.startAll();
  t.ok(await eventually(() => nodes.every((n) => n.log.some((l) => l.includes('listening on '))), 120_000), 'every node comes up once its servers run');
  for (const n of nodes) {
    const m = /listening on (http:\/\/[^"\s]+)/.exec(n.log.find((l) => l.includes('listening on ')) ?? '');
    t.equal(m?.[1], n.url, `${n.name}: up on the port it answered 503 on`);
    t.equal((await call(n, 'GET', '/health')).status, 200, `${n.name}: /health is 200 once up`);
  }
  t.ok(await eventually(() => settled(nodes, SHARDS), 60_000), 'the shards settle over the three nodes');
  const played = await playHouseGame(nodes, 'startwait', 0, () => {});
  await checkPlayed(t, nodes, played);
});

t.test('a node whose cluster never appears exits after cluster.startTimeoutMs, naming the cause', async (t) => {
  // Ports nobody listens on: a cluster made but never started.
  const nats = await startNatsCluster({ name: 'dc-startnever', deferred: true });
  const file = settingsFile({ cluster: { shards: SHARDS, startTimeoutMs: 3_000 } });
  t.teardown(async () => {
    await nats.stop();
    file.remove();
  });
  const node = await startNode('z', nats.urls, file.file, 60_000, { starting: true });
  t.teardown(() => node.stop());
  t.equal((await call(node, 'GET', '/health')).status, 503, 'it answers 503 while it waits');
  const code = await new Promise<number | null>((res) => {
    if (node.child.exitCode !== null) res(node.child.exitCode);
    else node.child.once('exit', (c) => res(c));
  });
  t.equal(code, 1, 'it exits with status 1');
  const said = node.log.join('\n');
  t.match(said, /dicechess: cluster: cannot start: the cluster was not ready within 3 s \(cluster\.startTimeoutMs\): connecting to nats:\/\/127\.0\.0\.1:\d+/, 'its last line names the budget and the step');
  t.match(said, /cannot start:.*(refused|CONNECTION_REFUSED)/i, 'and the cause');
});
