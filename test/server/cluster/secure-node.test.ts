// A dicechess node on a secured nats-server (src/cluster/security/nats-conf.ts, as `make cluster`
// writes it: one account, a `node` user by nkey, a `monitor` user; one server with JetStream, R1 —
// three servers are not needed to show the node's permissions suffice):
// - a node given no credentials refuses to start, saying NATS refused them;
// - a node given the node user's nkey seed file (cluster.nats.nkeySeedFile) starts, serves its shards
//   (leases), and a bot registered on it plays a game against a house bot to its end over HTTP; the
//   server logged no permission violation meanwhile (every subject the node used is allowed). A house
//   game is unrated: the results queue's publish and acknowledgement are shown in
//   test/cluster/security/permissions.test.ts.
// Before this change a node had no way to present credentials: the second node could not start.
import t from 'tap';
import { settingsFile, startNode, type ClusterNodeProc } from '../../helpers/cluster-nodes.js';
import { call, checkPlayed, playHouseGame } from '../../helpers/cluster-play.js';
import { eventually } from '../../helpers/nats-cluster.js';
import { startSecureNats } from '../../helpers/nats-secure.js';

type Json = any;
const nats = await startSecureNats({ name: 'dc-secnode' });
const base = { cluster: { shards: 2, replicas: 1, leaseTtlMs: 10_000 }, games: { houseMoveDelayMs: 0, seedGraceMs: 0 }, ladder: { ratingBatchMs: 500 } };
const bare = settingsFile(base);
const withKey = settingsFile({ ...base, cluster: { ...base.cluster, nats: nats.nodeSettings } });
const nodes: ClusterNodeProc[] = [];
t.teardown(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await nats.stop();
  bare.remove();
  withKey.remove();
});

t.test('a node without credentials refuses to start, naming the cause', async (t) => {
  const err = await startNode('anon', nats.urls, bare.file).then(
    (n) => {
      nodes.push(n);
      return undefined;
    },
    (e: Error) => e,
  );
  t.ok(err, 'it did not start');
  t.match(err?.message ?? '', /NATS refused the credentials/, 'its log says NATS refused the credentials');
});

t.test('a node with the node user nkey plays a game to its end', async (t) => {
  const node = await startNode('a', nats.urls, withKey.file);
  nodes.push(node);
  t.ok(await eventually(() => node.serving().size === 2, 60_000), 'it serves both shards');
  const p = await playHouseGame(nodes.filter((n) => n.name === 'a'), 'sec', 1, () => {});
  await checkPlayed(t, [node], p);
  const h = (await call(node, 'GET', `/games/${p.gameId}/history`)).json as Json;
  t.ok('Ended' in (h?.status ?? {}), 'the stored game is ended');
  const violations = nats.serverLog(0).split('\n').filter((l) => /Violation/i.test(l));
  t.same(violations, [], 'no permission violation in the server log');
});
