// Cluster mode: the response headers that tell a client (or a proxy in front of the nodes) which node
// answered and which node owns the game's shard, on every route about one game. A request sent to the
// owner is served there; one sent elsewhere is forwarded over NATS, which works too but costs a hop.
// (docs/CLUSTER.md, "Routing to the owner"; docs/API.md, "Cluster headers".)
import type { OperationId } from './deps.js';
import type { HeaderList } from './responder.js';

export const NODE_HEADER = 'Dicechess-Node';
export const OWNER_HEADER = 'Dicechess-Owner';

/** The routes whose `{id}` is a game id: they carry the headers. */
export const GAME_ROUTES: ReadonlySet<string> = new Set<OperationId>([
  'getGame', 'getLegalMoves', 'getGameHistory', 'streamPublicGameEvents', 'streamGameEvents',
  'submitMove', 'submitSeed', 'resign',
]);

export interface GamePlacement {
  /** The headers for a request about game `id`. */
  headers(id: string): HeaderList;
}

/** `node` answers; `ownerOf` names the owner of a game's shard (undefined while not known). */
export function gamePlacement(node: string, ownerOf: (id: string) => string | undefined): GamePlacement {
  const answered = [NODE_HEADER.toLowerCase(), node] as const;
  return {
    headers: (id) => {
      const owner = ownerOf(id);
      return owner === undefined ? [answered] : [answered, [OWNER_HEADER.toLowerCase(), owner]];
    },
  };
}
