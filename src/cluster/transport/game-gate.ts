// The edge's game gate on a cluster node (EdgeDeps.gameGate): before a route of one game reads this
// node's replica, the replica is brought up to date. A game followed again, or one with no replica here
// yet, is asked of its owner; a tree is read as its owner has it now (a bot told of a roll by one node
// may fetch the tree on another); a live game whose shard is between owners is unavailable for now. A
// game not live here is read from the store's bucket first when the cache of finished games lacks it
// (the store's synchronous reads answer finished games from that cache only); a bucket that does not
// answer makes the game unavailable for now rather than unknown.
import type { GameGate } from '../../edge/deps.js';
import type { GameRecord } from '../../domain/records.js';
import type { ShardedGames } from '../../shard/main/sharded-games.js';

export function clusterGameGate(
  games: Pick<ShardedGames, 'ready' | 'current' | 'awaiting' | 'find' | 'liveFor' | 'get' | 'holdLoaded'>,
  loadFinished: (id: string) => Promise<GameRecord | undefined> = async () => undefined,
): GameGate {
  return {
    async game(id, read) {
      const wait = games.ready(id);
      if (wait !== undefined) await wait;
      else if (read === 'tree') await games.current(id);
      if (games.get(id) === undefined) {
        try {
          // Held for the read that follows: the store's cache of finished games may evict it for
          // another read before this one runs.
          const rec = await loadFinished(id);
          if (rec !== undefined) games.holdLoaded(rec);
        } catch {
          return 'unavailable';
        }
      }
      return games.awaiting(id) && games.find(id) === undefined ? 'unavailable' : 'ok';
    },
    async player(playerId) {
      const waits = games.liveFor(playerId).map((g) => games.ready(g.id)).filter((w) => w !== undefined);
      if (waits.length > 0) await Promise.all(waits);
    },
  };
}
