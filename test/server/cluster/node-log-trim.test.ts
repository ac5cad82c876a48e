// Log trimming (docs/CLUSTER.md, "Log trimming"): once a game's ending is archived, its subject is
// trimmed from the game log. Three nats-server and two `dicechess serve --cluster` nodes.
// (1) A game archived just before a takeover: the test plays an owner that holds shard 1's lease,
//     starts a game there (index key, first version, the start announced), appends its ending, archives
//     it (the cluster store's finishGame) and dies before trimming. Node a takes shard 1 over, finds the
//     game archived, and trims its log without appending a marker; the game reads ended on the node.
// (2) House games played to their end (resigned) through both nodes: afterwards none of their subjects
//     is left in DC_GAMES, the live index is empty, and every game reads the same, ended, on both nodes
//     and on a third node started after they ended (finished games read on demand from the bucket).
// (3) An event of house games played to its end: its JSON and PGN exports on every node hold every
//     game, though each node keeps one finished game in its cache and one in its archive (the export
//     loads the others from the bucket as it goes).
import t from 'tap';
import { jetstreamManager } from '@nats-io/jetstream';
import { GameLog } from '../../../src/cluster/log/game-log.js';
import { Lease } from '../../../src/cluster/coordination/lease.js';
import { openLiveIndex } from '../../../src/cluster/log/live-index.js';
import { ClusterStore } from '../../../src/cluster/store/cluster-store.js';
import { connectCluster, leaseBucket, openBucket } from '../../../src/cluster/transport/nats.js';
import { encodeReplies, outSubject } from '../../../src/cluster/transport/nats-transport.js';
import { encodeVersion } from '../../../src/cluster/log/record-codec.js';
import { systemClock } from '../../../src/domain/clock.js';
import { shardIndex } from '../../../src/shard/protocol/messages.js';
import { ended, game } from '../../helpers/store-fixtures.js';
import type { Json } from '../../helpers/bot.js';
import { call } from '../../helpers/cluster-play.js';
import { settingsFile, startNode, type ClusterNodeProc } from '../../helpers/cluster-nodes.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const SHARDS = 2;
const TTL = 3000;
const nats = await startNatsCluster({ name: 'dc-trim' });
const nc = await connectCluster(nats.urls, 'log-trim-test');
const settings = settingsFile({
  limits: { registrationsPerHour: 1000 },
  games: { houseMoveDelayMs: 0, seedGraceMs: 0, archiveSize: 1 },
  // Kept small for (3): an event's exports must load the games this cache and the archive do not hold.
  cluster: { shards: SHARDS, leaseTtlMs: TTL, finishedCache: { entries: 1, bytes: 1 << 20 } },
});
const nodes: ClusterNodeProc[] = [];
let store: ClusterStore | undefined;
t.teardown(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await store?.close();
  await nc.close();
  await nats.stop();
  settings.remove();
});

const jsm = await jetstreamManager(nc);
/** The game subjects DC_GAMES holds now (read from the stream's leader). */
async function subjects(): Promise<string[]> {
  const info = await jsm.streams.info('DC_GAMES', { subjects_filter: 'dc.game.>' });
  return Object.keys(info.state.subjects ?? {}).map((s) => s.slice('dc.game.'.length));
}
const read = async (node: ClusterNodeProc, path: string): Promise<{ status: number; text: string }> => {
  const r = await call(node, 'GET', path);
  return { status: r.status, text: r.text };
};

t.test('a game archived just before a takeover is trimmed by the new owner and still reads', async (t) => {
  const shards = leaseBucket(await openBucket(nc, { bucket: 'dc-shards', replicas: 3, ttlMs: TTL }));
  const lease = new Lease({ kv: shards, key: 'shard.1', holder: 'gone', ttlMs: TTL, clock: systemClock });
  t.ok(await lease.acquire(), 'the test holds shard 1');
  const a = await startNode('a', nats.urls, settings.file);
  nodes.push(a);
  t.ok(await eventually(() => a.serving().has(0), 60_000), 'node a serves shard 0');

  let n = 0;
  let id = '';
  do id = `trim${process.pid}x${n++}`;
  while (shardIndex(id, SHARDS) !== 1);
  const live = game(id, { rated: false, timeControl: { Unlimited: {} }, clocks: null, clockStartedAt: null });
  const index = await openLiveIndex(nc, { replicas: 3 });
  const log = await GameLog.open(nc, { replicas: 3 });
  await index.add(1, id);
  const writer = log.begin(id);
  t.ok((await writer.append(1, encodeVersion(undefined, live))).ok, 'its first version is in the log');
  nc.publish(outSubject('dc.out', 1), encodeReplies({ r: [{ t: 'started', rid: 0, rec: live }], to: [''] }));
  const over = { ...ended(live, Date.now()), version: live.version + 1 };
  t.ok((await writer.append(2, encodeVersion(live, over))).ok, 'its ending is in the log');
  store = await ClusterStore.open(nc, { replicas: 3 });
  await store.finishGame(over, []);
  t.same(await subjects(), [id], 'archived, not yet trimmed: the owner dies here');
  await lease.release();

  t.ok(await eventually(() => a.serving().has(1), 30_000), 'node a takes shard 1 over');
  t.ok(await eventually(async () => (await subjects()).length === 0, 20_000), 'the game log no longer holds the game');
  t.same(await index.list(1), [], 'nor does the live index');
  t.ok(a.log.some((l) => l.includes(id) && l.includes('game found archived at takeover')), 'the takeover says so');
  const shown = (await call(a, 'GET', `/games/${id}`)).json as Json;
  t.equal(shown?.version, over.version, 'the game reads at its final version');
  t.same(shown?.status, over.status, 'with its ending');
});

