// A game whose owner appended its ending to the log and died before publishing it: the node that
// takes the shard over finds the ending, settles the game, and tells every node, whose replica of the
// game (live until then) ends. Three nats-server and one `dicechess serve --cluster` node; the test
// itself plays the owner that dies: it holds shard 1's lease, starts a game there (index key, first
// version, the announcement every node gets), appends the game's ending, and lets the lease go.
import t from 'tap';
import { GameLog } from '../../../src/cluster/log/game-log.js';
import { Lease } from '../../../src/cluster/coordination/lease.js';
import { openLiveIndex } from '../../../src/cluster/log/live-index.js';
import { connectCluster, leaseBucket, openBucket } from '../../../src/cluster/transport/nats.js';
import { encodeReplies, outSubject } from '../../../src/cluster/transport/nats-transport.js';
import { encodeVersion } from '../../../src/cluster/log/record-codec.js';
import { systemClock } from '../../../src/domain/clock.js';
import { shardIndex } from '../../../src/shard/protocol/messages.js';
import { ended, game } from '../../helpers/store-fixtures.js';
import type { Json } from '../../helpers/bot.js';
import { call } from '../../helpers/cluster-play.js';
import { settingsFile, startNode } from '../../helpers/cluster-nodes.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const SHARDS = 2;
const TTL = 3000;
const nats = await startNatsCluster({ name: 'dc-endtk' });
const nc = await connectCluster(nats.urls, 'ended-takeover-test');
const settings = settingsFile({ cluster: { shards: SHARDS, leaseTtlMs: TTL } });
t.teardown(async () => {
  await nc.close();
  await nats.stop();
  settings.remove();
});

t.test('a game whose ending the dead owner never published ends on every node once its shard is taken over', async (t) => {
  // The owner that will die: it holds shard 1 before any node runs.
  const shards = leaseBucket(await openBucket(nc, { bucket: 'dc-shards', replicas: 3, ttlMs: TTL }));
  const lease = new Lease({ kv: shards, key: 'shard.1', holder: 'gone', ttlMs: TTL, clock: systemClock });
  t.ok(await lease.acquire(), 'the test holds shard 1');
  const node = await startNode('a', nats.urls, settings.file);
  t.teardown(() => node.stop());
  t.ok(await eventually(() => node.serving().has(0)), 'the node serves shard 0');
  t.notOk(node.serving().has(1), 'and waits for shard 1');

  let n = 0;
  let id = '';
  do id = `endtk${process.pid}x${n++}`;
  while (shardIndex(id, SHARDS) !== 1);
  const live = game(id, { rated: false, timeControl: { Unlimited: {} }, clocks: null, clockStartedAt: null });
  const index = await openLiveIndex(nc, { replicas: 3 });
  const log = await GameLog.open(nc, { replicas: 3 });
  await index.add(1, id);
  const writer = log.begin(id);
  t.ok((await writer.append(1, encodeVersion(undefined, live))).ok, 'its first version is in the log');
  // The start, announced to every node as an owner does (rid 0).
  nc.publish(outSubject('dc.out', 1), encodeReplies({ r: [{ t: 'started', rid: 0, rec: live }], to: [''] }));
  const status = async (): Promise<string> => Object.keys(((await call(node, 'GET', `/games/${id}`)).json as Json)?.status ?? {})[0] ?? 'none';
  t.ok(await eventually(async () => (await status()) === 'Active'), 'the node shows the game live');

  // The ending reaches the log; the owner dies before anyone is told.
  const over = { ...ended(live, Date.now()), version: live.version + 1 };
  t.ok((await writer.append(2, encodeVersion(live, over))).ok, 'its ending is in the log');
  await lease.release();

  t.ok(await eventually(() => node.serving().has(1), 30_000), 'the node takes shard 1 over');
  t.ok(await eventually(async () => (await status()) === 'Ended', 20_000), 'and the game shows ended');
  const shown = (await call(node, 'GET', `/games/${id}`)).json as Json;
  t.equal(shown.version, over.version, 'at its final version');
  t.same(shown.status, over.status, 'with its ending');
  t.same(await index.list(1), [], 'the live index no longer lists it');
  t.ok(node.log.some((l) => l.includes(id) && l.includes('game found ended in the log at takeover')), 'the takeover says so');
});
