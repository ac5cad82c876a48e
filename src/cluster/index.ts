// The cluster package's one face: what the composition root plugs in to run a server as a node of a
// cluster on NATS JetStream (docs/CLUSTER.md). Inside, by concern:
//   store/         the shared identity and rating store in replicated key-value buckets, results queue
//   log/           the fenced per-game log, a shard's game store over it, the live-game index
//   coordination/  leases, which node owns which logical shard, the shards this node hosts, singletons
//   transport/     NATS connections, commands to a shard's owner, the games a node follows, the game gate
//   sharing/       what nodes share besides games: account streams, tokens, last-seen, tournament streams,
//                  services held by one node
// Nothing outside src/cluster/ imports those files; test/architecture/imports.test.ts checks it.
export { ClusterNode } from './node.js';
export { coordinatedServices, openSharing } from './sharing/node-sharing.js';
export { clusterGames } from './transport/cluster-games.js';
export { clusterGameGate } from './transport/game-gate.js';
