// The in-memory store (tests and --memory). It mirrors the LMDB store's behaviour, orderings included,
// so the shared test suite holds for both. Records are held msgpack-encoded, as on disk: every read
// decodes a fresh copy, so a caller mutating an object it passed or received can never change what
// the store holds, and a record that would not survive the disk encoding fails here too. (msgpackr
// also turned out about twice as fast as structuredClone for a game record.)
import { codec } from '../domain/codec.js';
import type { BotRecord, GameRecord, ResultRecord } from '../domain/records.js';
import type { TournamentHead, TournamentListing, TournamentPairRecord, TournamentRecord } from '../domain/tournaments.js';
import type { LadderStats, PendingRating, RatingBatch, RatingPoint } from '../domain/ratings.js';
import { NO_STATS, RATING_HISTORY_MAX, addStats, isListed, isProvisional, leaderboardOrder, pendingRatingOf } from '../domain/ratings.js';
import type { HistoryEntry } from '../domain/types.js';
import type { Store } from './types.js';
import { assertFinishable, assertReadable, liveGamesOf, newestFirst, newestFirstIndex } from './schema.js';
import { TournamentTable } from './tournament-table.js';

const { encode, decode } = codec.records;

const sortedValues = <T>(m: Map<string, T>): T[] =>
  [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);

/** A result line with its sort fields kept beside the bytes, so ordering needs no decoding. */
interface StoredLine {
  finishedAt: number;
  gameId: string;
  bytes: Uint8Array;
}

export interface MemoryStoreOptions {
  /**
   * Finished games kept at most (the oldest are forgotten first), and likewise result lines per bot:
   * without persistence the archive is a bounded convenience, not a record that grows forever.
   */
  maxFinishedGames?: number;
}

export class MemoryStore implements Store {
  readonly persistent = false;
  private readonly maxFinished: number;
  /** Ids of finished games, oldest first. */
  private readonly finished = new Set<string>();

  constructor(opts: MemoryStoreOptions = {}) {
    this.maxFinished = opts.maxFinishedGames ?? 10_000;
  }

  private readonly bots = new Map<string, Uint8Array>();
  /** tokenHash → bot id, kept exact by createBot/updateBot. */
  private readonly tokenIndex = new Map<string, string>();
  /** Game records without their history; the turns are kept apart, encoded once each (as on disk). */
  private readonly games = new Map<string, Uint8Array>();
  private readonly turns = new Map<string, Uint8Array[]>();
  private readonly live = new Set<string>();
  /** gameId → ply of the latest roll whose webhook delivery finished (live games only). */
  private readonly delivered = new Map<string, number>();
  /** botId → that bot's result lines, kept sorted newest first. */
  private readonly results = new Map<string, StoredLine[]>();
  private readonly pending = new Map<string, PendingRating>();
  /** Games a batch has rated; forgotten with the game, like its result lines. */
  private readonly rated = new Set<string>();
  private readonly stats = new Map<string, LadderStats>();
  private readonly history = new Map<string, RatingPoint[]>();
  private revision = 0;

  getBot(id: string): BotRecord | undefined {
    const bytes = this.bots.get(id);
    return bytes && assertReadable('bot', id, decode<BotRecord>(bytes));
  }

  getBotByTokenHash(tokenHash: string): BotRecord | undefined {
    const id = this.tokenIndex.get(tokenHash);
    const bot = id === undefined ? undefined : this.getBot(id);
    return bot && bot.tokenHash === tokenHash ? bot : undefined;
  }

  // Writes apply synchronously, so a check-then-set is atomic on the single JS thread.
  async createBot(bot: BotRecord): Promise<boolean> {
    if (this.bots.has(bot.id)) return false;
    this.bots.set(bot.id, encode(bot));
    this.tokenIndex.set(bot.tokenHash, bot.id);
    this.revision++;
    return true;
  }

  async updateBot(bot: BotRecord): Promise<void> {
    const oldBytes = this.bots.get(bot.id);
    if (!oldBytes) throw new Error(`updateBot: no bot ${bot.id} (create it first)`);
    const old = decode<BotRecord>(oldBytes);
    const bytes = encode(bot);
    // Drop the old hash only if it still points at this bot, then add the new one: same effect as
    // the LMDB transaction, and no await in between, so no reader sees both or neither.
    if (this.tokenIndex.get(old.tokenHash) === bot.id) this.tokenIndex.delete(old.tokenHash);
    this.tokenIndex.set(bot.tokenHash, bot.id);
    this.bots.set(bot.id, bytes);
    this.revision++;
  }