/** A bot on `node` challenges the house and resigns at once: the game's id. */
async function resignedGame(node: ClusterNodeProc, i: number): Promise<string> {
  const reg = await call(node, 'POST', '/bot/register', undefined, { team: `trim${i}`, name: 'p' });
  const token = (reg.json as Json).token as string;
  let gameId = '';
  await eventually(async () => (await call(node, 'GET', '/bot/games', token)).status === 200);
  const ch = await call(node, 'POST', '/bot/challenge', token, { team: 'house', name: 'random' });
  if (ch.status !== 201) throw new Error(`challenge: ${ch.status} ${ch.text}`);
  await eventually(async () => {
    gameId = (((await call(node, 'GET', '/bot/games', token)).json as Json)?.games ?? [])[0]?.gameId ?? '';
    return gameId !== '';
  }, 30_000);
  if (!(await eventually(async () => (await call(node, 'POST', `/bot/game/${gameId}/resign`, token)).status === 202))) throw new Error('resign refused');
  return gameId;
}

t.test('finished games leave the log and read the same on every node', async (t) => {
  const b = await startNode('b', nats.urls, settings.file);
  nodes.push(b);
  const [a] = nodes;
  t.ok(await eventually(() => a.serving().size + b.serving().size === SHARDS && b.serving().size > 0, 60_000), 'both nodes serve shards');
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push(await resignedGame(nodes[i % 2], i));
  const isEnded = async (node: ClusterNodeProc, id: string) => {
    const status = ((await call(node, 'GET', `/games/${id}`)).json as Json)?.status;
    return typeof status === 'object' && status !== null && 'Ended' in status;
  };
  t.ok(await eventually(async () => (await Promise.all(ids.flatMap((id) => nodes.map((n) => isEnded(n, id))))).every(Boolean), 30_000), 'every game reads ended on both nodes');
  t.ok(await eventually(async () => (await subjects()).every((s) => !ids.includes(s)), 20_000), 'no subject of theirs is left in DC_GAMES');
  const index = await openLiveIndex(nc, { replicas: 3 });
  t.same([...(await index.list(0)), ...(await index.list(1))], [], 'the live index is empty');
  // Node c starts after the games ended: it never saw them, and reads them from the store's bucket.
  const c = await startNode('c', nats.urls, settings.file);
  nodes.push(c);
  for (const id of ids) {
    for (const path of [`/games/${id}`, `/games/${id}/history`]) {
      const [ra, rb, rc] = [await read(a, path), await read(b, path), await read(c, path)];
      t.equal(ra.status, 200, `${path} on a`);
      t.equal(rb.text, ra.text, `${path}: the same answer on b`);
      t.equal(rc.text, ra.text, `${path}: the same answer on c, started after the game ended`);
    }
  }
});

t.test("an event's exports on every node hold every game, loaded as the export goes", async (t) => {
  const host = await call(nodes[0], 'POST', '/bot/register', undefined, { team: 'trimhost', name: 'h' });
  const token = (host.json as Json).token as string;
  await eventually(async () => (await call(nodes[1], 'GET', '/bot/games', token)).status === 200);
  const PAIRS = 4;
  const made = await call(nodes[1], 'POST', '/events', token, {
    name: 'exported', format: 'match', players: [{ team: 'house', name: 'greedy' }, { team: 'house', name: 'random' }],
    timeControl: { Unlimited: {} }, pairsPerEncounter: PAIRS, concurrency: 2,
  });
  t.equal(made.status, 201, made.text);
  const id = (made.json as Json).eventId as string;
  const finished = await eventually(async () => ((await call(nodes[0], 'GET', `/events/${id}`)).json as Json)?.state === 'finished', 120_000);
  t.ok(finished, 'the event finished');
  for (const n of nodes) {
    const games = await read(n, `/events/${id}/games`);
    t.equal(games.status, 200, `the export on ${n.name}`);
    const lines = games.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);
    t.equal(lines.filter((l) => 'Game' in l).length, 2 * PAIRS, `${n.name}: every game in the JSON export`);
    t.ok(lines.filter((l) => 'Game' in l).every((l) => l.Game.history.length > 0 && l.Game.serverSeed), `${n.name}: each whole, with its seed`);
    const pgn = await read(n, `/events/${id}/games.pgn`);
    t.equal(pgn.status, 200, `the PGN on ${n.name}`);
    t.equal(pgn.text.match(/^\[Event /gm)?.length ?? 0, 2 * PAIRS, `${n.name}: every game in the PGN`);
  }
  const [first, ...others] = await Promise.all(nodes.map((n) => read(n, `/events/${id}/games`)));
  for (const o of others) t.equal(o.text, first.text, 'the same export on every node');
});
