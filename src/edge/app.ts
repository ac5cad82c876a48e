// Assembles the HTTP edge: a uWS app, the toolkit router, and every catalogued route bound to its
// handler. Knows nothing of rules; talks to the services, the game directory, and the store only to
// read the ratings shown in the game list.
import uWS, { type TemplatedApp } from 'uWebSockets.js';
import type { Clock } from '../domain/clock.js';
import { accessLog } from './access-log.js';
import { bindRoutes } from './bind.js';
import type { TrustedProxies } from './client-ip.js';
import type { EdgeDeps } from './deps.js';
import { challengeHandlers } from './handlers/challenges.js';
import { eventHandlers } from './handlers/tournaments.js';
import { eventControlHandlers } from './handlers/tournament-control.js';
import { gameHandlers } from './handlers/games.js';
import { identityHandlers } from './handlers/identity.js';
import { ladderHandlers } from './handlers/ladder.js';
import { lobbyHandlers } from './handlers/lobby.js';
import { opsHandlers } from './handlers/ops.js';
import { streamHandlers } from './handlers/streams.js';
import { webhookHandlers } from './handlers/webhooks.js';
import { createRouter, type ObservedResponse, type Router } from './router.js';
import { EncodedBodies } from './encoded-bodies.js';
import { SendBudget, type SendLimits } from './send-budget.js';
import { bindWebPages, type WebAssets } from './web.js';

export { gamePlacement } from './placement.js';

export interface EdgeOptions {
  corsOrigins: readonly string[];
  trustedProxies: TrustedProxies | undefined;
  maxBodyBytes: number;
  keepAliveMs: number;
  maxBufferedBytes: number;
  /** Requests in flight and streams open per client address. */
  connectionsPerIp: number;
  clock: Clock;
  /** Sees every non-stream response (the conformance test). */
  observe?: (info: ObservedResponse) => void;
  /** The built web page; without it only the API is served. */
  web?: WebAssets;
  /** Large answers: unsent-byte bounds, body bytes per minute, drain timeout (send-budget.ts). */
  send?: Partial<SendLimits>;
  /**
   * The kept large moves bodies, when the caller lets go of a game's body as the game ends
   * (`forget`); by default a body goes when the next one is kept after its game ended.
   */
  movesBodies?: EncodedBodies;
  /** The app to build on (a cluster node's starting app, starting.ts); a new one by default. */
  app?: TemplatedApp;
}

/** The router owns the uWS app (router.app) and the connections it tracks (router.closeConnections()). */
export function buildEdge(deps: EdgeDeps, opts: EdgeOptions): Router {
  const app = opts.app ?? uWS.App();
  const router = createRouter(app, {
    logger: deps.log,
    corsOrigins: opts.corsOrigins,
    trustedProxies: opts.trustedProxies,
    bodyLimit: opts.maxBodyBytes,
    stream: { clock: opts.clock, keepAliveMs: opts.keepAliveMs, maxBufferedBytes: opts.maxBufferedBytes },
    observe: opts.observe,
    maxOpenPerIp: opts.connectionsPerIp,
    sendBudget: new SendBudget(opts.clock, opts.send),
    access: deps.log.infoEnabled === false ? undefined : accessLog(deps.log),
  });
  bindRoutes(router, deps, {
    ...identityHandlers(deps),
    ...challengeHandlers(deps),
    ...lobbyHandlers(deps),
    ...gameHandlers({ ...deps, movesBodies: opts.movesBodies ?? new EncodedBodies({}, (id) => deps.games.get(id) !== undefined) }),
    ...streamHandlers(deps),
    ...ladderHandlers(deps),
    ...opsHandlers(deps),
    ...webhookHandlers(deps),
    ...eventHandlers(deps),
    ...eventControlHandlers(deps),
  });
  if (opts.web) bindWebPages(app, opts.web);
  return router;
}
