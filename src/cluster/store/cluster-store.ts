// The Store of a cluster node: everything the LMDB store keeps (games, results, ratings, webhook marks,
// events; the bots through KvBotStore, bots.ts), kept in replicated key-value buckets and read
// synchronously from an in-memory copy of them (bucket-copy.ts).
// Invariant: where LMDB has one transaction this makes several writes, ordered so that every crash
// point is safe and every repeat harmless. finishGame stores the final head LAST (after the turns, the
// result lines, the pending-rating create and the queued result): a game never ends without reaching
// the ratings, and is never rated twice.
// Keys: e.<event> an event's head, f.* its pairs, q.* its queue's chunks (tournaments.ts).
// Key layout and crash cases: (docs/CLUSTER.md, "The rest of the store across nodes").
import type { NatsConnection } from '@nats-io/transport-node';
import type { KV } from '@nats-io/kv';
import { openBucket } from '../transport/nats.js';
import { codec } from '../../domain/codec.js';
import { SCHEMA_VERSION } from '../../domain/records.js';
import type { BotRecord, GameRecord, ResultRecord } from '../../domain/records.js';
import type { TournamentHead, TournamentListing, TournamentRecord } from '../../domain/tournaments.js';
import type { LadderStats, PendingRating, RatingBatch, RatingPoint } from '../../domain/ratings.js';
import { NO_STATS, isListed, isProvisional, leaderboardOrder, pendingRatingOf } from '../../domain/ratings.js';
import type { Clock } from '../../domain/clock.js';
import { systemClock } from '../../domain/clock.js';
import type { Store } from '../../store/types.js';
import { assertFinishable, liveGamesOf, newestFirstIndex } from '../../store/schema.js';
import { KvBotStore, TICKET_TTL_MS } from './bots.js';
import { BucketCopy, retryTransient, type Change } from './bucket-copy.js';
import { RatingApplier, type RatingState, type StoredStats } from './ratings.js';
import { clusterTournaments, tournamentChanged } from './tournaments.js';
import { FinishedGames, type FinishedCacheBounds } from './finished-games.js';
import { CHUNK, assembleGame, keys, readGame, unb64, type StoredHead } from './game-keys.js';

/** The stored-record codec, under the names the store's code and tests use. */
export const { encode, decode } = codec.records;

export { CHUNK, keys } from './game-keys.js';

interface StoredResults {
  schema: number;
  lines: ResultRecord[];
}
interface Line {
  finishedAt: number;
  gameId: string;
  line: ResultRecord;
}

export interface ClusterStoreOptions {
  /** Copies of each bucket the cluster keeps (1, 3 or 5). */
  replicas: number;
  clock?: Clock;
  /** Prefix of the bucket names (default `dc_`), so that tests can keep stores apart. */
  prefix?: string;
  /** Timeout of each bucket request (ms). */
  timeoutMs?: number;
  /** Where a finished rated game's result goes for the rater (the cluster's results queue). */
  results?: ResultsPublisher;
  /** Bounds of the cache of finished games read on demand (`cluster.finishedCache`; finished-games.ts). */
  finishedCache?: FinishedCacheBounds;
}

export type ResultsPublisher = { publish(gameId: string, data: Uint8Array): Promise<unknown> };
/** A rated game's rating state, and whether this node's replica has it yet. */
export type RatingStateSeen = RatingState & { inReplica: boolean };

/**
 * Opens (creating on first use) a bucket whose single-key reads go to its stream's leader. By default
 * the client reads a key from whichever server answers first ("direct get"), which may be a replica
 * that has not yet stored the latest write: a read-modify-write could then compute from an old value
 * and decide there is nothing to do (a compare-and-set only catches the writes it sends). Read from
 * the leader, a key is at least as new as every write already acknowledged.
 */
export function openLeaderBucket(nc: NatsConnection, name: string, replicas: number, ttlMs: number, timeoutMs: number): Promise<KV> {
  return openBucket(nc, { bucket: name, replicas, ttlMs, timeoutMs }); // openBucket turns direct gets off
}

export class ClusterStore implements Store {
  readonly persistent = true;
  private readonly live = new Set<string>();
  /** botId → result lines, newest first (derived from the r.* keys). */
  private readonly lines = new Map<string, Line[]>();
  private readonly pending = new Map<string, PendingRating>();
  private statsRevision = 0;
  private listed: { rev: number; listed: string[]; provisional: string[] } | undefined;
  private store!: BucketCopy;
  /** Ended games, read from the bucket on demand: the replica forgets their heads and turns. */
  private finished!: FinishedGames;
  private readonly ratings: RatingApplier;
  private readonly events = clusterTournaments(() => this.store);

