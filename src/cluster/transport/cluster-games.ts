// What a cluster node plugs into the main side's ShardedGames: the games it follows (GameInterest) and
// creates sent again when their shard moved (againIfMoved).
import type { ClusterGames } from '../../shard/main/sharded-games-deps.js';
import { againIfMoved } from './create-retry.js';
import { GameInterest } from './game-interest.js';

export function clusterGames(o: { idleMs: number; max: number }): ClusterGames {
  return {
    follow: (source) => new GameInterest({ ...source, idleMs: o.idleMs, max: o.max }),
    createAgainIfMoved: (create, ctx) => againIfMoved(create, ctx),
  };
}
