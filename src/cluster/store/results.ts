// Finished games on their way to the rater, exactly once in effect. The node that finishes a game
// publishes its result to a replicated work-queue stream (`dc.result.<id>`), with the game id as the
// message id, so a retried publish is stored once. The rater (a singleton under a lease) pulls
// results through one durable consumer and acknowledges each only after its own write has committed;
// a rater that dies before acknowledging leaves the results to be delivered again to the next holder,
// whose write must then recognise a game already rated (the store's rating batch does: it refuses a
// game that is no longer pending). Acknowledged results leave the stream.
import { AckPolicy, JetStreamApiError, RetentionPolicy, jetstream, type Consumer, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { ensureStream, subjectToken } from '../transport/nats.js';

export interface ResultsOptions {
  replicas: number;
  stream?: string;
  prefix?: string;
  /** How long a delivered, unacknowledged result waits before it is delivered again (default 30 s). */
  ackWaitMs?: number;
  /** Results delivered and not yet acknowledged, at most (default 1,000). */
  maxInFlight?: number;
  timeoutMs?: number;
}

export interface PendingResult {
  gameId: string;
  data: Uint8Array;
  /** How many times it has been delivered (more than 1: a previous rater did not acknowledge it). */
  deliveries: number;
}

/** What a rater's write says of the results it was handed, when not all of them are done with. */
export interface Settled {
  /** Game ids to deliver again (soon, not after the whole ack wait): the write did not take them. */
  again: ReadonlySet<string>;
  /** How long before they come again (default 1 s). */
  againInMs?: number;
}

const RATER = 'rater';

export class ResultsQueue {
  private constructor(
    private readonly js: JetStreamClient,
    private readonly consumer: Consumer,
    private readonly prefix: string,
    private readonly ackWaitMs: number,
    private readonly maxInFlight: number,
  ) {}

  static async open(nc: NatsConnection, o: ResultsOptions): Promise<ResultsQueue> {
    const stream = o.stream ?? 'DC_RESULTS';
    const prefix = o.prefix ?? 'dc.result';
    const timeout = o.timeoutMs ?? 5000;
    const jsm = await ensureStream(nc, timeout, {
      name: stream,
      subjects: [`${prefix}.*`],
      num_replicas: o.replicas,
      retention: RetentionPolicy.Workqueue,
      duplicate_window: 120e9,
    });
    try {
      await jsm.consumers.add(stream, {
        durable_name: RATER,
        ack_policy: AckPolicy.Explicit,
        ack_wait: (o.ackWaitMs ?? 30_000) * 1e6,
        max_ack_pending: o.maxInFlight ?? 1000,
      });
    } catch (e) {
      if (!(e instanceof JetStreamApiError) || e.code !== 10148) throw e; // 10148: consumer exists
    }
    const js = jetstream(nc, { timeout });
    return new ResultsQueue(js, await js.consumers.get(stream, RATER), prefix, o.ackWaitMs ?? 30_000, o.maxInFlight ?? 1000);
  }

  /** Publishes a finished game's result; resolves once the cluster stored it (once per game id). */
  async publish(gameId: string, data: Uint8Array): Promise<{ duplicate: boolean }> {
    const ack = await this.js.publish(`${this.prefix}.${subjectToken(gameId, 'result')}`, data, { msgID: `result/${gameId}` });
    return { duplicate: ack.duplicate };
  }

  /**
   * Takes up to `max` results (gathering them for at most `waitMs`, and never more than a third of the
   * ack wait, since the first one delivered waits for the batch), hands them to `write`, and
   * acknowledges them only once `write` resolved. If `write` rejects, nothing is acknowledged and the
   * results come again after the ack wait. `write` may name results it did not take (`again`): those
   * are not acknowledged but handed back, to come again shortly. Returns how many were handled.
   */
  async rateOnce(max: number, waitMs: number, write: (batch: PendingResult[]) => Promise<void | Settled>): Promise<number> {
    const expires = Math.max(1000, Math.min(waitMs, this.ackWaitMs / 3)); // the client's shortest is 1 s
    const msgs = await this.consumer.fetch({ max_messages: Math.max(1, Math.min(max, this.maxInFlight)), expires });
    const got = [];
    for await (const m of msgs) got.push(m);
    if (got.length === 0) return 0;
    const batch = got.map((m) => ({
      gameId: m.subject.slice(this.prefix.length + 1),
      data: m.data,
      deliveries: m.info.deliveryCount,
    }));
    const settled = await write(batch);
    const again = settled?.again;
    await Promise.all(
      got.map((m, i) => {
        if (!again?.has(batch[i].gameId)) return m.ackAck();
        m.nak(settled?.againInMs ?? 1000);
        return undefined;
      }),
    );
    return got.length - (again ? batch.filter((r) => again.has(r.gameId)).length : 0);
  }
}
