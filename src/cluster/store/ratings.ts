// A rating batch over the cluster's buckets: many writes where LMDB has one transaction, made safe by a
// journal (`j.<batch>`, parts `jp.<batch>.<n>`) and by steps that are each idempotent.
// Invariant: before checking a new batch, complete every journal left in the bucket (a half-applied
// batch is never computed again from the games it left pending), and mark the games rated LAST, so
// that nothing looks rated before its ratings are.
// The steps and their order: (docs/CLUSTER.md, "The rest of the store across nodes", applyRatingBatch).
import { createHash } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import type { Clock } from '../../domain/clock.js';
import { codec } from '../../domain/codec.js';
import type { LadderStats, PendingRating, RatingBatch, RatingPoint, RatingUpdate } from '../../domain/ratings.js';
import { NO_STATS, RATING_HISTORY_MAX, addStats } from '../../domain/ratings.js';
import type { Rating } from '../../domain/records.js';
import type { KvBotStore } from './bots.js';
import { eachLimited, type BucketCopy } from './bucket-copy.js';

const { encode, decode } = codec.records;

/** Games (and updates) per journal part. */
export const PART = 2000;
/** Batch ids a stats record remembers having taken. */
const RECENT = 16;
/** Writes of one step in flight at once. */
const PARALLEL = 16;

export type RatingState =
  | { state: 'pending'; game: PendingRating }
  | { state: 'rated'; game: PendingRating; at: number; batch: string };

export interface StoredStats extends LadderStats {
  points: RatingPoint[];
  /** Ids of the latest batches applied to these counts. */
  recent: string[];
}

interface JournalHead {
  at: number;
  /** Parts written apart; 0 when the batch is small enough to travel in the head itself. */
  parts: number;
  inline?: JournalPart;
}
interface JournalPart {
  games: PendingRating[];
  updates: RatingUpdate[];
}

export interface RatingContext {
  bots: KvBotStore;
  tickets: KV;
  clock: Clock;
  replica(): BucketCopy;
  /** The pending games as the replica knows them (kept by the store). */
  pending: ReadonlyMap<string, PendingRating>;
  statsKey(botId: string): string;
  ratingKey(gameId: string): string;
}

const sameRating = (a: Rating, b: Rating): boolean => a.rating === b.rating && a.rd === b.rd && a.volatility === b.volatility;

/** A batch's id: its time and a digest of what it rates. */
export function batchId(batch: RatingBatch): string {
  const h = createHash('sha256');
  for (const g of batch.games) h.update(`${g.gameId}\n`);
  for (const u of batch.updates) h.update(`${u.botId}\n`);
  return `${batch.at}-${h.digest('hex').slice(0, 16)}`;
}

export const journalKey = (id: string): string => `j.${id}`;
const partKey = (id: string, n: number): string => `jp.${id}.${n}`;

