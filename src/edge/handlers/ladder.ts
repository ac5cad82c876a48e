// Leaderboard and bot profiles: they exist only when the server runs with persistence (spec:
// otherwise 404). Ratings come from the store; results count rated, decided games only.
import type { BotRecord, ResultRecord } from '../../domain/records.js';
import type { PublicFace } from '../../domain/types.js';
import { HUMAN_FACE, botFace } from '../../domain/types.js';
import type { EdgeDeps, HandlerTable } from '../deps.js';
import { json, problem } from '../reply.js';

/** CONTRACT.md: provisional while the deviation is above 110; the leaderboard lists the others. */
const LISTED_RD = 110;
const RECENT = 20;

interface Counts {
  games: number;
  wins: number;
  draws: number;
  losses: number;
}

function countsOf(results: readonly ResultRecord[]): Counts {
  const c: Counts = { games: 0, wins: 0, draws: 0, losses: 0 };
  for (const r of results) {
    if (!r.rated || r.termination === 'Aborted') continue; // aborted games are unrated
    c.games++;
    if (r.result === 'win') c.wins++;
    else if (r.result === 'draw') c.draws++;
    else c.losses++;
  }
  return c;
}

/** The public face of an external id: never the raw id. */
export function faceOfId(id: string): PublicFace {
  const m = /^bot:team:([^:]+):(.+)$/.exec(id);
  return m ? botFace(m[1], m[2]) : HUMAN_FACE;
}

const noPersistence = () => problem(404, 'no_persistence', 'this server runs without persistence: no leaderboard or profiles');

export function ladderHandlers(deps: EdgeDeps): HandlerTable {
  const countsByBot = (): Map<string, Counts> => {
    const byBot = new Map<string, ResultRecord[]>();
    for (const r of deps.store.allResults()) {
      const list = byBot.get(r.botId) ?? [];
      list.push(r);
      byBot.set(r.botId, list);
    }
    return new Map([...byBot].map(([id, list]) => [id, countsOf(list)]));
  };

  return {
    getLeaderboard: () => {
      if (!deps.store.persistent) return noPersistence();
      const counts = countsByBot();
      const listed = deps.store
        .listBots()
        .filter((b) => b.rating.rd <= LISTED_RD)
        .sort((a, b) => b.rating.rating - a.rating.rating || a.rating.rd - b.rating.rd || a.id.localeCompare(b.id));
      const leaders = listed.map((b: BotRecord, i) => ({
        rank: i + 1,
        team: b.team,
        name: b.name,
        rating: b.rating.rating,
        rd: b.rating.rd,
        onLadder: b.onLadder,
        ...(counts.get(b.id) ?? { games: 0, wins: 0, draws: 0, losses: 0 }),
      }));
      return json(200, { leaders });
    },

    getBotProfile: ({ params }) => {
      if (!deps.store.persistent) return noPersistence();
      const bot = deps.store.getBot(`bot:team:${params.team}:${params.name}`);
      if (!bot) return problem(404, 'unknown_bot', 'no registered bot with this team and name');
      const all = deps.store.resultsOf(bot.id, Number.MAX_SAFE_INTEGER);
      const recent = all.slice(0, RECENT).map((r) => ({
        gameId: r.gameId,
        seat: r.seat,
        opponent: faceOfId(r.opponentId),
        result: r.result,
        rated: r.rated,
        termination: r.termination,
        finishedAt: new Date(r.finishedAt).toISOString(),
      }));
      return json(200, {
        team: bot.team,
        name: bot.name,
        rating: bot.rating.rating,
        rd: bot.rating.rd,
        provisional: bot.rating.rd > LISTED_RD,
        onLadder: bot.onLadder,
        ...countsOf(all),
        recent,
      });
    },
  };
}
