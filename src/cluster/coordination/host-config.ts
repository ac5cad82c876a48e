// The game settings of a cluster node's shard hosts: the node's own, with a small archive of ended
// records. A shard's registry keeps ended records in memory only as a fallback for reads its store
// cannot answer; on a cluster node that store (log-game-store.ts) keeps each ending a minute and then
// reads it from the cluster store, which holds every finished game. A registry archive of the usual
// 1,000 records per shard would fill for an hour of steady play (a shard sees a few endings a
// minute), several per node: memory that grows long after play is steady, for reads that never come.
import type { GameConfig } from '../../game/game-config.js';

/** Ended records a cluster node's shard host keeps in memory at most. */
export const HOST_ARCHIVE_SIZE = 32;

export function hostGameConfig(games: GameConfig): GameConfig {
  return { ...games, archiveSize: Math.min(games.archiveSize, HOST_ARCHIVE_SIZE) };
}
