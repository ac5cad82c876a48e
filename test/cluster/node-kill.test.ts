// kill -9 of a node mid-play. Three nats-server, three `dicechess serve --cluster` nodes; bots play
// house games with their streams and moves spread over the nodes, and node b is killed -9 while the
// games run. Its shards' leases expire, the others take its games over from the log, and every game
// ends: each bot's streams reconnect to a live node (a Snapshot first), each version a stream shows
// follows the one before, every move the server acknowledged is in the final history, in order, and
// none is applied twice.
import t from 'tap';
import { eventually } from '../helpers/nats-cluster.js';
import { startNodeCluster } from '../helpers/cluster-nodes.js';
import { checkPlayed, playHouseGame, type Played } from '../helpers/cluster-play.js';

const GAMES = 9;
const SHARDS = 6;

const { nodes } = await startNodeCluster(t, 'dc-kill', {
  cluster: { shards: SHARDS, leaseTtlMs: 3000 },
  limits: { registrationsPerHour: 1000 },
  games: { houseMoveDelayMs: 150, seedGraceMs: 0 },
});
const victim = nodes[1];

t.test('every game ends after kill -9 of a node mid-play, losing no acknowledged move', async (t) => {
  let acked = 0;
  let listed = 0;
  const playing = Promise.all(Array.from({ length: GAMES }, (_, i) => playHouseGame(nodes, 'kill', i, () => acked++, () => listed++)));
  // Mid-play: once every game is listed and the bots have had some moves acknowledged.
  t.ok(await eventually(() => listed === GAMES && acked >= GAMES * 2, 60_000), 'games are under way');
  await victim.kill9();
  t.pass(`node ${victim.name} killed -9 after ${acked} acknowledged moves`);
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
