// Cluster mode, beyond games and the store: what a node shares with the others so any node answers
// any route (docs/CLUSTER.md): account streams and presence, short-lived tokens, recent requests
// (the ladder's "seen"), event stream lines, and the services one node holds for all (challenges,
// the lobby). On one machine every piece is absent and the services are local.
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { Config } from '../../server-config.js';
import type { ClusterNode } from '../node.js';
import { AccountBus } from './account-bus.js';
import { TokenBus } from './token-bus.js';
import { SeenBus } from './seen-bus.js';
import { TournamentBus } from './tournament-bus.js';
import { heldService, remoteService } from './service-proxy.js';
import type { SingletonService } from '../coordination/singletons.js';
import { serviceUnavailable, type Unavailable } from '../../services/remote-service.js';
import { CHALLENGE_CALLS, type ChallengeCall, type ChallengeService } from '../../services/challenges.js';
import { LOBBY_CALLS, type LobbyCall, type LobbyService } from '../../services/lobby.js';

export interface Sharing {
  accountBus?: AccountBus;
  tokenBus?: TokenBus;
  seenBus?: SeenBus;
  tournamentBus?: TournamentBus;
  close(): Promise<void>;
}


/** The buses of a cluster node; none on one machine. */
export async function openSharing(cluster: ClusterNode | undefined, config: Config, clock: Clock, log: Logger): Promise<Sharing> {
  if (!cluster) return { close: async () => {} };
  const { nc } = cluster;
  const { node, replicas } = config.cluster;
  // Their buckets are made or found on opening; on a cluster still forming or busy (nodes starting
  // together, leaders being elected) a request of it may fail or go unanswered: it is tried again
  // within the node's start-up budget (start-wait.ts).
  const wait = cluster.startWait;
  const accountBus = await wait.step('opening the presence bucket', () => AccountBus.open(nc, { node, replicas, clock, log }));
  const tokenBus = await wait.step(
    'opening the token bucket',
    () => TokenBus.open(nc, { replicas, clock, log, ttlMs: Math.max(config.identity.anonTtlMs, 24 * 3_600_000) }),
  );
  const seenBus = new SeenBus(nc);
  const tournamentBus = new TournamentBus(nc);
  return {
    accountBus, tokenBus, seenBus, tournamentBus,
    close: async () => {
      await accountBus.close();
      tokenBus.close();
      seenBus.close();
      tournamentBus.close();
    },
  };
}

/**
 * Challenges and the lobby: local on one machine; in a cluster one node holds each (a singleton,
 * `held`) and every node calls it over NATS.
 */
export function coordinatedServices(
  cluster: ClusterNode | undefined, clock: Clock, log: Logger,
  make: { challenges: () => ChallengeService; lobby: () => LobbyService },
): {
  challenges: ChallengeService | ReturnType<typeof remoteService<ChallengeService, ChallengeCall, Unavailable>>;
  lobby: LobbyService | ReturnType<typeof remoteService<LobbyService, LobbyCall, Unavailable>>;
  held: SingletonService[];
} {
  if (!cluster) return { challenges: make.challenges(), lobby: make.lobby(), held: [] };
  const opts = { clock, unavailable: (_m: string, _why: string, detail: string) => serviceUnavailable(detail) };
  return {
    challenges: remoteService<ChallengeService, ChallengeCall, Unavailable>(cluster.nc, 'challenges', CHALLENGE_CALLS, opts),
    lobby: remoteService<LobbyService, LobbyCall, Unavailable>(cluster.nc, 'lobby', LOBBY_CALLS, opts),
    held: [
      heldService(cluster.nc, 'challenges', make.challenges, CHALLENGE_CALLS, { clock, log }),
      heldService(cluster.nc, 'lobby', make.lobby, LOBBY_CALLS, { clock, log }),
    ],
  };
}
