// kill -9 of a nats-server mid-play. Three nats-server, three `dicechess serve --cluster` nodes; bots
// play house games with their streams and moves spread over the nodes, and the server that leads the
// game log (DC_GAMES) is killed -9 while the games run. The cluster keeps playing: the log and the
// buckets elect new leaders, the nodes connected to the dead server reconnect to another, and every
// game ends with its streams whole, every acknowledged move in the final history once, and a game
// started after the kill plays to its end as well. The killed server is started again at the end.
import t from 'tap';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { eventually } from '../../helpers/nats-cluster.js';
import { startNodeCluster } from '../../helpers/cluster-nodes.js';
import { checkPlayed, playHouseGame, type Played } from '../../helpers/cluster-play.js';

const GAMES = 6;
const SHARDS = 6;

const { nats, nodes } = await startNodeCluster(t, 'dc-natskill', {
  cluster: { shards: SHARDS, leaseTtlMs: 10_000 },
  limits: { registrationsPerHour: 1000 },
  games: { houseMoveDelayMs: 150, seedGraceMs: 0 },
});

/** The index of the server that leads `stream` now (-1 when none does). */
async function leaderOf(stream: string): Promise<number> {
  const nc = await connect({ servers: nats.urls, timeout: 5000 });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 5000 });
    const leader = (await jsm.streams.info(stream)).cluster?.leader;
    return nats.servers.findIndex((s) => s.name === leader);
  } finally {
    await nc.close();
  }
}

t.test('every game ends after kill -9 of the nats-server leading the game log', async (t) => {
  let acked = 0;
  let listed = 0;
  const playing = Promise.all(Array.from({ length: GAMES }, (_, i) => playHouseGame(nodes, 'nk', i, () => acked++, () => listed++)));
  t.ok(await eventually(() => listed === GAMES && acked >= GAMES * 2, 60_000), 'games are under way');
  const victim = await leaderOf('DC_GAMES');
  t.ok(victim >= 0, `the game log's leader is server ${victim}`);
  const leases = await leaderOf('KV_dc-shards');
  await nats.kill9(victim);
  t.pass(`${nats.servers[victim].name} (leading the log${leases === victim ? ' and the shard leases' : ''}) killed -9 after ${acked} acknowledged moves`);
  const started = Date.now();
  // A new game once play has resumed (the streams the server led have new leaders by then).
  const atKill = acked;
  const later = eventually(() => acked >= atKill + GAMES, 120_000).then(() => playHouseGame(nodes, 'nk-after', 0, () => {}));
  let played: Played[] = [];
  try {
    played = await Promise.all([playing, later]).then(([a, b]) => [...a, b]);
    t.comment(`every game ended ${Date.now() - started} ms after the kill`);
  } catch (e) {
    console.error(nodes.map((n) => `--- ${n.name}\n${n.log.slice(-20).join('\n')}`).join('\n'));
    t.fail((e as Error).message);
  } finally {
    await nats.start(victim);
    t.pass(`${nats.servers[victim].name} started again`);
  }
  for (const p of played) await checkPlayed(t, nodes, p);
});
