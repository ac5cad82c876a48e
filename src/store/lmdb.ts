// The durable store: one LMDB environment (the configured `dataDir`) with named sub-databases. This
// class opens, writes and closes; what each sub-database holds lives beside it in lmdb/ (tournament
// heads and parts share their layout and index with the other stores: store/tournament-*.ts).
// Invariant: every multi-entry write runs in a child transaction (all or nothing, and it sees the
// writes before it, so check-then-write steps cannot race); an awaited write has been committed.
// (docs/STORAGE.md, "Layout", "Atomicity" and "Durability: what an awaited write guarantees").
import { mkdirSync } from 'node:fs';
import type { BotRecord, GameRecord, ResultRecord } from '../domain/records.js';
import type { TournamentHead, TournamentListing, TournamentRecord } from '../domain/tournaments.js';
import type { LadderStats, PendingRating, RatingBatch, RatingPoint } from '../domain/ratings.js';
import { err, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import type { Store } from './types.js';
import { assertFinishable } from './schema.js';
import { lockDataDir, type DirLock } from './dir-lock.js';
import { checkSchema, messageOf, openDbs, openRoot, type Dbs, type Root } from './lmdb/env.js';
import * as bots from './lmdb/bots.js';
import * as games from './lmdb/games.js';
import * as ratings from './lmdb/ratings.js';
import { tournamentKv } from './lmdb/tournaments.js';
import { TournamentTable } from './tournament-table.js';
import * as webhooks from './lmdb/webhooks.js';
import { buildProvisionalIndex } from './lmdb/leaderboard.js';

export { DB_NAMES, META_PROVISIONAL_KEY, META_SCHEMA_KEY } from './lmdb/env.js';

export interface LmdbOptions {
  /**
   * Resolve writes only once LMDB reports the commit flushed to disk (fsync), so an acknowledged
   * write also survives power loss. Off by default: a committed write already survives a process
   * crash, and flushing every write costs a disk sync per commit.
   */
  flushEachWrite?: boolean;
}

export class LmdbStore implements Store {
  readonly persistent = true;
  private closing: Promise<void> | undefined;
  private revision = 0;
  /** Events, and their index (built from the heads on first use, so never in a shard's worker). */
  private readonly tournaments: TournamentTable;

  private constructor(
    /** The data directory, for messages and backups. */
    readonly dir: string,
    private readonly root: Root,
    private readonly db: Dbs,
    private readonly flushEachWrite: boolean,
    /** Held from open to close: one server per directory (dir-lock.ts). */
    private readonly lock: DirLock,
  ) {
    this.tournaments = new TournamentTable(tournamentKv(db, (body) => this.write(body)), true);
  }

  /**
   * Opens a data directory another thread of this process has opened (and locked, and checked) with
   * `open`: a shard's worker thread writes its games into the same environment.
   */
  static attach(dir: string, opts: LmdbOptions = {}): Result<LmdbStore, string> {
    let root: Root;
    try {
      root = openRoot(dir);
    } catch (e) {
      return err(`cannot open data directory ${dir}: ${messageOf(e)}`);
    }
    // The opener holds the directory's lock; this handle only shares its environment.
    return ok(new LmdbStore(dir, root, openDbs(root), opts.flushEachWrite === true, { release: () => {} }));
  }

  /**
   * Opens (creating if needed) the data directory. Expected failures — unusable path, a directory
   * written by a newer schema — are returned as values; the environment is closed again on failure.
   */
  static async open(dir: string, opts: LmdbOptions = {}): Promise<Result<LmdbStore, string>> {
    let root: Root;
    try {
      mkdirSync(dir, { recursive: true });
    } catch (e) {
      return err(`cannot open data directory ${dir}: ${messageOf(e)}`);
    }
    const locked = lockDataDir(dir);
    if (!locked.ok) return locked;
    const lock = locked.value;
    try {
      root = openRoot(dir);
    } catch (e) {
      lock.release();
      return err(`cannot open data directory ${dir}: ${messageOf(e)}`);
    }
    const db = openDbs(root);
    const schema = await checkSchema(dir, root, db);
    if (!schema.ok) {
      await root.close();
      lock.release();
      return schema;
    }
    await buildProvisionalIndex(root, db);
    return ok(new LmdbStore(dir, root, db, opts.flushEachWrite === true, lock));
  }

  getBot(id: string): BotRecord | undefined {
    return bots.getBot(this.db, id);
  }

  getBotByTokenHash(tokenHash: string): BotRecord | undefined {
    return bots.getBotByTokenHash(this.db, tokenHash);
  }

  async createBot(bot: BotRecord): Promise<boolean> {
    return this.write(() => bots.insertBot(this.db, bot)).finally(() => this.revision++);
  }

  async updateBot(bot: BotRecord): Promise<void> {
    const found = await this.write(() => bots.replaceBot(this.db, bot)).finally(() => this.revision++);
    // Updating a bot that was never created is a caller bug; creation goes through createBot.
    if (!found) throw new Error(`updateBot: no bot ${bot.id} (create it first)`);
  }

  async modifyBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | undefined> {
    return this.write(() => bots.changeBot(this.db, id, change)).finally(() => this.revision++);
  }

  botsRevision(): number {
    return this.revision;
  }

  listBots(): BotRecord[] {
    return bots.listBots(this.db);
  }

  async putGame(game: GameRecord): Promise<void> {
    await this.write(() => games.storeGame(this.db, game));
  }

  getGame(id: string): GameRecord | undefined {
    return games.getGame(this.db, id);
  }

  listLiveGames(): GameRecord[] {
    return games.listLiveGames(this.db);
  }

  async finishGame(game: GameRecord, results: ResultRecord[]): Promise<void> {
    assertFinishable(game.id, 'Active' in game.status, results);
    await this.write(() => games.storeFinishedGame(this.db, game, results));
  }

  resultsOf(botId: string, limit: number): ResultRecord[] {
    return games.resultsOf(this.db, botId, limit);
  }

  allResults(): ResultRecord[] {
    return games.allResults(this.db);
  }

  pendingRatings(limit: number): PendingRating[] {
    return ratings.pendingRatings(this.db, limit);
  }

  async applyRatingBatch(batch: RatingBatch): Promise<boolean> {
    return this.write(() => ratings.applyBatch(this.db, batch)).finally(() => this.revision++);
  }

  ladderStats(botId: string): LadderStats {
    return ratings.ladderStats(this.db, botId);
  }

  ratingHistory(botId: string): RatingPoint[] {
    return ratings.ratingHistory(this.db, botId);
  }

  leaderboard(offset: number, limit: number): { total: number; bots: BotRecord[] } {
    return ratings.botPage(this.db, this.db.leaderboard, offset, limit);
  }

  provisional(offset: number, limit: number): { total: number; bots: BotRecord[] } {
    return ratings.botPage(this.db, this.db.provisional, offset, limit);
  }

  webhookDelivered(gameId: string): number | undefined {
    return webhooks.webhookDelivered(this.db, gameId);
  }

  async markWebhookDelivered(gameId: string, ply: number): Promise<void> {
    await this.write(() => webhooks.markDelivered(this.db, gameId, ply));
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

  /**
   * Copies a consistent snapshot of the environment into `targetDir` (created if missing) while
   * the server keeps running; the copy opens like any data directory.
   */
  async backup(targetDir: string, compact = false): Promise<Result<void, string>> {
    try {
      mkdirSync(targetDir, { recursive: true });
      await this.root.backup(targetDir, compact);
      return ok(undefined);
    } catch (e) {
      return err(`backup of ${this.dir} to ${targetDir} failed: ${messageOf(e)}`);
    }
  }

  /** Idempotent, so shutdown paths and test teardowns may both call it. */
  async close(): Promise<void> {
    if (this.closing) return this.closing;
    // The lock goes only once the environment is closed, so a successor never shares it.
    this.closing = this.root.close().finally(() => this.lock.release());
    return this.closing;
  }

  /**
   * Runs `body` in a child transaction (all or nothing; a throw rolls it back and rejects), then,
   * when configured, waits until the commit is on disk.
   */
  private async write<T>(body: () => T): Promise<T> {
    const value = await this.root.childTransaction(body);
    if (this.flushEachWrite) await this.root.flushed;
    return value;
  }
}