  async modifyBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | undefined> {
    const old = this.getBot(id);
    if (!old) return undefined;
    const next = change(old);
    if (!next) return this.getBot(id);
    if (next.id !== id) throw new Error(`modifyBot(${id}): the change returned bot ${next.id}`);
    await this.updateBot(next);
    return this.getBot(id);
  }

  botsRevision(): number {
    return this.revision;
  }

  listBots(): BotRecord[] {
    return sortedValues(this.bots).map((bytes) => {
      const bot = decode<BotRecord>(bytes);
      return assertReadable('bot', bot.id, bot);
    });
  }

  async putGame(game: GameRecord): Promise<void> {
    this.writeGame(game);
    if ('Active' in game.status) this.live.add(game.id);
    else this.live.delete(game.id);
  }

  getGame(id: string): GameRecord | undefined {
    const bytes = this.games.get(id);
    if (!bytes) return undefined;
    const rec = assertReadable('game', id, decode<GameRecord>(bytes));
    return { ...rec, history: (this.turns.get(id) ?? []).map((b) => decode<HistoryEntry>(b)) };
  }

  /** History only grows: encode the record without it and append the turns not yet kept. */
  private writeGame(game: GameRecord): void {
    const kept = this.turns.get(game.id) ?? [];
    const from = kept.length <= game.history.length ? kept.length : 0;
    const next = from === 0 ? [] : kept;
    for (let i = from; i < game.history.length; i++) next.push(encode(game.history[i]));
    this.turns.set(game.id, next);
    this.games.set(game.id, encode({ ...game, history: [] }));
  }

  listLiveGames(): GameRecord[] {
    return liveGamesOf(this.live, (id) => this.getGame(id));
  }

  async finishGame(game: GameRecord, results: ResultRecord[]): Promise<void> {
    assertFinishable(game.id, 'Active' in game.status, results);
    // Encode the result lines first so a line that cannot be encoded leaves nothing half-written.
    const lines = results.map((r) => ({
      botId: r.botId,
      line: { finishedAt: r.finishedAt, gameId: r.gameId, bytes: encode(r) },
    }));
    this.writeGame(game);
    this.live.delete(game.id);
    this.delivered.delete(game.id);
    for (const { botId, line } of lines) this.insertResult(botId, line);
    const pending = pendingRatingOf(game);
    if (pending && !this.rated.has(game.id)) this.pending.set(game.id, pending);
    this.finished.delete(game.id);
    this.finished.add(game.id);
    for (const oldest of this.finished) {
      if (this.finished.size <= this.maxFinished) break;
      this.forget(oldest);
    }
  }

  /** Drops a finished game and its result lines, so neither outlives the bounded archive. */
  private forget(gameId: string): void {
    this.finished.delete(gameId);
    this.rated.delete(gameId);
    const bytes = this.games.get(gameId);
    this.games.delete(gameId);
    this.turns.delete(gameId);
    if (!bytes) return;
    const g = decode<GameRecord>(bytes);
    for (const botId of [g.white.id, g.black.id]) {
      const lines = this.results.get(botId);
      if (!lines) continue;
      const kept = lines.filter((l) => l.gameId !== gameId);
      if (kept.length) this.results.set(botId, kept);
      else this.results.delete(botId);
    }
  }

  /** Events: each part encoded under its own key, as on disk (tournament-parts.ts). */
  private readonly events = new Map<string, Uint8Array>();
  private readonly tournaments = new TournamentTable({
    head: (id) => this.part(`h\n${id}`),
    pairs: (id, count) => Array.from({ length: count }, (_, i) => this.part<TournamentPairRecord>(`p\n${id}\n${i}`)!),
    queueChunk: (id, k) => this.part(`q\n${id}\n${k}`),
    write: async (id, head, pairs, chunks) => {
      for (const [i, p] of pairs) this.events.set(`p\n${id}\n${i}`, encode(p));
      for (const [k, c] of chunks) this.events.set(`q\n${id}\n${k}`, encode(c));
      if (head) this.events.set(`h\n${id}`, encode(head));
    },
  }, true);

  private part<T>(key: string): T | undefined {
    const bytes = this.events.get(key);
    return bytes && decode<T>(bytes);
  }

