// What the route handlers need, handed over by the composition root (src/main.ts).
import type { z } from 'zod';
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../domain/log.js';
import type { Principal } from '../domain/types.js';
import type { GameDirectory, GameHandle } from '../game/types.js';
import type { Store } from '../store/types.js';
import type { AccountHub } from '../services/account-hub.js';
import type { ChallengeCall, ChallengeService } from '../services/challenges.js';
import type { IdentityService } from '../services/identity.js';
import type { LadderService } from '../services/ladder.js';
import type { HouseGameService } from '../services/house-games.js';
import type { LobbyCall, LobbyService } from '../services/lobby.js';
import type { Remote } from '../services/remote-service.js';
import type { TournamentService } from '../services/tournaments/service.js';
import type { Presence } from '../services/presence.js';
import type { WebhookRegistry } from '../services/webhooks/registration.js';
import type { CatalogueRoute } from '../wire/routes.js';
import type { RequestContext } from './context.js';
import type { OpenCounts } from './open-counts.js';
import type { RateLimiter } from './rate-limit.js';
import type { Reply } from './reply.js';
import type { SpectatorSeats } from './spectators.js';
import type { GuestAbandonment } from '../services/guest-abandon.js';
import type { GamePlacement } from './placement.js';

export interface EdgeLimits {
  anonMints: RateLimiter;
  registrations: RateLimiter;
  /** Loopback clients skip `registrations` (limits.registrationsExemptLoopback; local set-ups only). */
  registrationsExemptLoopback: boolean;
  guests: RateLimiter;
  webhookRegistrations: RateLimiter;
  /** Challenges created per address (POST /bot/challenge). */
  challenges: RateLimiter;
  /** Account and game streams open per identity. */
  streams: OpenCounts;
  /** Lobby reads (list, seek polls) per address. */
  lobbyPolls: RateLimiter;
  /** Ladder joins and leaves per registered bot. */
  ladderChanges: RateLimiter;
  /** Events created per host (POST /events, successful ones). */
  eventCreatesPerHost: RateLimiter;
  /** Event creations asked for per address (every attempt). */
  eventCreatesPerAddress: RateLimiter;
}

export type StreamKind = 'account' | 'game' | 'spectator';

/** What GET /ready reports: ready only when every part is. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly parts: Readonly<Record<string, { ok: boolean; detail?: string }>>;
}

/** What the edge reports for /metrics; the composition root decides how it is kept. */
export interface EdgeMeter {
  /** A request was refused with 429 (`route` is "METHOD /path/{template}"). */
  refused(route: string): void;
  /** A stream opened; call the returned function once when it closes. */
  streamOpened(kind: StreamKind): () => void;
  /** Starts timing a move; call the returned function when its verdict is known. */
  verdictTimer(): () => void;
}

/**
 * Before the routes of one game read this process's copy of it: installed where games run elsewhere (a
 * cluster node keeps replicas of other nodes' games, and follows a game only while asked about it).
 */
export interface GameGate {
  /** Brings the game's copy up to date for this kind of read; 'unavailable' when it is live elsewhere but not here yet. */
  game(id: string, read: 'state' | 'tree'): Promise<'ok' | 'unavailable'>;
  /** Brings a player's live games up to date before they are listed. */
  player(playerId: string): Promise<void>;
}

