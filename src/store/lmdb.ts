// The durable store: one LMDB environment (the configured `dataDir`) with named sub-databases.
// Values are msgpack (lmdb-js's default encoding); keys are lmdb's ordered-binary, so composite array
// keys sort element by element and a bot's results are one range read.
//
// Atomicity: every multi-entry write runs in a child transaction, which LMDB commits or rolls back
// as a whole, and which can see the writes made before it, so check-then-write steps (createBot)
// cannot race. Durability: see docs/STORAGE.md; by default an awaited write has been committed
// (survives kill -9); with `flushEachWrite` it has also been fsynced (survives power loss).
import { mkdirSync } from 'node:fs';
import { open } from 'lmdb';
import { SCHEMA_VERSION } from '../domain/records.js';
import type { BotRecord, GameRecord, ResultRecord } from '../domain/records.js';
import type { EventRecord } from '../domain/events.js';
import type { LadderStats, PendingRating, RatingBatch, RatingPoint } from '../domain/ratings.js';
import { NO_STATS, RATING_HISTORY_MAX, addStats, isListed, isProvisional, pendingRatingOf } from '../domain/ratings.js';
import type { HistoryEntry } from '../domain/types.js';
import { err, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import type { Store } from './types.js';
import { assertFinishable, assertReadable, newerDirectoryMessage } from './schema.js';
import { lockDataDir, type DirLock } from './dir-lock.js';

/** Sub-database names; exported so tests and tools can inspect a directory without the store. */
export const DB_NAMES = {
  bots: 'bots',
  tokenIndex: 'tokenIndex',
  games: 'games',
  liveIndex: 'liveIndex',
  /** A game's history, one entry per key [gameId, index]: a write appends only the new turns. */
  turns: 'turns',
  results: 'results',
  meta: 'meta',
  /** Rated games ended and not yet rated: gameId → PendingRating. */
  pendingRatings: 'pendingRatings',
  /** Games a batch has rated: gameId → batch time (so a game is never rated twice). */
  ratedGames: 'ratedGames',
  /** botId → counts of rated games and how many history points the bot has. */
  ladderStats: 'ladderStats',
  /** [botId, at] → {rating, rd}: the bot's rating after each batch. */
  ratingHistory: 'ratingHistory',
  /** [-rating, rd, name, team] → botId for listed bots: the leaderboard, in order. */
  leaderboard: 'leaderboard',
  /** The same key → botId for provisional bots on the ladder (deviation above 110). */
  provisional: 'provisional',
  /** gameId → ply of the latest roll whose webhook delivery finished (live games only). */
  webhookDeliveries: 'webhookDeliveries',
  /** eventId → EventRecord. */
  events: 'events',
} as const;
/** Key in `meta` holding the schema version the directory was written with. */
export const META_SCHEMA_KEY = 'schema';
/** Key in `meta` set once the provisional index has been built from the bot records. */
export const META_PROVISIONAL_KEY = 'provisionalIndex';

export interface LmdbOptions {
  /**
   * Resolve writes only once LMDB reports the commit flushed to disk (fsync), so an acknowledged
   * write also survives power loss. Off by default: a committed write already survives a process
   * crash, and flushing every write costs a disk sync per commit.
   */
  flushEachWrite?: boolean;
}

type Root = ReturnType<typeof open>;
type Db = ReturnType<Root['openDB']>;
type Dbs = Record<keyof typeof DB_NAMES, Db>;

/** Result keys hold MAX - finishedAt so ascending key order is newest first. */
const TIME_CEILING = Number.MAX_SAFE_INTEGER;
type ResultKey = [botId: string, invertedTime: number, gameId: string];
const resultKey = (r: ResultRecord): ResultKey => [r.botId, TIME_CEILING - r.finishedAt, r.gameId];

/** Result lines have no `schema` of their own in the domain type; on disk they carry one. */
type StoredResult = ResultRecord & { schema: number };
const fromStored = (s: StoredResult): ResultRecord => {
  assertReadable('result line', `${s.botId}/${s.gameId}`, s);
  const { schema: _schema, ...line } = s;
  return line;
};

/**
 * LMDB keys are limited in size (lmdb-js refuses strings past about 4 KB). No stored key comes
 * near it, so an oversized lookup key simply names nothing rather than throwing.
 */
const MAX_KEY_BYTES = 1024;
const keyFits = (key: string): boolean => key.length <= MAX_KEY_BYTES && Buffer.byteLength(key) <= MAX_KEY_BYTES;

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * On disk a game record holds the length of its history instead of the history itself; the turns
 * live in `turns`. History only ever grows, so each write of a live game (several per turn) adds the
 * new entries instead of re-encoding every turn so far: a long game costs O(turns) bytes, not O(turns²).
 */
type StoredGame = Omit<GameRecord, 'history'> & { historyLength: number };

type StoredStats = LadderStats & { points: number };
type LeaderKey = [negRating: number, rd: number, name: string, team: string];
const leaderKey = (b: BotRecord): LeaderKey => [-b.rating.rating, b.rating.rd, b.name, b.team];
const sameRating = (a: BotRecord['rating'], b: BotRecord['rating']): boolean =>
  a.rating === b.rating && a.rd === b.rd && a.volatility === b.volatility;

export class LmdbStore implements Store {
  readonly persistent = true;
  private closing: Promise<void> | undefined;
  private revision = 0;

  private constructor(
    /** The data directory, for messages and backups. */
    readonly dir: string,
    private readonly root: Root,
    private readonly db: Dbs,
    private readonly flushEachWrite: boolean,
    /** Held from open to close: one server per directory (dir-lock.ts). */
    private readonly lock: DirLock,
  ) {}

  /**
   * Opens a data directory another thread of this process has opened (and locked, and checked) with
   * `open`: a shard's worker thread writes its games into the same environment.
   */
  static attach(dir: string, opts: LmdbOptions = {}): Result<LmdbStore, string> {
    let root: Root;
    try {
      root = open({ path: dir, maxDbs: 16, noSubdir: false });
    } catch (e) {
      return err(`cannot open data directory ${dir}: ${messageOf(e)}`);
    }
    const db = Object.fromEntries(Object.entries(DB_NAMES).map(([k, n]) => [k, root.openDB({ name: n })])) as unknown as Dbs;
    // The opener holds the directory's lock; this handle only shares its environment.
    return ok(new LmdbStore(dir, root, db, opts.flushEachWrite === true, { release: () => {} }));
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
      // noSubdir false: a directory named like "data.v1" must not be taken for a single file.
      root = open({ path: dir, maxDbs: 16, noSubdir: false });
    } catch (e) {
      lock.release();
      return err(`cannot open data directory ${dir}: ${messageOf(e)}`);
    }
    const name = (n: string): Db => root.openDB({ name: n });
    const db: Dbs = {
      bots: name(DB_NAMES.bots),
      tokenIndex: name(DB_NAMES.tokenIndex),
      games: name(DB_NAMES.games),
      liveIndex: name(DB_NAMES.liveIndex),
      turns: name(DB_NAMES.turns),
      results: name(DB_NAMES.results),
      meta: name(DB_NAMES.meta),
      pendingRatings: name(DB_NAMES.pendingRatings),
      ratedGames: name(DB_NAMES.ratedGames),
      ladderStats: name(DB_NAMES.ladderStats),
      ratingHistory: name(DB_NAMES.ratingHistory),
      leaderboard: name(DB_NAMES.leaderboard),
      provisional: name(DB_NAMES.provisional),
      webhookDeliveries: name(DB_NAMES.webhookDeliveries),
      events: name(DB_NAMES.events),
    };
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
    if (!keyFits(id)) return undefined;
    const bot = this.db.bots.get(id) as BotRecord | undefined;
    return bot && assertReadable('bot', id, bot);
  }

  getBotByTokenHash(tokenHash: string): BotRecord | undefined {
    if (!keyFits(tokenHash)) return undefined;
    const id = this.db.tokenIndex.get(tokenHash) as string | undefined;
    if (id === undefined) return undefined;
    const bot = this.getBot(id);
    // The index is kept exact; the comparison guards against ever authenticating with a stale hash.
    return bot && bot.tokenHash === tokenHash ? bot : undefined;
  }

  async createBot(bot: BotRecord): Promise<boolean> {
    const { bots, tokenIndex } = this.db;
    return this.write(() => {
      if (bots.doesExist(bot.id)) return false;
      bots.putSync(bot.id, bot);
      tokenIndex.putSync(bot.tokenHash, bot.id);
      this.reindex(undefined, bot);
      return true;
    }).finally(() => this.revision++);
  }

  async updateBot(bot: BotRecord): Promise<void> {
    const { bots, tokenIndex } = this.db;
    const found = await this.write(() => {
      const old = bots.get(bot.id) as BotRecord | undefined;
      if (!old) return false;
      // In one transaction the old hash stops resolving exactly when the new one starts.
      if (old.tokenHash !== bot.tokenHash && tokenIndex.get(old.tokenHash) === bot.id) {
        tokenIndex.removeSync(old.tokenHash);
      }
      tokenIndex.putSync(bot.tokenHash, bot.id);
      bots.putSync(bot.id, bot);
      this.reindex(old, bot);
      return true;
    }).finally(() => this.revision++);
    // Updating a bot that was never created is a caller bug; creation goes through createBot.
    if (!found) throw new Error(`updateBot: no bot ${bot.id} (create it first)`);
  }

  async modifyBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | undefined> {
    const { bots, tokenIndex } = this.db;
    return this.write(() => {
      const old = bots.get(id) as BotRecord | undefined;
      if (!old) return undefined;
      const next = change(assertReadable('bot', id, old));
      if (!next) return old;
      if (next.id !== id) throw new Error(`modifyBot(${id}): the change returned bot ${next.id}`);
      if (old.tokenHash !== next.tokenHash && tokenIndex.get(old.tokenHash) === id) tokenIndex.removeSync(old.tokenHash);
      tokenIndex.putSync(next.tokenHash, id);
      bots.putSync(id, next);
      this.reindex(old, next);
      return next;
    }).finally(() => this.revision++);
  }

  botsRevision(): number {
    return this.revision;
  }

  /** Inside a write: keeps the leaderboard and provisional indexes exact as a bot record changes. */
  private reindex(old: BotRecord | undefined, next: BotRecord): void {
    const { leaderboard, provisional } = this.db;
    if (old && isListed(old)) leaderboard.removeSync(leaderKey(old));
    if (old && isProvisional(old)) provisional.removeSync(leaderKey(old));
    if (isListed(next)) leaderboard.putSync(leaderKey(next), next.id);
    if (isProvisional(next)) provisional.putSync(leaderKey(next), next.id);
  }

  listBots(): BotRecord[] {
    return [...this.db.bots.getRange()].map(({ key, value }) => assertReadable('bot', String(key), value as BotRecord));
  }

  async putGame(game: GameRecord): Promise<void> {
    const { liveIndex } = this.db;
    await this.write(() => {
      this.writeGame(game);
      if ('Active' in game.status) liveIndex.putSync(game.id, true);
      else liveIndex.removeSync(game.id);
    });
  }

  getGame(id: string): GameRecord | undefined {
    if (!keyFits(id)) return undefined;
    const stored = this.db.games.get(id) as StoredGame | undefined;
    if (!stored) return undefined;
    assertReadable('game', id, stored);
    const { historyLength, ...rest } = stored;
    const history = [...this.db.turns.getRange({ start: [id, 0], end: [id, historyLength] })].map(
      ({ value }) => value as HistoryEntry,
    );
    if (history.length !== historyLength) throw new Error(`game ${id}: ${history.length} of ${historyLength} turns stored`);
    return { ...rest, history };
  }

  /** Inside a write transaction: the record without its history, plus the turns not yet stored. */
  private writeGame(game: GameRecord): void {
    const { games, turns } = this.db;
    const before = games.get(game.id) as StoredGame | undefined;
    let from = before ? before.historyLength : 0;
    // History is append-only; a shorter one (never written by the actors) is rewritten whole.
    if (from > game.history.length) {
      for (let i = game.history.length; i < from; i++) turns.removeSync([game.id, i]);
      from = 0;
    }
    for (let i = from; i < game.history.length; i++) turns.putSync([game.id, i], game.history[i]);
    const { history, ...rest } = game;
    const stored: StoredGame = { ...rest, historyLength: history.length };
    games.putSync(game.id, stored);
  }

  listLiveGames(): GameRecord[] {
    return [...this.db.liveIndex.getKeys()].flatMap((key) => {
      const game = this.getGame(String(key));
      return game ? [game] : [];
    });
  }

  async finishGame(game: GameRecord, results: ResultRecord[]): Promise<void> {
    assertFinishable(game.id, 'Active' in game.status, results);
    const { liveIndex, results: lines, pendingRatings, ratedGames } = this.db;
    const pending = pendingRatingOf(game);
    await this.write(() => {
      this.writeGame(game);
      liveIndex.removeSync(game.id);
      this.db.webhookDeliveries.removeSync(game.id);
      for (const line of results) {
        const stored: StoredResult = { ...line, schema: SCHEMA_VERSION };
        lines.putSync(resultKey(line), stored);
      }
      if (pending && !ratedGames.doesExist(game.id)) pendingRatings.putSync(game.id, pending);
    });
  }

  resultsOf(botId: string, limit: number): ResultRecord[] {
    if (limit <= 0) return [];
    const range = this.db.results.getRange({ start: [botId, 0], end: [botId, TIME_CEILING + 1], limit });
    return [...range].map(({ value }) => fromStored(value as StoredResult));
  }

  allResults(): ResultRecord[] {
    return [...this.db.results.getRange()].map(({ value }) => fromStored(value as StoredResult));
  }

  pendingRatings(limit: number): PendingRating[] {
    if (limit <= 0) return [];
    // The set holds about one batch interval of games, so reading and ordering it whole is cheap.
    const all = [...this.db.pendingRatings.getRange()].map(({ value }) => value as PendingRating);
    all.sort((a, b) => a.finishedAt - b.finishedAt || (a.gameId < b.gameId ? -1 : a.gameId > b.gameId ? 1 : 0));
    return all.slice(0, limit);
  }

  async applyRatingBatch(batch: RatingBatch): Promise<boolean> {
    const { bots, pendingRatings, ratedGames, ladderStats, ratingHistory } = this.db;
    return this.write(() => {
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
        this.reindex(bot, next);
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
    }).finally(() => this.revision++);
  }

  ladderStats(botId: string): LadderStats {
    if (!keyFits(botId)) return { ...NO_STATS };
    const s = this.db.ladderStats.get(botId) as StoredStats | undefined;
    return s ? { games: s.games, wins: s.wins, draws: s.draws, losses: s.losses } : { ...NO_STATS };
  }

  ratingHistory(botId: string): RatingPoint[] {
    if (!keyFits(botId)) return [];
    const range = this.db.ratingHistory.getRange({ start: [botId, 0], end: [botId, TIME_CEILING] });
    return [...range].map(({ key, value }) => {
      const v = value as { rating: number; rd: number };
      return { at: (key as [string, number])[1], rating: v.rating, rd: v.rd };
    });
  }

  leaderboard(offset: number, limit: number): { total: number; bots: BotRecord[] } {
    return this.page(this.db.leaderboard, offset, limit);
  }

  provisional(offset: number, limit: number): { total: number; bots: BotRecord[] } {
    return this.page(this.db.provisional, offset, limit);
  }

  /** One page of an index whose values are bot ids, and the index's size. */
  private page(index: Db, offset: number, limit: number): { total: number; bots: BotRecord[] } {
    const total = index.getCount();
    if (limit <= 0) return { total, bots: [] };
    const bots = [...index.getRange({ offset: Math.max(0, offset), limit })].flatMap(({ value }) => {
      const bot = this.getBot(value as string);
      return bot ? [bot] : [];
    });
    return { total, bots };
  }

  webhookDelivered(gameId: string): number | undefined {
    if (!keyFits(gameId)) return undefined;
    return this.db.webhookDeliveries.get(gameId) as number | undefined;
  }

  async putEvent(event: EventRecord): Promise<void> {
    await this.write(() => this.db.events.putSync(event.id, event));
  }

  getEvent(id: string): EventRecord | undefined {
    if (!keyFits(id)) return undefined;
    const rec = this.db.events.get(id) as EventRecord | undefined;
    return rec && assertReadable('event', id, rec);
  }

  listEvents(): EventRecord[] {
    return [...this.db.events.getRange()]
      .map(({ value }) => assertReadable('event', (value as EventRecord).id, value as EventRecord))
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async markWebhookDelivered(gameId: string, ply: number): Promise<void> {
    await this.write(() => {
      // A game that finished meanwhile keeps no marker.
      if (this.db.liveIndex.doesExist(gameId)) this.db.webhookDeliveries.putSync(gameId, ply);
    });
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

/**
 * Directories written before the provisional index existed hold bots but not the index: it is built
 * once, from every bot record, in one transaction, and marked done in `meta`.
 */
async function buildProvisionalIndex(root: Root, db: Dbs): Promise<void> {
  if (db.meta.get(META_PROVISIONAL_KEY) !== undefined) return;
  await root.childTransaction(() => {
    for (const { value } of db.bots.getRange()) {
      const bot = value as BotRecord;
      if (isProvisional(bot)) db.provisional.putSync(leaderKey(bot), bot.id);
    }
    db.meta.putSync(META_PROVISIONAL_KEY, true);
  });
}

/** Stamps a fresh directory with our schema; refuses one from a newer (or unknown older) server. */
async function checkSchema(dir: string, root: Root, db: Dbs): Promise<Result<void, string>> {
  let found: unknown;
  try {
    found = db.meta.get(META_SCHEMA_KEY);
  } catch (e) {
    return err(`data directory ${dir}: cannot read its schema version: ${messageOf(e)}`);
  }
  if (found === undefined) {
    const empty = [db.bots, db.games, db.results].every((d) => d.getKeysCount({ limit: 1 }) === 0);
    // Records without a version stamp come from something we do not know; do not guess.
    if (!empty) return err(`data directory ${dir} holds records but no schema version; refusing to read it`);
    await root.childTransaction(() => db.meta.putSync(META_SCHEMA_KEY, SCHEMA_VERSION));
    return ok(undefined);
  }
  if (typeof found !== 'number' || !Number.isInteger(found)) {
    return err(`data directory ${dir} has an unreadable schema version (${JSON.stringify(found)})`);
  }
  if (found > SCHEMA_VERSION) return err(newerDirectoryMessage(dir, found));
  // No older schema has ever shipped; when one is retired, its migration goes here.
  if (found < SCHEMA_VERSION) return err(`data directory ${dir} was written by schema ${found}, which this server cannot migrate`);
  return ok(undefined);
}