  private constructor(
    private readonly bots: KvBotStore,
    tickets: KV,
    clock: Clock,
    private readonly results: ResultsPublisher | undefined,
  ) {
    this.ratings = new RatingApplier({
      bots,
      tickets,
      clock,
      replica: () => this.store,
      pending: this.pending,
      statsKey: keys.stats,
      ratingKey: keys.rating,
    });
  }

  /** Opens (creating on first use) the buckets and loads their replicas. */
  static async open(nc: NatsConnection, o: ClusterStoreOptions): Promise<ClusterStore> {
    const prefix = o.prefix ?? 'dc_';
    const bucket = (name: string, ttlMs = 0) => openLeaderBucket(nc, `${prefix}${name}`, o.replicas, ttlMs, o.timeoutMs ?? 5000);
    const clock = o.clock ?? systemClock;
    const [tickets, botsKv, storeKv] = await Promise.all([bucket('tickets', TICKET_TTL_MS), bucket('bots'), bucket('store')]);
    const bots = await KvBotStore.open(botsKv, tickets, { clock });
    const s = new ClusterStore(bots, tickets, clock, o.results);
    s.finished = new FinishedGames(storeKv, (id, get) => readGame(id, get), o.finishedCache, clock);
    try {
      s.store = await BucketCopy.open(storeKv, (c) => s.derive(c), ['j'], { clock }, (copy) => (s.store = copy));
    } catch (e) {
      bots.close();
      throw e;
    }
    return s;
  }

  /** Keeps the derived indexes (live set, lines per bot, pending ratings) in step with the replica. */
  private derive(c: Change): void {
    if (tournamentChanged(this.events, c)) return;
    const dot = c.key.indexOf('.');
    const kind = c.key.slice(0, dot);
    const rest = c.key.slice(dot + 1);
    if (kind === 'g') {
      const id = unb64(rest);
      this.finished.drop(id);
      const head = c.after && decode<StoredHead>(c.after);
      if (head && head.status && typeof head.status === 'object' && 'Active' in head.status) this.live.add(id);
      else {
        this.live.delete(id);
        // An ended game is read on demand (finished-games.ts): its head and turns leave the replica,
        // whose memory then follows the live games. Its turns always come before its final head.
        if (head) this.forgetGame(c.key, id, head.historyLength);
      }
    } else if (kind === 'r') {
      const gameId = unb64(rest);
      if (c.before) for (const l of decode<StoredResults>(c.before).lines) this.dropLine(l.botId, gameId);
      if (c.after) for (const l of decode<StoredResults>(c.after).lines) this.insertLine(l);
    } else if (kind === 'p') {
      const gameId = unb64(rest);
      const st = c.after && decode<RatingState>(c.after);
      if (st && st.state === 'pending') this.pending.set(gameId, st.game);
      else this.pending.delete(gameId);
    } else if (kind === 's') {
      this.statsRevision++;
    }
  }

  private forgetGame(headKey: string, id: string, historyLength: number): void {
    this.store.forget(headKey);
    for (let k = 0; k < Math.floor(historyLength / CHUNK); k++) this.store.forget(keys.chunk(id, k));
  }

  private dropLine(botId: string, gameId: string): void {
    const list = this.lines.get(botId);
    if (!list) return;
    const kept = list.filter((l) => l.gameId !== gameId);
    if (kept.length) this.lines.set(botId, kept);
    else this.lines.delete(botId);
  }

  private insertLine(line: ResultRecord): void {
    let list = this.lines.get(line.botId);
    if (!list) this.lines.set(line.botId, (list = []));
    const item: Line = { finishedAt: line.finishedAt, gameId: line.gameId, line };
    list.splice(newestFirstIndex(list, item), 0, item);
  }

  // ---- bots (KvBotStore) ----

  getBot(id: string): BotRecord | undefined {
    return this.bots.getBot(id);
  }

  getBotByTokenHash(tokenHash: string): BotRecord | undefined {
    return this.bots.getBotByTokenHash(tokenHash);
  }

  createBot(bot: BotRecord): Promise<boolean> {
    return this.bots.createBot(bot);
  }

