// What one shard's store over the game log (LogGameStore) keeps of the games that ended, on a real
// three-server cluster and a ManualClock: an ordinary game for a minute after its ending (then its
// reads go to the archive), so steady play holds a minute of endings, not the last 256 of them; a
// game whose reveal waits for its mirror partner stays until the partner's ending reads it.
import t from 'tap';
import { connectCluster } from '../../../src/cluster/transport/nats.js';
import { GameLog } from '../../../src/cluster/log/game-log.js';
import { openLiveIndex } from '../../../src/cluster/log/live-index.js';
import { LogGameStore } from '../../../src/cluster/log/log-game-store.js';
import { ManualClock } from '../../../src/domain/clock.js';
import type { GameRecord } from '../../../src/domain/records.js';
import { shardIndex } from '../../../src/shard/protocol/messages.js';
import { ended, game, history, line } from '../../helpers/store-fixtures.js';
import { startNatsCluster } from '../../helpers/nats-cluster.js';

const SHARDS = 8;
const cluster = await startNatsCluster({ name: 'dc-lgsm' });
const nc = await connectCluster(cluster.urls, 'lgsm-test');
t.teardown(async () => {
  await nc.close();
  await cluster.stop();
});
const log = await GameLog.open(nc, { replicas: 3, timeoutMs: 3000 });
const index = await openLiveIndex(nc, { replicas: 3, timeoutMs: 3000 });

let counter = 0;
function idOn(shard: number): string {
  for (;;) {
    const id = `m${process.pid}x${counter++}`;
    if (shardIndex(id, SHARDS) === shard) return id;
  }
}

t.test('ended games are kept a minute, not by the hundred; a withheld reveal stays until its partner ends', async (t) => {
  const shard = 2;
  const clock = new ManualClock();
  const archived = new Map<string, GameRecord>();
  const archive = { getGame: (id: string) => archived.get(id), putGame: async (r: GameRecord) => void archived.set(r.id, r) };
  const store = await LogGameStore.open(log, {
    node: 'node-a', shard, shards: SHARDS, index, clock, archive, retryForMs: 2000,
    onFinished: async (g) => void archived.set(g.id, g),
    onFenced: () => t.fail('fenced'),
  });
  t.teardown(() => store.close());
  // A withheld reveal first: its partner plays on.
  const first = idOn(shard);
  const second = `${first}z`;
  const pairA = game(first, { mirrorOf: second, history: history(2) });
  await store.putGame(pairA);
  const finalA = { ...ended(pairA, 10), version: pairA.version + 1, revealHeld: true };
  await store.finishGame(finalA, [line(pairA.white.id, first, 10), line(pairA.black.id, first, 10, { result: 'loss' })]);
  archived.delete(first); // the archive lost it (or evicted it): only this store has it now

  // Steady play: 300 games end, one every 400 ms (two minutes).
  const ids: string[] = [];
  for (let i = 0; i < 300; i++) {
    const g = game(idOn(shard), { history: history(2) });
    ids.push(g.id);
    await store.putGame(g);
    await store.finishGame({ ...ended(g, 20 + i), version: g.version + 1 }, [line(g.white.id, g.id, 20 + i), line(g.black.id, g.id, 20 + i, { result: 'loss' })]);
    clock.advance(400);
  }
  t.ok(store.keptEnded() <= 152, `a minute of endings kept (${store.keptEnded()}, with the withheld reveal), not 256`);
  t.equal(store.getGame(ids[299])?.id, ids[299], 'the last ended game is read here');
  archived.delete(ids[0]);
  t.equal(store.getGame(ids[0]), undefined, 'an ending older than the minute is no longer here (the archive answers for it)');
  clock.advance(60_000);
  t.equal(store.keptEnded(), 1, 'a minute after the last ending only the withheld reveal is left');
  t.same(store.getGame(first), finalA, 'which its partner\'s ending can still read');
});