  putTournament(event: TournamentRecord, previous?: TournamentRecord): Promise<void> {
    return this.tournaments.put(event, previous);
  }

  getTournament(id: string): TournamentRecord | undefined {
    return this.tournaments.get(id);
  }

  getTournamentHead(id: string): TournamentHead | undefined {
    return this.tournaments.head(id);
  }

  openTournaments(): TournamentListing[] {
    return this.tournaments.openEvents();
  }

  recentTournaments(limit: number, bot?: string): string[] {
    return this.tournaments.recent(limit, bot);
  }

  tournamentRevision(id: string): number | undefined {
    return this.tournaments.revision(id);
  }

  webhookDelivered(gameId: string): number | undefined {
    return this.delivered.get(gameId);
  }

  async markWebhookDelivered(gameId: string, ply: number): Promise<void> {
    if (this.live.has(gameId)) this.delivered.set(gameId, ply);
  }

  resultsOf(botId: string, limit: number): ResultRecord[] {
    const lines = this.results.get(botId) ?? [];
    return lines.slice(0, Math.max(0, limit)).map((l) => decode<ResultRecord>(l.bytes));
  }

  allResults(): ResultRecord[] {
    return sortedValues(this.results).flatMap((lines) => lines.map((l) => decode<ResultRecord>(l.bytes)));
  }

  pendingRatings(limit: number): PendingRating[] {
    return [...this.pending.values()]
      .sort((a, b) => a.finishedAt - b.finishedAt || (a.gameId < b.gameId ? -1 : a.gameId > b.gameId ? 1 : 0))
      .slice(0, Math.max(0, limit))
      .map((p) => ({ ...p }));
  }

  // Synchronous throughout: on the single JS thread the batch is all or nothing.
  async applyRatingBatch(batch: RatingBatch): Promise<boolean> {
    if (!batch.games.every((g) => this.pending.has(g.gameId))) return false;
    for (const u of batch.updates) {
      const bot = this.getBot(u.botId);
      if (bot && (bot.rating.rating !== u.before.rating || bot.rating.rd !== u.before.rd || bot.rating.volatility !== u.before.volatility)) return false;
    }
    for (const g of batch.games) {
      this.pending.delete(g.gameId);
      this.rated.add(g.gameId);
    }
    for (const u of batch.updates) {
      const bot = this.getBot(u.botId);
      if (!bot) continue;
      this.bots.set(u.botId, encode({ ...bot, rating: { ...u.after } }));
      this.stats.set(u.botId, addStats(this.stats.get(u.botId) ?? NO_STATS, u.counts));
      const points = (this.history.get(u.botId) ?? []).filter((p) => p.at !== batch.at);
      points.push({ at: batch.at, rating: u.after.rating, rd: u.after.rd });
      points.sort((a, b) => a.at - b.at);
      this.history.set(u.botId, points.slice(-RATING_HISTORY_MAX));
    }
    this.revision++;
    return true;
  }

  ladderStats(botId: string): LadderStats {
    return { ...(this.stats.get(botId) ?? NO_STATS) };
  }

  ratingHistory(botId: string): RatingPoint[] {
    return (this.history.get(botId) ?? []).map((p) => ({ ...p }));
  }

  /** Sorted on demand: without persistence there is no public leaderboard to make fast. */
  leaderboard(offset: number, limit: number): { total: number; bots: BotRecord[] } {
    return this.sortedPage(isListed, offset, limit);
  }

  provisional(offset: number, limit: number): { total: number; bots: BotRecord[] } {
    return this.sortedPage(isProvisional, offset, limit);
  }

  private sortedPage(keep: (b: BotRecord) => boolean, offset: number, limit: number): { total: number; bots: BotRecord[] } {
    const all = this.listBots().filter(keep).sort(leaderboardOrder);
    return { total: all.length, bots: all.slice(Math.max(0, offset), Math.max(0, offset) + Math.max(0, limit)) };
  }

  async close(): Promise<void> {
    // Nothing to release; the maps go with the object.
  }

  /** Sorted insert; a line with the same (finishedAt, gameId) replaces the old one, like an LMDB key. */
  private insertResult(botId: string, line: StoredLine): void {
    let lines = this.results.get(botId);
    if (!lines) this.results.set(botId, (lines = []));
    const lo = newestFirstIndex(lines, line);
    if (lo < lines.length && newestFirst(lines[lo], line) === 0) lines[lo] = line;
    else lines.splice(lo, 0, line);
  }
}
