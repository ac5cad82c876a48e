// The lobby: seeks made and taken by bots, and the public lobby shared with human guests (who hold
// their seeks by a secret, and play the house bots in one click). The lobby may answer later (in a
// cluster it runs on one node and the others call it), so every call is awaited.
import { isUnavailable } from '../../services/remote-service.js';
import { rateLimitKey } from '../client-ip.js';
import type { EdgeDeps, Handlers } from '../deps.js';
import { json, noContent, tooManyRequests, type Reply } from '../reply.js';
import type { RequestContext } from '../context.js';
import { serviceProblem } from './errors.js';

/** What the lobby routes use. */
export type LobbyRouteDeps = Pick<EdgeDeps, 'lobby' | 'houseGames'> & {
  limits: Pick<EdgeDeps['limits'], 'guests' | 'lobbyPolls'>;
};

/** GET /lobby/seeks: seeks per page when no `limit` is given, and the most a page holds. */
const DEFAULT_PAGE = 100;
const MAX_PAGE = 500;

type LobbyOps =
  | 'createSeek' | 'acceptSeek' | 'listLobbySeeks' | 'createGuestSeek' | 'pollSeek' | 'cancelSeek'
  | 'guestAcceptSeek' | 'guestPlayHouse';

export function lobbyHandlers(deps: LobbyRouteDeps): Handlers<LobbyOps> {
  /** Guests have no token, so their lobby actions are budgeted per address. */
  const guestBudget = (ctx: RequestContext): Reply | null => {
    const b = deps.limits.guests.take(rateLimitKey(ctx.ip));
    return b.ok ? null : tooManyRequests('too_many_guest_requests', b.retryAfterSeconds);
  };

  /** Lobby reads (the list, seek polls) are budgeted per address too. */
  const pollBudget = (ctx: RequestContext): Reply | null => {
    const b = deps.limits.lobbyPolls.take(ctx.addressKey);
    return b.ok ? null : tooManyRequests('too_many_polls', b.retryAfterSeconds);
  };

  return {
    createSeek: async (call) => {
      const r = await deps.lobby.createBotSeek(call.principal, call.body.timeControl);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    acceptSeek: async (call) => {
      const r = await deps.lobby.acceptAsBot(call.principal, call.params.id);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    listLobbySeeks: async ({ ctx, query }) => {
      const limited = pollBudget(ctx);
      if (limited) return limited;
      const limit = Math.min(MAX_PAGE, Math.max(1, query.limit === undefined ? DEFAULT_PAGE : Number(query.limit)));
      const page = await deps.lobby.list(limit, query.after === undefined ? 0 : Number(query.after));
      if (isUnavailable(page)) return serviceProblem(page.error);
      return json(200, page.next === null ? { seeks: page.seeks } : page);
    },

    createGuestSeek: async ({ ctx, body }) => {
      const limited = guestBudget(ctx);
      if (limited) return limited;
      const r = await deps.lobby.createGuestSeek(body.timeControl, ctx.addressKey);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    pollSeek: async ({ ctx, params, query }) => {
      const limited = pollBudget(ctx);
      if (limited) return limited;
      const r = await deps.lobby.poll(params.id, query.secret);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    cancelSeek: async ({ params, query }) => {
      const r = await deps.lobby.cancel(params.id, query.secret);
      return r.ok ? noContent() : serviceProblem(r.error);
    },

    guestAcceptSeek: async ({ ctx, params, body }) => {
      const limited = guestBudget(ctx);
      if (limited) return limited;
      const r = await deps.lobby.acceptAsGuest(body.guestId, params.id, ctx.addressKey);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    guestPlayHouse: async ({ ctx, params, body }) => {
      const limited = guestBudget(ctx);
      if (limited) return limited;
      const r = await deps.houseGames.start(params.name, body.timeControl, ctx.addressKey);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },
  };
}