export interface EdgeDeps {
  clock: Clock;
  log: Logger;
  store: Store;
  games: GameDirectory;
  /** Routes marked `game` in the catalogue pass it first (cluster mode); none in one process. */
  gameGate?: GameGate;
  identity: IdentityService;
  hub: AccountHub;
  /** The service itself, or in a cluster a stand-in calling the node that holds it (services/remote.ts). */
  challenges: Remote<ChallengeService, ChallengeCall>;
  /** As `challenges`: the lobby here or on the node that holds it. */
  lobby: Remote<LobbyService, LobbyCall>;
  ladder: LadderService;
  /** Guests' one-click games against the built-in house bots. */
  houseGames: HouseGameService;
  /** Places on the public game streams (GET /games/{id}/stream). */
  spectators: SpectatorSeats;
  /** Guest games whose guest left are ended; a guest's own game stream keeps its game alive. */
  guestAbandonment?: Pick<GuestAbandonment, 'streamOpened'>;
  /** Last authenticated request per registered bot (the ladder pairs polling bots seen lately). */
  presence?: Presence;
  limits: EdgeLimits;
  /** Server version for /health and the API documents. */
  version: string;
  verdictWaitMs: number;
  webhooksEnabled: boolean;
  /** The webhook routes' service; null when webhooks are disabled. */
  webhooks: WebhookRegistry | null;
  /** Tournaments (the /events routes: src/services/tournaments/). */
  tournaments: TournamentService;
  /** Prometheus text exposition (GET /metrics); null when the metrics have a port of their own (404 here). */
  metrics: (() => Promise<string>) | null;
  /** GET /ready: which parts serve now (without it, ready whenever the edge answers at all). */
  ready?: () => ReadinessReport;
  meter: EdgeMeter;
  /** Tests only: awaited by an account stream after it subscribed and before it reads its catch-up. */
  catchUpHold?: (principalId: string) => Promise<void>;
  /** Cluster mode: the headers naming this node and the owner of a game (placement.ts). */
  placement?: GamePlacement;
  /**
   * With edge threads: a live game's shard and the seq of its replica's last update, for a stream
   * whose lines its edge thread then takes from the shard (undefined: main writes them).
   */
  gameFeed?: (game: GameHandle) => { shard: number; seq(): number } | undefined;
}

/** The operationIds of the route catalogue (src/wire/routes.ts). */
export type OperationId = CatalogueRoute['operationId'];

type RouteOf<Id extends OperationId> = Extract<CatalogueRoute, { operationId: Id }>;

/** Names of the `{…}` parameters of a path template. */
type ParamNames<P extends string> = P extends `${string}{${infer K}}${infer Rest}` ? K | ParamNames<Rest> : never;

/**
 * The body a route's handler receives: what its body schema parses to; the raw JSON value on a
 * lenient route (the handler judges it); nothing on a route without a body.
 */
type BodyOf<R> = R extends { request: { lenient: true } }
  ? unknown
  : R extends { request: { body: infer S extends z.ZodType } }
    ? z.output<S>
    : undefined;

/** The query a route's handler receives: what its query schema parses to, or nothing at all. */
type QueryOf<R> = R extends { request: { query: infer S extends z.ZodType } } ? z.output<S> : Record<string, never>;

/**
 * One call of a catalogued route, after authentication and body/query validation. Its shapes come
 * from the route's catalogue entry, so a schema change is a type error in the handler.
 */
export interface Call<Id extends OperationId = OperationId> {
  ctx: RequestContext;
  /** The caller: always there on authenticated routes, null on public ones. */
  principal: RouteOf<Id>['auth'] extends 'public' ? null : Principal;
  body: BodyOf<RouteOf<Id>>;
  query: QueryOf<RouteOf<Id>>;
  params: Readonly<Record<ParamNames<RouteOf<Id>['path']>, string>>;
}

export type OpHandler<Id extends OperationId = OperationId> = (call: Call<Id>) => Reply | void | Promise<Reply | void>;

/** Routes that carry a player's game command (`command` in the catalogue): the edge binds them itself. */
export type CommandOperationId = Extract<CatalogueRoute, { command: string }>['operationId'];

/** A handler for every route of the catalogue but the command routes, by operationId; each typed by its route. */
export type HandlerTable = { [Id in Exclude<OperationId, CommandOperationId>]: OpHandler<Id> };

/** The handlers of some routes: what a handler group returns. */
export type Handlers<Id extends Exclude<OperationId, CommandOperationId>> = Pick<HandlerTable, Id>;
