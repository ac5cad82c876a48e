// Ladder routes: capacity, the leaderboard and bot profiles. Transport only: the ladder service
// owns the rules and the numbers (src/services/ladder.ts).
import { LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from '../../services/ladder.js';
import { caller, type EdgeDeps, type HandlerTable } from '../deps.js';
import { json, jsonBytes, problem } from '../reply.js';
import { serviceProblem } from './errors.js';

export function ladderHandlers(deps: EdgeDeps): HandlerTable {
  return {
    getCapacity: (call) => {
      const r = deps.ladder.capacity(caller(call));
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    setCapacity: async (call) => {
      const { capacity } = call.body as { capacity: number };
      const r = await deps.ladder.setCapacity(caller(call), capacity);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    getLeaderboard: ({ query }) => {
      // The query schema admits digits only; the ranges are checked here so the problem can say them.
      const number = (v: string | undefined, absent: number) => (v === undefined ? absent : Number(v));
      const limit = number(query.limit, LEADERBOARD_DEFAULT_LIMIT);
      const provisionalLimit = number(query.provisionalLimit, LEADERBOARD_DEFAULT_LIMIT);
      if (limit < 1 || limit > LEADERBOARD_MAX_LIMIT) {
        return problem(400, 'invalid_query', `limit must be 1..${LEADERBOARD_MAX_LIMIT}`);
      }
      if (provisionalLimit > LEADERBOARD_MAX_LIMIT) {
        return problem(400, 'invalid_query', `provisionalLimit must be 0..${LEADERBOARD_MAX_LIMIT}`);
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