export class RatingApplier {
  /** Batches on this node run one after another. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly ctx: RatingContext) {}

  apply(batch: RatingBatch): Promise<boolean> {
    const run = this.queue.then(() => this.applyNow(batch));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Completes the journals a dead applier left, in turn with this node's batches. */
  settle(): Promise<void> {
    const run = this.queue.then(() => this.finishJournals());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async applyNow(batch: RatingBatch): Promise<boolean> {
    await this.finishJournals();
    const { bots, pending } = this.ctx;
    if (!batch.games.every((g) => pending.has(g.gameId))) return false;
    for (const u of batch.updates) {
      const bot = bots.getBot(u.botId);
      if (bot && !sameRating(bot.rating, u.before)) return false;
    }
    const id = batchId(batch);
    await this.writeJournal(id, batch);
    await this.run(id, batch);
    await this.dropJournal(id);
    return true;
  }

  /** Completes every batch whose journal is still in the bucket. */
  async finishJournals(): Promise<void> {
    const replica = this.ctx.replica();
    for (const key of replica.keysOf('j')) {
      const head = replica.get(key);
      if (!head) continue;
      const id = key.slice(2);
      const batch = await this.readJournal(id, decode<JournalHead>(head));
      await this.run(id, batch);
      await this.dropJournal(id);
    }
  }

  private async writeJournal(id: string, batch: RatingBatch): Promise<void> {
    const replica = this.ctx.replica();
    const parts = Math.max(Math.ceil(batch.games.length / PART), Math.ceil(batch.updates.length / PART));
    if (parts <= 1) {
      const head: JournalHead = { at: batch.at, parts: 0, inline: { games: batch.games, updates: batch.updates } };
      await replica.put(journalKey(id), encode(head));
      return;
    }
    await eachLimited([...Array(parts).keys()], PARALLEL, async (n) => {
      const part: JournalPart = { games: batch.games.slice(n * PART, (n + 1) * PART), updates: batch.updates.slice(n * PART, (n + 1) * PART) };
      await replica.put(partKey(id, n), encode(part));
    });
    await replica.put(journalKey(id), encode({ at: batch.at, parts } satisfies JournalHead));
  }

  private async readJournal(id: string, head: JournalHead): Promise<RatingBatch> {
    const replica = this.ctx.replica();
    const batch: RatingBatch = { at: head.at, games: [...(head.inline?.games ?? [])], updates: [...(head.inline?.updates ?? [])] };
    for (let n = 0; n < head.parts; n++) {
      let bytes = replica.get(partKey(id, n));
      if (!bytes) {
        const e = await replica.kv.get(partKey(id, n));
        if (!e || e.operation !== 'PUT') throw new Error(`rating batch ${id}: journal part ${n} missing`);
        bytes = e.value;
      }
      const part = decode<JournalPart>(bytes);
      batch.games.push(...part.games);
      batch.updates.push(...part.updates);
    }
    return batch;
  }

  private async dropJournal(id: string): Promise<void> {
    const replica = this.ctx.replica();
    const head = replica.get(journalKey(id));
    const parts = head ? decode<JournalHead>(head).parts : 0;
    await replica.delete(journalKey(id));
    for (let n = 0; n < parts; n++) await replica.delete(partKey(id, n));
  }

  /** The batch's steps; each is a no-op where already done, so a repeat changes nothing. */
  private async run(id: string, batch: RatingBatch): Promise<void> {
    const { bots, tickets, clock } = this.ctx;
    const replica = this.ctx.replica();
    await eachLimited(batch.updates, PARALLEL, async (u) => {
      const bot = await bots.modifyBot(u.botId, (b) => (sameRating(b.rating, u.before) ? { ...b, rating: { ...u.after } } : null));
      if (!bot) return; // not a registered bot: it plays at the default rating and is not rated
      await replica.ticketedModify(tickets, clock, this.ctx.statsKey(u.botId), (cur) => {
        const s: StoredStats = cur ? decode<StoredStats>(cur) : { ...NO_STATS, points: [], recent: [] };
        if (s.recent.includes(id)) return null;
        const points = s.points.filter((p) => p.at !== batch.at);
        points.push({ at: batch.at, rating: u.after.rating, rd: u.after.rd });
        points.sort((a, b) => a.at - b.at);
        const next: StoredStats = {
          ...addStats(s, u.counts),
          points: points.slice(-RATING_HISTORY_MAX),
          recent: [...s.recent, id].slice(-RECENT),
        };
        return encode(next);
      });
    });
    await eachLimited(batch.games, PARALLEL, async (g) => {
      await replica.ticketedModify(tickets, clock, this.ctx.ratingKey(g.gameId), (cur) => {
        const st = cur && decode<RatingState>(cur);
        if (!st || st.state !== 'pending') return null;
        return encode({ state: 'rated', game: st.game, at: batch.at, batch: id } satisfies RatingState);
      });
    });
  }
}
