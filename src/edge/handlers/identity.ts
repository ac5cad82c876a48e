// Identity routes: anonymous mint, registration, token rotation, account, ladder membership.
import { isLoopback, rateLimitKey } from '../client-ip.js';
import { bearerToken } from '../context.js';
import type { EdgeDeps, Handlers } from '../deps.js';
import type { Principal } from '../../domain/types.js';
import { json, tooManyRequests, type Reply } from '../reply.js';
import { serviceProblem } from './errors.js';

/** What the identity routes use. */
export type IdentityRouteDeps = Pick<EdgeDeps, 'identity' | 'log'> & {
  limits: Pick<EdgeDeps['limits'], 'anonMints' | 'registrations' | 'registrationsExemptLoopback' | 'ladderChanges'>;
};

type IdentityOps = 'mintAnonymous' | 'register' | 'rotateToken' | 'getAccount' | 'joinLadder' | 'leaveLadder';

export function identityHandlers(deps: IdentityRouteDeps): Handlers<IdentityOps> {
  /** Ladder join and leave write to the store: budgeted per registered bot (others are refused anyway). */
  const ladderBudget = (principal: Principal): Reply | null => {
    if (principal.tier !== 'registered') return null;
    const b = deps.limits.ladderChanges.take(principal.id);
    if (b.ok) return null;
    return tooManyRequests('too_many_ladder_changes', b.retryAfterSeconds, `at most ${deps.limits.ladderChanges.limit} ladder joins and leaves per hour`);
  };

  return {
    mintAnonymous: ({ ctx, query }) => {
      const budget = deps.limits.anonMints.take(rateLimitKey(ctx.ip));
      if (!budget.ok) return tooManyRequests('too_many_mints', budget.retryAfterSeconds, `at most ${deps.limits.anonMints.limit} anonymous mints per hour per address`);
      const minted = deps.identity.mintAnon(query.name);
      deps.log.debug?.({ id: minted.id, ip: ctx.ip }, 'anonymous identity minted');
      return json(201, minted);
    },

    register: async ({ ctx, body }) => {
      const { team, name } = body;
      // Only successful registrations use the budget: take first (so racing attempts can't all slip
      // through), give it back when the registration is refused.
      const counted = !(deps.limits.registrationsExemptLoopback && isLoopback(ctx.ip));
      if (counted) {
        const budget = deps.limits.registrations.take(rateLimitKey(ctx.ip));
        if (!budget.ok) return tooManyRequests('too_many_registrations', budget.retryAfterSeconds, `at most ${deps.limits.registrations.limit} registrations per hour per address`);
      }
      const r = await deps.identity.register(team, name);
      if (!r.ok) {
        if (counted) deps.limits.registrations.refund(rateLimitKey(ctx.ip));
        return serviceProblem(r.error);
      }
      deps.log.debug?.({ id: r.value.id, ip: ctx.ip }, 'bot registered');
      return json(201, r.value);
    },

    rotateToken: async (call) => {
      // Bearer routes only run with a token, so the presented one is always there.
      const r = await deps.identity.rotate(call.principal, bearerToken(call.ctx) ?? '');
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    getAccount: (call) => json(200, deps.identity.account(call.principal)),

    joinLadder: async (call) => {
      const limited = ladderBudget(call.principal);
      if (limited) return limited;
      const r = await deps.identity.ladderJoin(call.principal);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    leaveLadder: async (call) => {
      const limited = ladderBudget(call.principal);
      if (limited) return limited;
      const r = await deps.identity.ladderLeave(call.principal);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },
  };
}
