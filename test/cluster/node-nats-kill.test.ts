// kill -9 of a nats-server mid-play. Three nats-server (R3), three `dicechess serve --cluster` nodes;
// bots play house games spread over the nodes, and one of the servers is killed -9 while the games run.
// The nodes connected to it reconnect to the others, the streams and buckets elect new leaders, and
// every game ends with nothing acknowledged lost or applied twice (the same checks as a node's death).
import t from 'tap';
import { eventually, startNatsCluster } from '../helpers/nats-cluster.js';
import { settingsFile, settled, startNode, type ClusterNodeProc } from '../helpers/cluster-nodes.js';
import { checkPlayed, playHouseGame, type Played } from '../helpers/cluster-play.js';

const GAMES = 9;
const SHARDS = 6;

const nats = await startNatsCluster({ name: 'dc-natskill' });
const settings = settingsFile({
  cluster: { shards: SHARDS, leaseTtlMs: 3000 },
  limits: { registrationsPerHour: 1000 },
  games: { houseMoveDelayMs: 150, seedGraceMs: 0 },
});
const nodes: ClusterNodeProc[] = [];
t.teardown(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await nats.stop();
  settings.remove();
});
for (const name of ['a', 'b', 'c']) nodes.push(await startNode(name, nats.urls, settings.file));
if (!(await eventually(() => settled(nodes, SHARDS), 60_000))) throw new Error('the shards never settled');

t.test('every game ends after kill -9 of a nats-server mid-play, losing no acknowledged move', async (t) => {
  let acked = 0;
  let listed = 0;
  const playing = Promise.all(Array.from({ length: GAMES }, (_, i) => playHouseGame(nodes, 'natskill', i, () => acked++, () => listed++)));
  // Mid-play: once every game is listed and the bots have had some moves acknowledged.
  t.ok(await eventually(() => listed === GAMES && acked >= GAMES * 2, 60_000), 'games are under way');
  await nats.kill9(0);
  t.pass(`${nats.servers[0].name} killed -9 after ${acked} acknowledged moves`);
  let played: Played[];
  try {
    played = await playing;
  } catch (e) {
    console.error(nodes.map((n) => `--- ${n.name}\n${n.log.slice(-20).join('\n')}`).join('\n'));
    t.fail((e as Error).message);
    return;
  }
  for (const p of played) await checkPlayed(t, nodes, p);
});