  async updateBot(bot: BotRecord): Promise<void> {
    const done = await this.bots.modifyBot(bot.id, () => bot);
    if (!done) throw new Error(`updateBot: no bot ${bot.id} (create it first)`);
  }

  listBots(): BotRecord[] {
    return this.bots.listBots();
  }

  modifyBot(id: string, change: (bot: BotRecord) => BotRecord | null): Promise<BotRecord | undefined> {
    return this.bots.modifyBot(id, (b) => {
      const next = change(b);
      if (next && next.id !== id) throw new Error(`modifyBot(${id}): the change returned bot ${next.id}`);
      return next;
    });
  }

  botsRevision(): number {
    return this.bots.botsRevision() + this.statsRevision;
  }

  // ---- games ----

  async putGame(game: GameRecord): Promise<void> {
    // A late write of an older version (a fenced owner's, a retry overtaken) never replaces a newer one;
    // an ended head is not in the replica: it is read from the bucket's leader.
    const cur = this.store.get(keys.head(game.id)) ?? (await this.headFromBucket(game.id));
    if (cur && decode<StoredHead>(cur).version > game.version) return;
    await this.writeGame(game);
  }

  /** The turns not yet stored as full chunks, then the head. */
  private async writeGame(game: GameRecord): Promise<void> {
    const { history, ...rest } = game;
    const full = Math.floor(history.length / CHUNK);
    const missing: number[] = [];
    for (let k = 0; k < full; k++) if (!this.store.has(keys.chunk(game.id, k))) missing.push(k);
    await Promise.all(missing.map((k) => this.store.put(keys.chunk(game.id, k), encode(history.slice(k * CHUNK, (k + 1) * CHUNK)))));
    const head: StoredHead = { ...rest, historyLength: history.length, tail: history.slice(full * CHUNK) };
    await this.store.put(keys.head(game.id), encode(head));
    this.finished.keep(game); // after the put: applying the head dropped any older copy
  }

  /**
   * A live game from the replica; an ended one only from the cache of finished games, which `loadGame`
   * fills (the cluster's game gate awaits it before a route reads the game).
   */
  getGame(id: string): GameRecord | undefined {
    const bytes = id ? this.store.get(keys.head(id)) : undefined;
    if (!bytes) return id ? this.finished.get(id) : undefined;
    return assembleGame(id, bytes, (k) => this.store.get(keys.chunk(id, k)));
  }

  /** Any game, ended ones read from the bucket when not cached (then cached, within `finishedCache`). */
  async loadGame(id: string): Promise<GameRecord | undefined> {
    if (!id) return undefined;
    return this.getGame(id) ?? this.finished.load(id);
  }

  /** The replica's keys and bytes, and the finished games cached (tests, memory checks). */
  memoryUse(): { replica: { keys: number; bytes: number }; finished: { records: number; bytes: number } } {
    return { replica: this.store.heldUse(), finished: this.finished.use() };
  }

  private async headFromBucket(id: string): Promise<Uint8Array | undefined> {
    const e = await retryTransient(() => this.store.kv.get(keys.head(id)));
    return e?.operation === 'PUT' ? e.value : undefined;
  }

  listLiveGames(): GameRecord[] {
    return liveGamesOf(this.live, (id) => this.getGame(id));
  }

  async finishGame(game: GameRecord, results: ResultRecord[]): Promise<void> {
    assertFinishable(game.id, 'Active' in game.status, results);
    const lines = encode({ schema: SCHEMA_VERSION, lines: results } satisfies StoredResults);
    const { history } = game;
    const full = Math.floor(history.length / CHUNK);
    for (let k = 0; k < full; k++) {
      if (!this.store.has(keys.chunk(game.id, k))) await this.store.put(keys.chunk(game.id, k), encode(history.slice(k * CHUNK, (k + 1) * CHUNK)));
    }
    await this.store.put(keys.results(game.id), lines);
    const pending = pendingRatingOf(game);
    if (pending && !this.store.has(keys.rating(game.id))) {
      await this.store.create(keys.rating(game.id), encode({ state: 'pending', game: pending } satisfies RatingState));
    }
    if (pending && this.results && this.pending.has(game.id)) await this.results.publish(game.id, encode(pending));
    await this.writeGame(game);
    if (this.store.has(keys.webhook(game.id))) await this.store.delete(keys.webhook(game.id));
  }

