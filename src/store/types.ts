// The store seam: LMDB by default, memory for tests and --memory. Reads are synchronous (LMDB reads
// are memory-mapped); writes resolve once committed. A later replicated store implements the same.
import type { BotRecord, GameRecord, ResultRecord } from '../domain/records.js';
import type { TournamentHead, TournamentListing, TournamentRecord } from '../domain/tournaments.js';
import type { LadderStats, PendingRating, RatingBatch, RatingPoint } from '../domain/ratings.js';

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
  /**
   * Read-modify-write of one bot inside a single write: `change` sees the committed record (never a
   * stale copy) and returns the replacement, or null to leave it. Resolves with the record as stored
   * afterwards, or undefined when there is no such bot. `change` must be synchronous.
   */
  modifyBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | undefined>;
  /** Grows whenever a bot record, rating or count changes, so readers may cache what they derive. */
  botsRevision(): number;

  // Games (live and finished, one record each)
  putGame(game: GameRecord): Promise<void>;
  getGame(id: string): GameRecord | undefined;
  /**
   * Only a store whose finished games are read on demand (a cluster node's): the game, read from
   * where it is kept when getGame cannot answer it now; afterwards getGame answers it for a while.
   */
  loadGame?(id: string): Promise<GameRecord | undefined>;
  /** Games whose status is Active. */
  listLiveGames(): GameRecord[];
  /**
   * Stores the final record of an ended game and its per-bot result lines in one transaction.
   * `results` holds a line for each seated registered or static bot. A rated game that did not
   * abort is marked pending rating in the same transaction (unless a batch already rated it), so
   * no crash can end a game without it reaching the ratings.
   */
  finishGame(game: GameRecord, results: ResultRecord[]): Promise<void>;
  /** A bot's finished games, newest first. */
  resultsOf(botId: string, limit: number): ResultRecord[];
  /** Every result line (for rating batches and counts). */
  allResults(): ResultRecord[];

  // Ratings (services/ratings.ts)
  /** Games waiting for a rating batch, oldest first, at most `limit`. */
  pendingRatings(limit: number): PendingRating[];
  /**
   * Applies a rating batch in one transaction: its games leave the pending set (and are remembered
   * as rated), each bot's rating is replaced on the record as committed (other fields untouched),
   * its counts grow and its rating history gains a point. Resolves false, writing nothing, when the
   * batch is stale: a game is no longer pending, or a bot's rating is not the batch's `before`.
   */
  applyRatingBatch(batch: RatingBatch): Promise<boolean>;
  /** Counts of a bot's rated games so far (zeros when none). */
  ladderStats(botId: string): LadderStats;
  /** A bot's rating after each batch it took part in, oldest first (the newest RATING_HISTORY_MAX at most). */
  ratingHistory(botId: string): RatingPoint[];
  /**
   * Listed bots (deviation at most LISTED_RD) in leaderboard order, from an index kept with the bot
   * records: one page, and how many are listed in all.
   */
  leaderboard(offset: number, limit: number): { total: number; bots: BotRecord[] };
  /**
   * Provisional bots — on the ladder, deviation above 110 — in the same order, from an index kept
   * the same way: one page, and how many there are in all.
   */
  provisional(offset: number, limit: number): { total: number; bots: BotRecord[] };
  // Webhook deliveries: the latest roll (its ply) of a live game whose delivery has finished, so a
  // restart re-delivers a roll only when its delivery was cut off. Cleared when the game finishes.
  webhookDelivered(gameId: string): number | undefined;
  markWebhookDelivered(gameId: string, ply: number): Promise<void>;

  // Tournaments (services/tournaments, the /events routes). Each event is kept in parts (its head, each
  // pair, its queue in chunks: store/tournament-parts.ts), so a change writes only what changed.
  /**
   * Stores an event. `previous`: the version it replaces, as read from this store or stored through
   * it; then only the parts that differ are written (changes must make new objects for what they
   * change, never change a record in place). Without it every part is written.
   */
  putTournament(event: TournamentRecord, previous?: TournamentRecord): Promise<void>;
  /** The whole event (records stored whole by earlier versions read too), or undefined. */
  getTournament(id: string): TournamentRecord | undefined;
  /** The event's head only: no pairs, no queue (what the lists show). */
  getTournamentHead(id: string): TournamentHead | undefined;
  /** Pending and running events, oldest first, from an index kept with the records (nothing is decoded). */
  openTournaments(): TournamentListing[];
  /** Ids of the newest events, newest first (at most 100): all, or those `bot` hosts or plays in. */
  recentTournaments(limit: number, bot?: string): string[];
  /**
   * For a pending or running event, a number that changes with every write of it this store sees
   * (this process's or, in a cluster, another node's), so a copy kept in memory can be checked.
   */
  tournamentRevision(id: string): number | undefined;

  close(): Promise<void>;
}

/** The part of the store game actors use: what a shard needs, whatever holds the rest. */
export type GameStore = Pick<Store, 'putGame' | 'getGame' | 'listLiveGames' | 'finishGame'>;
