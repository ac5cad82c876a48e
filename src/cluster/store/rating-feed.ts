// The rater's side of the results queue (results.ts): the feed the cluster's RatingBatcher takes its
// games from, so that a batch is computed exactly as on one machine.
// Invariant: a result is acknowledged only after its batch's write (or when its game is already rated
// or was never pending); the store's rating state (p.<game>), not the queue, keeps a game rated once.
// The cases of a result taken, failed batches and the sweep of pending games:
// (docs/CLUSTER.md, "Results to the rater").
import { codec } from '../../domain/codec.js';
import type { Logger } from '../../domain/log.js';
import type { PendingRating } from '../../domain/ratings.js';
import type { ClusterStore } from './cluster-store.js';
import type { ResultsQueue } from './results.js';
import { eachLimited } from './bucket-copy.js';

export interface RatingFeedOptions {
  queue: Pick<ResultsQueue, 'rateOnce' | 'publish'>;
  store: Pick<ClusterStore, 'ratingStateOf' | 'settleRatingJournals' | 'pendingRatings'>;
  /** How long a batch gathers results (default 1 s, the client's shortest). */
  waitMs?: number;
  log?: Pick<Logger, 'warn'>;
}

export class ResultsFeed {
  private swept = false;

  constructor(private readonly o: RatingFeedOptions) {}

  async next(max: number, rate: (games: PendingRating[]) => Promise<boolean>): Promise<void> {
    if (!this.swept) {
      await eachLimited(this.o.store.pendingRatings(Number.MAX_SAFE_INTEGER), 16, (g) => this.o.queue.publish(g.gameId, codec.records.encode(g)).then(() => undefined));
      this.swept = true;
    }
    // A batch a dead rater left half-applied is completed first, so its games read as rated below.
    await this.o.store.settleRatingJournals();
    await this.o.queue.rateOnce(max, this.o.waitMs ?? 1000, async (batch) => {
      const games: PendingRating[] = [];
      const again = new Set<string>();
      const seen = new Set<string>();
      for (const r of batch) {
        // One game's result stored twice (published again past the queue's dedup window) is rated once.
        if (seen.has(r.gameId)) continue;
        seen.add(r.gameId);
        const st = await this.o.store.ratingStateOf(r.gameId);
        if (st === undefined) {
          this.o.log?.warn({ gameId: r.gameId }, 'a result for a game never pending: nothing to rate');
        } else if (st.state === 'pending') {
          if (st.inReplica) games.push(st.game);
          else again.add(r.gameId);
        }
      }
      if (games.length > 0 && !(await rate(games))) for (const g of games) again.add(g.gameId);
      return { again };
    });
  }
}
