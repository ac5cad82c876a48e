// Child process for cluster-store-crash.test.ts (not a test itself): opens the cluster store, computes
// the rating batch of every pending game at the time it is given and applies it, saying on stdout when
// it starts and when it is done. The parent kills it with SIGKILL in between.
import { connectCluster } from '../../../src/cluster/transport/nats.js';
import { ClusterStore } from '../../../src/cluster/store/cluster-store.js';
import { computeBatch } from '../../../src/services/ratings.js';

const [servers, prefix, at] = process.argv.slice(2);
const stop = setTimeout(() => process.exit(3), 60_000); // bounded, in case the parent never kills it
const nc = await connectCluster(servers.split(','), 'store-child');
const store = await ClusterStore.open(nc, { replicas: 3, prefix, timeoutMs: 20_000 });
const batch = computeBatch(store, Number(at), { tau: 0.5, maxGamesPerBatch: 50_000 });
if (!batch) throw new Error('nothing pending');
process.stdout.write(`applying ${batch.games.length}\n`);
const applied = await store.applyRatingBatch(batch);
process.stdout.write(`applied ${applied}\n`);
clearTimeout(stop);
await store.close();
await nc.close();
