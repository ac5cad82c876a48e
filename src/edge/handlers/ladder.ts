// Ladder routes: capacity, the leaderboard and bot profiles. Transport only: the ladder service
// owns the rules and the numbers (src/services/ladder.ts).
import { LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from '../../services/ladder.js';
import type { EdgeDeps, Handlers } from '../deps.js';
import { json, jsonBytes, problem } from '../reply.js';
import { serviceProblem } from './errors.js';

/** What the ladder routes use. */
export type LadderRouteDeps = Pick<EdgeDeps, 'ladder'>;

type LadderOps = 'getCapacity' | 'setCapacity' | 'getLeaderboard' | 'getBotProfile';

export function ladderHandlers(deps: LadderRouteDeps): Handlers<LadderOps> {
  return {
    getCapacity: (call) => {
      const r = deps.ladder.capacity(call.principal);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    setCapacity: async (call) => {
      const r = await deps.ladder.setCapacity(call.principal, call.body.capacity);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    getLeaderboard: ({ query }) => {
      // The query schema admits digits only; the ranges are checked here so the problem can say them.
      const number = (v: string | undefined, absent: number) => (v === undefined ? absent : Number(v));
      const limit = number(query.limit, LEADERBOARD_DEFAULT_LIMIT);
      const provisionalLimit = number(query.provisionalLimit, LEADERBOARD_DEFAULT_LIMIT);
      if (limit < 1 || limit > LEADERBOARD_MAX_LIMIT) {
        return problem('invalid_query', `limit must be 1..${LEADERBOARD_MAX_LIMIT}`);
      }
      if (provisionalLimit > LEADERBOARD_MAX_LIMIT) {
        return problem('invalid_query', `provisionalLimit must be 0..${LEADERBOARD_MAX_LIMIT}`);
      }
      const offset = number(query.offset, 0);
      const provisionalOffset = number(query.provisionalOffset, 0);
      const r = deps.ladder.leaderboardJson({ offset, limit, provisionalOffset, provisionalLimit });
      return r.ok ? jsonBytes(200, r.value) : serviceProblem(r.error);
    },

    getBotProfile: ({ params }) => {
      const r = deps.ladder.profile(params.team, params.name);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },
  };
}
