// The rater's side of the results queue (results.ts): the rating batch of a cluster takes its games
// from the queue rather than from the store's pending set, and acknowledges them only after the
// batch's write. It runs where the rating batch runs (a singleton under its lease), as the feed of
// the same RatingBatcher one machine uses, so a batch is computed exactly as there: its games, sorted
// as the store lists pending games, against the ratings before it, applied as one batch.
//
// The queue says which games finished; the store's rating state (p.<game>) says whether each is
// still to be rated, and stays what makes a game rated once. Each result taken is:
//   - still pending in this node's replica: in the batch; acknowledged once the store applied the
//     batch, handed back to come again at once when the store refused it as stale;
//   - already rated (a rater died after its write and before its acknowledgement, or a game finished
//     twice after a crash): acknowledged, rated nothing;
//   - pending on the bucket's leader but not yet in this node's replica (written a moment ago on
//     another node): handed back, to come again in the next batch;
//   - never pending (no rating key at all): acknowledged, with a warning (nothing to rate).
// A batch that fails before its write completes (a lost lease, a timeout) acknowledges nothing: its
// results come again after the queue's ack wait, and whatever of the write landed is completed from
// its journal (cluster-ratings.ts) before anything else is computed.
//
// A finished game publishes its result before its final head is stored, so a game that ends always
// has its result in the queue. Games left pending without one (finished before the queue was wired,
// or a stream lost) are published again by each rater process at its first batch: a result stored
// twice is rated once (above), so this sweep costs a publish per pending game and changes nothing else.
import { codec } from '../../domain/codec.js';
import type { Logger } from '../../domain/log.js';
import type { PendingRating } from '../../domain/ratings.js';
import type { ClusterStore } from './cluster-store.js';
import type { ResultsQueue } from './results.js';
import { eachLimited } from './kv-replica.js';

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
