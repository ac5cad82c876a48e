// Where players meet: challenges between bots, bot seeks, and the public lobby shared with humans.
import { rateLimitKey } from '../client-ip.js';
import type { TimeControl } from '../../domain/types.js';
import { caller, type EdgeDeps, type HandlerTable } from '../deps.js';
import { json, noContent, tooManyRequests, type Reply } from '../reply.js';
import type { RequestContext } from '../context.js';
import { serviceProblem } from './errors.js';

export function meetingHandlers(deps: EdgeDeps): HandlerTable {
  /** Guests have no token, so their lobby actions are budgeted per address. */
  const guestBudget = (ctx: RequestContext): Reply | null => {
    const b = deps.limits.guests.take(rateLimitKey(ctx.ip));
    return b.ok ? null : tooManyRequests(b.retryAfterSeconds, 'too many guest lobby requests from this address', 'too_many_guest_requests');
  };

  return {
    createChallenge: (call) => {
      // Every attempt counts, as for anonymous mints: hammering a cap is itself what is limited.
      const budget = deps.limits.challenges.take(rateLimitKey(call.ctx.ip));
      if (!budget.ok) return tooManyRequests(budget.retryAfterSeconds, 'too many challenges from this address', 'too_many_challenge_requests');
      const body = call.body as { team: string; name: string; timeControl?: TimeControl };
      const r = deps.challenges.create(caller(call), body);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    listChallenges: (call) => json(200, deps.challenges.list(caller(call))),

    acceptChallenge: async (call) => {
      const r = await deps.challenges.accept(caller(call), call.params.id);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    declineChallenge: (call) => {
      const r = deps.challenges.decline(caller(call), call.params.id);
      return r.ok ? json(200, {}) : serviceProblem(r.error);
    },

    createSeek: (call) => {
      const body = call.body as { timeControl?: TimeControl };
      const r = deps.lobby.createBotSeek(caller(call), body.timeControl);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    acceptSeek: async (call) => {
      const r = await deps.lobby.acceptAsBot(caller(call), call.params.id);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    listLobbySeeks: () => json(200, { seeks: deps.lobby.list() }),

    createGuestSeek: ({ ctx, body }) => {
      const limited = guestBudget(ctx);
      if (limited) return limited;
      const r = deps.lobby.createGuestSeek((body as { timeControl?: TimeControl }).timeControl);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    pollSeek: ({ params, query }) => {
      const r = deps.lobby.poll(params.id, query.secret);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    cancelSeek: ({ params, query }) => {
      const r = deps.lobby.cancel(params.id, query.secret);
      return r.ok ? noContent() : serviceProblem(r.error);
    },

    guestAcceptSeek: async ({ ctx, params, body }) => {
      const limited = guestBudget(ctx);
      if (limited) return limited;
      const r = await deps.lobby.acceptAsGuest((body as { guestId?: string }).guestId, params.id);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    guestPlayHouse: async ({ ctx, params, body }) => {
      const limited = guestBudget(ctx);
      if (limited) return limited;
      const r = await deps.houseGames.start(params.name, (body as { timeControl?: TimeControl }).timeControl);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },
  };
}
