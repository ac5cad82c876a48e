// Challenges between bots: create, list, accept, decline.
import { rateLimitKey } from '../client-ip.js';
import type { EdgeDeps, Handlers } from '../deps.js';
import { json, tooManyRequests } from '../reply.js';
import { serviceProblem } from './errors.js';

/** What the challenge routes use. */
export type ChallengeRouteDeps = Pick<EdgeDeps, 'challenges'> & {
  limits: Pick<EdgeDeps['limits'], 'challenges'>;
};

type ChallengeOps = 'createChallenge' | 'listChallenges' | 'acceptChallenge' | 'declineChallenge';

export function challengeHandlers(deps: ChallengeRouteDeps): Handlers<ChallengeOps> {
  return {
    createChallenge: (call) => {
      // Every attempt counts, as for anonymous mints: hammering a cap is itself what is limited.
      const budget = deps.limits.challenges.take(rateLimitKey(call.ctx.ip));
      if (!budget.ok) return tooManyRequests(budget.retryAfterSeconds, 'too many challenges from this address', 'too_many_challenge_requests');
      const r = deps.challenges.create(call.principal, call.body);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    listChallenges: (call) => json(200, deps.challenges.list(call.principal)),

    acceptChallenge: async (call) => {
      const r = await deps.challenges.accept(call.principal, call.params.id);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    declineChallenge: (call) => {
      const r = deps.challenges.decline(call.principal, call.params.id);
      return r.ok ? json(200, {}) : serviceProblem(r.error);
    },
  };
}
