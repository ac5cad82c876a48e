// Removing keys and trimming finished games' logs must survive a restart of the whole cluster. Three
// nats-servers: keys are added to and removed from a lease bucket, games appended to the log and some
// trimmed, then every server is killed -9 and started again. Every key still held before the kill is
// there after it, every untrimmed game's entries are all there, and the trimmed games hold nothing.
// (With the stream purge API, nats-server 2.9 replays a purge by subject after such a restart as if
// it removed every older message: each cycle of this test then lost every key.)
import t from 'tap';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectCluster, leaseBucket, openBucket, type NatsConnection } from '../../../src/cluster/transport/nats.js';
import { GameLog } from '../../../src/cluster/log/game-log.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const nats = await startNatsCluster({ name: 'dc-trim' });
t.teardown(() => nats.stop());

/** Asked again while the restarted servers elect their leaders. */
async function retried<T>(f: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await f();
    } catch (e) {
      if (i >= 120) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

const ONE = new Uint8Array([49]);

async function listKeys(nc: NatsConnection): Promise<string[]> {
  const kv = leaseBucket(await openBucket(nc, { bucket: 'trim-keys', replicas: 3 }), { barrierKey: 'barrier' });
  const out: string[] = [];
  for await (const k of await kv.keys('k.>')) out.push(k);
  return out.sort();
}

t.test('removed keys and trimmed logs leave everything else whole through a restart of every server', async (t) => {
  const nc = await connectCluster(nats.urls, 'trim-test');
  const raw = await openBucket(nc, { bucket: 'trim-keys', replicas: 3 });
  const kv = leaseBucket(raw);
  const log = await GameLog.open(nc, { replicas: 3 });
  // Keys come and go as live games do: 90 made, the oldest removed whenever more than 30 are held.
  const held: string[] = [];
  for (let i = 0; i < 90; i++) {
    const k = `k.${String(i).padStart(3, '0')}`;
    await raw.put(k, ONE);
    held.push(k);
    if (held.length > 30) await kv.remove(held.shift() as string);
  }
  // Six games of five entries each; games 0, 2 and 4 end and are trimmed.
  const games = Array.from({ length: 6 }, (_, i) => `trim-game-${i}`);
  for (const id of games) {
    const w = log.begin(id);
    for (let v = 1; v <= 5; v++) t.ok((await w.append(v, new Uint8Array([v]))).ok, `${id}: version ${v} stored`);
  }
  for (const id of games.filter((_, i) => i % 2 === 0)) await log.trim(id);
  // A removal of a key already gone, and a trim of a trimmed game, are no errors.
  await kv.remove('k.000');
  await log.trim(games[0]);
  t.same(await listKeys(nc), [...held].sort(), 'before the kill: the held keys');
  await nc.close();

  for (let i = 0; i < nats.servers.length; i++) await nats.kill9(i);
  await Promise.all(nats.servers.map((_, i) => nats.start(i)));

  const nc2 = await connectCluster(nats.urls, 'trim-test-2');
  t.teardown(() => nc2.close());
  t.same(await retried(() => listKeys(nc2)), [...held].sort(), 'after the restart: the same keys, none lost');
  const log2 = await retried(() => GameLog.open(nc2, { replicas: 3 }));
  for (const [i, id] of games.entries()) {
    const versions = async () => (await log2.replay(id)).filter((e) => e.counts).length;
    if (i % 2 === 0) t.equal(await retried(versions), 0, `${id}: trimmed, nothing left`);
    else t.equal(await retried(versions), 5, `${id}: its five versions, whole`);
  }
  // The stream holds the untrimmed games' subjects only.
  const jsm = await jetstreamManager(nc2, { timeout: 5000 });
  const subjects = async () => Object.keys((await jsm.streams.info(log2.stream, { subjects_filter: 'dc.game.>' })).state.subjects ?? {}).sort();
  const untrimmed = games.filter((_, i) => i % 2 === 1).map((g) => `dc.game.${g}`);
  t.ok(await eventually(async () => JSON.stringify(await subjects()) === JSON.stringify(untrimmed), 20_000), 'the log holds the untrimmed games only');
  t.same(await subjects(), untrimmed, "the log's subjects");
});
