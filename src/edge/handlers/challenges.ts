// Challenges between bots: create, list, accept, decline. The service may answer later (in a cluster
// it runs on one node and the others call it), so every call is awaited.
import { isUnavailable } from '../../services/remote-service.js';
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
    createChallenge: async (call) => {
      // Every attempt counts, as for anonymous mints: hammering a cap is itself what is limited.
      const budget = deps.limits.challenges.take(rateLimitKey(call.ctx.ip));
      if (!budget.ok) return tooManyRequests('too_many_challenge_requests', budget.retryAfterSeconds);
      const r = await deps.challenges.create(call.principal, call.body);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    listChallenges: async (call) => {
      const r = await deps.challenges.list(call.principal);
      return isUnavailable(r) ? serviceProblem(r.error) : json(200, r);
    },

    acceptChallenge: async (call) => {
      const r = await deps.challenges.accept(call.principal, call.params.id);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    declineChallenge: async (call) => {
      const r = await deps.challenges.decline(call.principal, call.params.id, call.body.reason);
      return r.ok ? json(200, {}) : serviceProblem(r.error);
    },
  };
}
