// The composition root of a shard's worker thread: opens the shard's store (the server's LMDB
// environment, or a ForwardingStore when the server keeps memory) and serves the ShardHost over the parent port.
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from './domain/clock.js';
import { createLogger } from './log.js';
import { armShardHeapSnapshots } from './debug-heap.js';
import { armIdleCollection } from './idle-memory.js';
import { ForwardingStore } from './shard/owner/forwarding-store.js';
import { ShardHost, type ShardStore } from './shard/owner/host.js';
import { EdgeFeedPublisher } from './shard/owner/edge-feeds.js';
import type { FeedPort } from './domain/edge-feed.js';
import type { Command } from './shard/protocol/messages.js';
import { batchOf, wireOf } from './shard/protocol/codec.js';
import type { ShardWorkerData } from './shard/main/worker-transport.js';
import { LmdbStore } from './store/lmdb.js';
import { nameThread } from './thread-name.js';

const data = workerData as ShardWorkerData;
nameThread(`dc-shard-${data.index}`);
const port = parentPort;
if (!port) throw new Error('shard-worker runs only as a worker thread');

let store: ShardStore;
if (data.store.memory) {
  store = { mode: 'forwarding', games: new ForwardingStore() };
} else {
  const attached = LmdbStore.attach(data.store.dataDir);
  if (!attached.ok) throw new Error(attached.error);
  store = { mode: 'shared', games: attached.value };
}

const log = createLogger(data.logLevel);
armShardHeapSnapshots(`shard-${data.index}`, (path) => log.info({ path }, 'heap snapshot written'));
armIdleCollection((freed) => log.info({ thread: `shard-${data.index}`, freedMb: Math.round(freed / 1048576) }, 'idle: heap collected'));

// With several HTTP threads, main hands over a port to each (feedPorts in worker-transport.ts).
const feeds = new EdgeFeedPublisher((fn) => setImmediate(fn));
const host = new ShardHost({
  store,
  clock: systemClock,
  config: data.config,
  log,
  housePlayers: new Map(data.house),
  statsEveryMs: data.statsEveryMs,
  post: (batch) => {
    feeds.saw(batch);
    const { data, transfer } = wireOf(batch);
    port.postMessage(data, transfer);
  },
  later: (fn) => setImmediate(fn),
});
port.on('message', (data: unknown) => {
  if (typeof data === 'object' && data !== null && 'feeds' in data) return feeds.attach((data as { feeds: FeedPort[] }).feeds);
  host.receive(batchOf(data) as Command[]);
});
