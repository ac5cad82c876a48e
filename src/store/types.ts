// The store seam: LMDB by default, memory for tests and --memory. Reads are synchronous (LMDB reads
// are memory-mapped); writes resolve once committed. A later replicated store implements the same.
import type { BotRecord, GameRecord, ResultRecord } from '../domain/records.js';

export interface Store {
  /** True when data survives a restart (controls whether leaderboard and profiles exist). */
  readonly persistent: boolean;

  // Registered bots
  getBot(id: string): BotRecord | undefined;
  getBotByTokenHash(tokenHash: string): BotRecord | undefined;
  /** Creates the bot unless its id is taken; false when taken. Atomic. */
  createBot(bot: BotRecord): Promise<boolean>;
  /** Replaces a bot record (token rotation, ladder flag, rating, webhook); keeps the token index exact. */
  updateBot(bot: BotRecord): Promise<void>;
  listBots(): BotRecord[];

  // Games (live and finished, one record each)
  putGame(game: GameRecord): Promise<void>;
  getGame(id: string): GameRecord | undefined;
  /** Games whose status is Active. */
  listLiveGames(): GameRecord[];
  /**
   * Stores the final record of an ended game and its per-bot result lines in one transaction.
   * `results` holds a line for each seated registered or static bot.
   */
  finishGame(game: GameRecord, results: ResultRecord[]): Promise<void>;
  /** A bot's finished games, newest first. */
  resultsOf(botId: string, limit: number): ResultRecord[];
  /** Every result line (for rating batches and counts). */
  allResults(): ResultRecord[];

  // Webhook deliveries: the latest roll (its ply) of a live game whose delivery has finished, so a
  // restart re-delivers a roll only when its delivery was cut off. Cleared when the game finishes.
  webhookDelivered(gameId: string): number | undefined;
  markWebhookDelivered(gameId: string, ply: number): Promise<void>;

  close(): Promise<void>;
}
