// The ladder's rating data: games waiting for a rating batch, the batch itself (ratings, counts and
// history points of every bot it rates, all or nothing), and the reads of the leaderboard pages.
import type { BotRecord } from '../../domain/records.js';
import type { LadderStats, PendingRating, RatingBatch, RatingPoint } from '../../domain/ratings.js';
import { NO_STATS, RATING_HISTORY_MAX, addStats } from '../../domain/ratings.js';
import { getBot } from './bots.js';
import { TIME_CEILING, keyFits, type Db, type Dbs } from './env.js';
import { idPage, reindex } from './leaderboard.js';

type StoredStats = LadderStats & { points: number };
const sameRating = (a: BotRecord['rating'], b: BotRecord['rating']): boolean =>
  a.rating === b.rating && a.rd === b.rd && a.volatility === b.volatility;

export function pendingRatings(db: Dbs, limit: number): PendingRating[] {
  if (limit <= 0) return [];
  // The set holds about one batch interval of games, so reading and ordering it whole is cheap.
  const all = [...db.pendingRatings.getRange()].map(({ value }) => value as PendingRating);
  all.sort((a, b) => a.finishedAt - b.finishedAt || (a.gameId < b.gameId ? -1 : a.gameId > b.gameId ? 1 : 0));
  return all.slice(0, limit);
}

/** Inside a write: applies a batch, or writes nothing and answers false if it is stale. */
export function applyBatch(db: Dbs, batch: RatingBatch): boolean {
  const { bots, pendingRatings, ratedGames, ladderStats, ratingHistory } = db;
  // Every check before any write, so a stale batch leaves nothing behind.
  if (!batch.games.every((g) => pendingRatings.doesExist(g.gameId))) return false;
  for (const u of batch.updates) {
    const bot = bots.get(u.botId) as BotRecord | undefined;
    if (bot && !sameRating(bot.rating, u.before)) return false;
  }
  for (const g of batch.games) {
    pendingRatings.removeSync(g.gameId);
    ratedGames.putSync(g.gameId, batch.at);
  }
  for (const u of batch.updates) {
    // Re-read inside the write: only the rating changes, whatever else happened to the record.
    const bot = bots.get(u.botId) as BotRecord | undefined;
    if (!bot) continue;
    const next: BotRecord = { ...bot, rating: { ...u.after } };
    bots.putSync(u.botId, next);
    reindex(db, bot, next);
    const stats = (ladderStats.get(u.botId) as StoredStats | undefined) ?? { ...NO_STATS, points: 0 };
    let points = stats.points;
    if (!ratingHistory.doesExist([u.botId, batch.at])) points++;
    ratingHistory.putSync([u.botId, batch.at], { rating: u.after.rating, rd: u.after.rd });
    if (points > RATING_HISTORY_MAX) {
      const oldest = [...ratingHistory.getKeys({ start: [u.botId, 0], end: [u.botId, TIME_CEILING], limit: points - RATING_HISTORY_MAX })];
      for (const key of oldest) {
        ratingHistory.removeSync(key);
      }
      points = RATING_HISTORY_MAX;
    }
    ladderStats.putSync(u.botId, { ...addStats(stats, u.counts), points });
  }
  return true;
}

export function ladderStats(db: Dbs, botId: string): LadderStats {
  if (!keyFits(botId)) return { ...NO_STATS };
  const s = db.ladderStats.get(botId) as StoredStats | undefined;
  return s ? { games: s.games, wins: s.wins, draws: s.draws, losses: s.losses } : { ...NO_STATS };
}

export function ratingHistory(db: Dbs, botId: string): RatingPoint[] {
  if (!keyFits(botId)) return [];
  const range = db.ratingHistory.getRange({ start: [botId, 0], end: [botId, TIME_CEILING] });
  return [...range].map(({ key, value }) => {
    const v = value as { rating: number; rd: number };
    return { at: (key as [string, number])[1], rating: v.rating, rd: v.rd };
  });
}

/** One page of the leaderboard or the provisional list, and the list's size. */
export function botPage(db: Dbs, index: Db, offset: number, limit: number): { total: number; bots: BotRecord[] } {
  const { total, ids } = idPage(index, offset, limit);
  const bots = ids.flatMap((id) => {
    const bot = getBot(db, id);
    return bot ? [bot] : [];
  });
  return { total, bots };
}
