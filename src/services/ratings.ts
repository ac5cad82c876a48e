// The periodic rating batch. Rated games are marked pending by the store when they end (in the
// same transaction as the result); every `batchMs` the pending games form one rating period: each
// bot's games are rated together against its opponents' ratings from before the batch, and the new
// ratings, counts and history points commit in one store transaction together with the removal of
// the games from the pending set. A crash before that commit leaves the games pending and the
// ratings untouched; after it, the games are gone from the set: each game is rated exactly once.
import type { Clock } from '../domain/clock.js';
import { Periodic } from './periodic.js';
import type { Logger } from '../domain/log.js';
import { DEFAULT_RATING, type Rating } from '../domain/records.js';
import { NO_STATS, addStats, type LadderStats, type PendingRating, type RatingBatch, type RatingUpdate } from '../domain/ratings.js';
import type { Store } from '../store/types.js';
import { rateAll } from './glicko2.js';

export interface RatingConfig {
  /** Time between batches. */
  batchMs: number;
  /** Glicko-2 system constant τ. */
  tau: number;
  /** Most games one batch takes; the rest wait for the next one (bounds one transaction). */
  maxGamesPerBatch: number;
}

export const DEFAULT_RATING_CONFIG: RatingConfig = { batchMs: 60_000, tau: 0.5, maxGamesPerBatch: 50_000 };

/** What one batch did. */
export interface BatchOutcome {
  games: number;
  bots: number;
  /** False when the store refused the batch as stale (another batch got there first). */
  applied: boolean;
}

/**
 * The batch computed from the store's current pending games and ratings, without writing
 * anything; null when no game is pending.
 */
export function computeBatch(store: Store, at: number, cfg: Pick<RatingConfig, 'tau' | 'maxGamesPerBatch'>): RatingBatch | null {
  return computeBatchOf(store, store.pendingRatings(cfg.maxGamesPerBatch), at, cfg);
}

/**
 * The batch of the given pending games (in the order the store lists its pending games: finished
 * first, then by id), against the store's current ratings; null when there is none.
 */
export function computeBatchOf(store: Pick<Store, 'getBot'>, pending: readonly PendingRating[], at: number, cfg: Pick<RatingConfig, 'tau'>): RatingBatch | null {
  if (pending.length === 0) return null;
  const games = [...pending].sort((a, b) => a.finishedAt - b.finishedAt || (a.gameId < b.gameId ? -1 : a.gameId > b.gameId ? 1 : 0));
  const before = new Map<string, Rating>();
  const registered = new Set<string>();
  const counts = new Map<string, LadderStats>();
  const count = (id: string, score: number): void => {
    const c = score === 1 ? { ...NO_STATS, games: 1, wins: 1 } : score === 0 ? { ...NO_STATS, games: 1, losses: 1 } : { ...NO_STATS, games: 1, draws: 1 };
    counts.set(id, addStats(counts.get(id) ?? NO_STATS, c));
  };
  for (const g of games) {
    for (const id of [g.whiteId, g.blackId]) {
      if (!before.has(id)) {
        // A seat that is not a registered bot (never on the ladder) plays at the default rating and
        // is itself not rated.
        const bot = store.getBot(id);
        before.set(id, bot ? bot.rating : { ...DEFAULT_RATING });
        if (bot) registered.add(id);
      }
    }
    count(g.whiteId, g.whiteScore);
    count(g.blackId, 1 - g.whiteScore);
  }
  const after = rateAll(before, games.map(toPair), { tau: cfg.tau }, DEFAULT_RATING);
  const updates: RatingUpdate[] = [];
  for (const [botId, rating] of after) {
    if (!registered.has(botId)) continue;
    updates.push({ botId, before: before.get(botId) ?? { ...DEFAULT_RATING }, after: rating, counts: counts.get(botId) ?? NO_STATS });
  }
  return { at, games, updates };
}

const toPair = (g: PendingRating) => ({ white: g.whiteId, black: g.blackId, whiteScore: g.whiteScore });

/**
 * Where the batches' games come from when not from the store's pending set: a cluster's results
 * queue (src/cluster/store/rating-feed.ts). `next` takes up to `max` finished games still pending in the
 * store, hands them to `rate` (which computes and applies their batch, resolving whether the store
 * took it), and settles them only after: taken games leave the feed, refused ones come again.
 */
export interface RatingFeed {
  next(max: number, rate: (games: PendingRating[]) => Promise<boolean>): Promise<void>;
}

export class RatingBatcher {
  private readonly cfg: RatingConfig;
  private running: Promise<BatchOutcome> | null = null;
  private readonly batches: Periodic;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    cfg: Partial<RatingConfig> = {},
    private readonly log?: Pick<Logger, 'info' | 'error'>,
    /** Without it, each batch is the store's pending games (one machine). */
    private readonly feed?: RatingFeed,
  ) {
    this.cfg = { ...DEFAULT_RATING_CONFIG, ...cfg };
    this.batches = new Periodic(clock, this.cfg.batchMs, () =>
      this.runBatch().catch((e: unknown) =>
        this.log?.error({ err: e instanceof Error ? e.message : String(e) }, 'rating batch failed; its games stay pending'),
      ),
    );
  }

  /** Starts the periodic batches (the first one `batchMs` from now). */
  start(): void {
    this.batches.start();
  }

  /** Stops scheduling and waits for a batch in progress. */
  async stop(): Promise<void> {
    this.batches.stop();
    if (this.running) await this.running.catch(() => undefined);
  }

  /** Runs one batch now (one at a time: a call during a batch shares it). */
  runBatch(): Promise<BatchOutcome> {
    this.running ??= this.batch().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async batch(): Promise<BatchOutcome> {
    if (!this.feed) return this.apply(computeBatch(this.store, this.clock.now(), this.cfg));
    let outcome: BatchOutcome = { games: 0, bots: 0, applied: true };
    await this.feed.next(this.cfg.maxGamesPerBatch, async (games) => {
      outcome = await this.apply(computeBatchOf(this.store, games, this.clock.now(), this.cfg));
      return outcome.applied;
    });
    return outcome;
  }

  private async apply(batch: RatingBatch | null): Promise<BatchOutcome> {
    if (!batch) return { games: 0, bots: 0, applied: true };
    const applied = await this.store.applyRatingBatch(batch);
    const outcome = { games: batch.games.length, bots: batch.updates.length, applied };
    this.log?.info(outcome, applied ? 'rating batch applied' : 'rating batch was stale; the next one recomputes it');
    return outcome;
  }
}
