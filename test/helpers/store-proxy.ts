// A Store that forwards every call to another; test wrappers extend it and override only the calls
// they watch or hold back, so a new Store method needs adding in one place.
import type { BotRecord, GameRecord, ResultRecord } from '../../src/domain/records.js';
import type { TournamentHead, TournamentListing, TournamentRecord } from '../../src/domain/tournaments.js';
import type { LadderStats, PendingRating, RatingBatch, RatingPoint } from '../../src/domain/ratings.js';
import type { Store } from '../../src/store/types.js';

export class StoreProxy implements Store {
  constructor(readonly inner: Store) {}
  get persistent(): boolean { return this.inner.persistent; }
  getBot(id: string): BotRecord | undefined { return this.inner.getBot(id); }
  getBotByTokenHash(h: string): BotRecord | undefined { return this.inner.getBotByTokenHash(h); }
  createBot(b: BotRecord): Promise<boolean> { return this.inner.createBot(b); }
  updateBot(b: BotRecord): Promise<void> { return this.inner.updateBot(b); }
  modifyBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | undefined> { return this.inner.modifyBot(id, change); }
  botsRevision(): number { return this.inner.botsRevision(); }
  listBots(): BotRecord[] { return this.inner.listBots(); }
  putGame(g: GameRecord): Promise<void> { return this.inner.putGame(g); }
  getGame(id: string): GameRecord | undefined { return this.inner.getGame(id); }
  listLiveGames(): GameRecord[] { return this.inner.listLiveGames(); }
  finishGame(g: GameRecord, r: ResultRecord[]): Promise<void> { return this.inner.finishGame(g, r); }
  resultsOf(botId: string, limit: number): ResultRecord[] { return this.inner.resultsOf(botId, limit); }
  allResults(): ResultRecord[] { return this.inner.allResults(); }
  pendingRatings(limit: number): PendingRating[] { return this.inner.pendingRatings(limit); }
  applyRatingBatch(batch: RatingBatch): Promise<boolean> { return this.inner.applyRatingBatch(batch); }
  ladderStats(botId: string): LadderStats { return this.inner.ladderStats(botId); }
  ratingHistory(botId: string): RatingPoint[] { return this.inner.ratingHistory(botId); }
  leaderboard(offset: number, limit: number): { total: number; bots: BotRecord[] } { return this.inner.leaderboard(offset, limit); }
  provisional(offset: number, limit: number): { total: number; bots: BotRecord[] } { return this.inner.provisional(offset, limit); }
  webhookDelivered(id: string): number | undefined { return this.inner.webhookDelivered(id); }
  markWebhookDelivered(id: string, ply: number): Promise<void> { return this.inner.markWebhookDelivered(id, ply); }
  putTournament(e: TournamentRecord, previous?: TournamentRecord): Promise<void> { return this.inner.putTournament(e, previous); }
  getTournament(id: string): TournamentRecord | undefined { return this.inner.getTournament(id); }
  getTournamentHead(id: string): TournamentHead | undefined { return this.inner.getTournamentHead(id); }
  openTournaments(): TournamentListing[] { return this.inner.openTournaments(); }
  recentTournaments(limit: number, bot?: string): string[] { return this.inner.recentTournaments(limit, bot); }
  tournamentRevision(id: string): number | undefined { return this.inner.tournamentRevision(id); }
  close(): Promise<void> { return this.inner.close(); }
}
