// What the rating batch keeps in the store, and which ended games it rates. Shared by both store
// implementations so they agree on the rule.
import type { BotRecord, GameRecord, Rating } from './records.js';

/** Past this deviation a bot is provisional and not on the leaderboard. */
export const LISTED_RD = 110;
/** Rating points kept per bot for its profile chart (the oldest are dropped first). */
export const RATING_HISTORY_MAX = 500;
/** Ladder games a bot plays at once unless it says otherwise. */
export const DEFAULT_CAPACITY = 1;
export const MAX_CAPACITY = 32;

/** A rated game that has ended and waits for the next rating batch. */
export interface PendingRating {
  gameId: string;
  whiteId: string;
  blackId: string;
  /** White's score: 1, 0.5 or 0. */
  whiteScore: number;
  finishedAt: number;
}

/** Rated, decided games a bot has had rated so far (profile and leaderboard counts). */
export interface LadderStats {
  games: number;
  wins: number;
  draws: number;
  losses: number;
}

export const NO_STATS: LadderStats = { games: 0, wins: 0, draws: 0, losses: 0 };

/** A bot's rating right after a batch it took part in. */
export interface RatingPoint {
  at: number;
  rating: number;
  rd: number;
}

export interface RatingUpdate {
  botId: string;
  /** The rating the batch computed from; the batch is stale if the stored one differs. */
  before: Rating;
  after: Rating;
  /** Added to the bot's counts. */
  counts: LadderStats;
}

/** One batch, applied all or nothing: its games leave the pending set as the ratings change. */
export interface RatingBatch {
  at: number;
  games: PendingRating[];
  updates: RatingUpdate[];
}

/**
 * The pending entry for an ended game, or null when the game is not rated: unrated games and
 * aborted ones never are.
 */
export function pendingRatingOf(game: GameRecord): PendingRating | null {
  if (!game.rated || game.finishedAt === null || !('Ended' in game.status)) return null;
  const { over } = game.status.Ended;
  if (over.termination === 'Aborted') return null;
  const result = over.result;
  const whiteScore = 'Draw' in result ? 0.5 : result.Win.side === 'White' ? 1 : 0;
  return { gameId: game.id, whiteId: game.white.id, blackId: game.black.id, whiteScore, finishedAt: game.finishedAt };
}

export const isListed = (bot: Pick<BotRecord, 'rating'>): boolean => bot.rating.rd <= LISTED_RD;
/**
 * On the ladder, or once on it and left, but not yet listed: the leaderboard's provisional list. A
 * bot that leaves keeps its row (onLadder false, rating frozen) rather than vanishing from both lists.
 */
export const isProvisional = (bot: Pick<BotRecord, 'rating' | 'onLadder' | 'leftLadder'>): boolean =>
  (bot.onLadder || bot.leftLadder === true) && !isListed(bot);

/** Leaderboard order (the provisional list's too): rating (high first), then deviation (low first), then name, then team. */
export function leaderboardOrder(a: BotRecord, b: BotRecord): number {
  return (
    b.rating.rating - a.rating.rating ||
    a.rating.rd - b.rating.rd ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
    (a.team < b.team ? -1 : a.team > b.team ? 1 : 0)
  );
}

/** The sum of two count records. */
export const addStats = (a: LadderStats, b: LadderStats): LadderStats => ({
  games: a.games + b.games,
  wins: a.wins + b.wins,
  draws: a.draws + b.draws,
  losses: a.losses + b.losses,
});