  resultsOf(botId: string, limit: number): ResultRecord[] {
    return (this.lines.get(botId) ?? []).slice(0, Math.max(0, limit)).map((l) => ({ ...l.line }));
  }

  allResults(): ResultRecord[] {
    return [...this.lines.keys()].sort().flatMap((id) => this.resultsOf(id, Infinity));
  }

  // ---- ratings (ratings.ts) ----

  pendingRatings(limit: number): PendingRating[] {
    return [...this.pending.values()]
      .sort((a, b) => a.finishedAt - b.finishedAt || (a.gameId < b.gameId ? -1 : a.gameId > b.gameId ? 1 : 0))
      .slice(0, Math.max(0, limit))
      .map((p) => ({ ...p }));
  }

  applyRatingBatch(batch: RatingBatch): Promise<boolean> {
    return this.ratings.apply(batch);
  }

  /** Completes any rating batch a dead node left half-applied (in turn with this node's own). */
  settleRatingJournals(): Promise<void> {
    return this.ratings.settle();
  }

  /** A game's rating state from the replica, else from the bucket's leader; undefined if never pending. */
  async ratingStateOf(gameId: string): Promise<RatingStateSeen | undefined> {
    const bytes = this.store.get(keys.rating(gameId));
    if (bytes) return { ...decode<RatingState>(bytes), inReplica: true };
    const e = await this.store.kv.get(keys.rating(gameId));
    return e?.operation === 'PUT' ? { ...decode<RatingState>(e.value), inReplica: false } : undefined;
  }

  ladderStats(botId: string): LadderStats {
    const bytes = botId ? this.store.get(keys.stats(botId)) : undefined;
    if (!bytes) return { ...NO_STATS };
    const s = decode<StoredStats>(bytes);
    return { games: s.games, wins: s.wins, draws: s.draws, losses: s.losses };
  }

  ratingHistory(botId: string): RatingPoint[] {
    const bytes = botId ? this.store.get(keys.stats(botId)) : undefined;
    return bytes ? decode<StoredStats>(bytes).points : [];
  }

  leaderboard(offset: number, limit: number): { total: number; bots: BotRecord[] } {
    return this.page(this.ranked().listed, offset, limit);
  }

  provisional(offset: number, limit: number): { total: number; bots: BotRecord[] } {
    return this.page(this.ranked().provisional, offset, limit);
  }

  /** Both lists, sorted again only when a bot changed since the last sort. */
  private ranked(): { listed: string[]; provisional: string[] } {
    const rev = this.bots.botsRevision();
    if (this.listed?.rev !== rev) {
      const all = this.bots.listBots().sort(leaderboardOrder);
      this.listed = { rev, listed: all.filter(isListed).map((b) => b.id), provisional: all.filter(isProvisional).map((b) => b.id) };
    }
    return this.listed;
  }

  private page(ids: string[], offset: number, limit: number): { total: number; bots: BotRecord[] } {
    const from = Math.max(0, offset);
    const bots = ids.slice(from, from + Math.max(0, limit)).flatMap((id) => {
      const b = this.bots.getBot(id);
      return b ? [b] : [];
    });
    return { total: ids.length, bots };
  }

  // ---- webhook deliveries ----

  webhookDelivered(gameId: string): number | undefined {
    if (!this.live.has(gameId)) return undefined;
    const bytes = this.store.get(keys.webhook(gameId));
    return bytes && decode<number>(bytes);
  }

  async markWebhookDelivered(gameId: string, ply: number): Promise<void> {
    // A game that finished meanwhile keeps no marker (and a stray one is never read: see above).
    if (this.live.has(gameId)) await this.store.put(keys.webhook(gameId), encode(ply));
  }

  // ---- events (tournaments.ts) ----

  putTournament(event: TournamentRecord, previous?: TournamentRecord): Promise<void> { return this.events.put(event, previous); }
  getTournament(id: string): TournamentRecord | undefined { return this.events.get(id); }
  getTournamentHead(id: string): TournamentHead | undefined { return this.events.head(id); }
  openTournaments(): TournamentListing[] { return this.events.openEvents(); }
  recentTournaments(limit: number, bot?: string): string[] { return this.events.recent(limit, bot); }
  tournamentRevision(id: string): number | undefined { return this.events.revision(id); }

  async close(): Promise<void> {
    this.store.close();
    this.bots.close();
  }
}

