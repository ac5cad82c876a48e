// What the route handlers need, handed over by the composition root (src/main.ts).
import type { Clock } from '../domain/clock.js';
import type { Principal } from '../domain/types.js';
import type { GameDirectory } from '../game/types.js';
import type { Store } from '../store/types.js';
import type { AccountHub } from '../services/account-hub.js';
import type { ChallengeService } from '../services/challenges.js';
import type { IdentityService } from '../services/identity.js';
import type { LadderService } from '../services/ladder.js';
import type { HouseGameService } from '../services/house-games.js';
import type { LobbyService } from '../services/lobby.js';
import type { Presence } from '../services/presence.js';
import type { WebhookRegistry } from '../services/webhooks/registration.js';
import type { RequestContext } from './context.js';
import type { OpenCounts } from './open-counts.js';
import type { RateLimiter } from './rate-limit.js';
import type { Reply } from './reply.js';
import type { Logger } from './responder.js';
import type { SpectatorSeats } from './spectators.js';

export interface EdgeLimits {
  anonMints: RateLimiter;
  registrations: RateLimiter;
  guests: RateLimiter;
  webhookRegistrations: RateLimiter;
  /** Challenges created per address (POST /bot/challenge). */
  challenges: RateLimiter;
  /** Account and game streams open per identity. */
  streams: OpenCounts;
}

export type StreamKind = 'account' | 'game' | 'spectator';

/** What the edge reports for /metrics; the composition root decides how it is kept. */
export interface EdgeMeter {
  /** A request was refused with 429 (`route` is "METHOD /path/{template}"). */
  refused(route: string): void;
  /** A stream opened; call the returned function once when it closes. */
  streamOpened(kind: StreamKind): () => void;
  /** Starts timing a move; call the returned function when its verdict is known. */
  verdictTimer(): () => void;
}

export interface EdgeDeps {
  clock: Clock;
  log: Logger;
  store: Store;
  games: GameDirectory;
  identity: IdentityService;
  hub: AccountHub;
  challenges: ChallengeService;
  lobby: LobbyService;
  ladder: LadderService;
  /** Guests' one-click games against the built-in house bots. */
  houseGames: HouseGameService;
  /** Places on the public game streams (GET /games/{id}/stream). */
  spectators: SpectatorSeats;
  /** Last authenticated request per registered bot (the ladder pairs polling bots seen lately). */
  presence?: Presence;
  limits: EdgeLimits;
  /** Server version for /health and the API documents. */
  version: string;
  verdictWaitMs: number;
  webhooksEnabled: boolean;
  /** The webhook routes' service; null when webhooks are disabled. */
  webhooks: WebhookRegistry | null;
  /** Prometheus text exposition (GET /metrics). */
  metrics: () => Promise<string>;
  meter: EdgeMeter;
}

/** One call of a catalogued route, after authentication and body/query validation. */
export interface Call {
  ctx: RequestContext;
  /** The caller on authenticated routes; null on public ones. */
  principal: Principal | null;
  body: unknown;
  query: Record<string, string>;
  params: Readonly<Record<string, string>>;
}

export type OpHandler = (call: Call) => Reply | void | Promise<Reply | void>;

/** Handlers by operationId of the route catalogue (src/wire/routes.ts). */
export type HandlerTable = Record<string, OpHandler>;

/** The authenticated caller (handlers of bearer routes only run with one). */
export const caller = (call: Call): Principal => {
  if (call.principal === null) throw new Error('authenticated handler ran without a principal');
  return call.principal;
};
