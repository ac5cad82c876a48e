// Commands to a logical shard's owner, over NATS request/reply: whichever node holds the shard serves
// its subject (`dc.shard.<n>`), and any node sends it a batch and gets the owner's answer. The batch is
// opaque bytes here (the shard protocol's encoding is the caller's); what this layer adds is:
//
// - Re-routing. A node that no longer owns the shard answers "not owner" (a moment late, so that the
//   real owner's answer wins when both still listen), and a shard nobody serves has no responders; the
//   sender waits a little and sends again until its deadline, reaching the new owner once it serves.
// - Retry safety. Every batch carries an id; a retry (after a lost answer or a timeout) carries the
//   same one, and the owner answers a batch it has already taken with the answer it gave (it keeps a
//   bounded number of recent ids), so a retried batch is handled once by that owner.
import { headers, RequestError, TimeoutError, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../domain/clock.js';

/** Less time than this left before a deadline: no further attempt (it could not be answered). */
const LAST_ATTEMPT_MS = 5;

const REQUEST_ID = 'Dc-Request-Id';
const STATUS = 'Dc-Status';
const NOT_OWNER = 'not-owner';
/** The node that took a batch (set on its answers), so a sender can tell a batch it served itself. */
const NODE = 'Dc-Node';

export const shardSubject = (prefix: string, shard: number): string => `${prefix}.${shard}`;

export interface ShardServerOptions {
  /** True while this node may act for the shard (its lease is held and it is not draining). */
  owns(shard: number): boolean;
  /** Handles one batch for an owned shard; its answer goes back to the sender. */
  handle(shard: number, batch: Uint8Array): Promise<Uint8Array>;
  clock: Clock;
  prefix?: string;
  /** Recent batch ids remembered per node for retries (default 10,000). */
  maxRemembered?: number;
  /** How late a "not owner" answer goes out (default 25 ms). */
  notOwnerDelayMs?: number;
  /** This node's name, given on each answer (none without). */
  node?: string;
}

/** The owner's side: serves the subjects of the shards it holds. */
export class ShardServer {
  private readonly subs = new Map<number, Subscription>();
  private readonly answers: LRUCache<string, Promise<Uint8Array>>;
  private readonly prefix: string;

  constructor(
    private readonly nc: NatsConnection,
    private readonly o: ShardServerOptions,
  ) {
    this.prefix = o.prefix ?? 'dc.shard';
    this.answers = new LRUCache({ max: o.maxRemembered ?? 10_000 });
  }

  /** Starts answering for the shard (call when it is gained). */
  serve(shard: number): void {
    if (this.subs.has(shard)) return;
    this.subs.set(shard, this.nc.subscribe(shardSubject(this.prefix, shard), { callback: (err, m) => void (err === null && this.onRequest(shard, m)) }));
  }

  /** Stops answering for the shard (call when it is drained or lost). */
  async unserve(shard: number): Promise<void> {
    const sub = this.subs.get(shard);
    this.subs.delete(shard);
    if (sub) await sub.drain();
  }

  serving(): number[] {
    return [...this.subs.keys()].sort((a, b) => a - b);
  }

  private onRequest(shard: number, m: Msg): void {
    const id = m.headers?.get(REQUEST_ID) ?? '';
    if (!this.o.owns(shard)) {
      const h = headers();
      h.set(STATUS, NOT_OWNER);
      this.o.clock.schedule(this.o.notOwnerDelayMs ?? 25, () => m.respond(new Uint8Array(), { headers: h }));
      return;
    }
    let answer = id ? this.answers.get(id) : undefined;
    if (!answer) {
      answer = this.o.handle(shard, m.data);
      if (id) this.answers.set(id, answer);
    }
    const node = this.o.node;
    answer.then(
      (data) => {
        if (node === undefined) return void m.respond(data);
        const h = headers();
        h.set(NODE, node);
        m.respond(data, { headers: h });
      },
      () => {
        if (id) this.answers.delete(id); // a failed batch may be tried again
      },
    );
  }
}

export interface ShardClientOptions {
  clock: Clock;
  prefix?: string;
  /** How long one attempt waits for an answer (default 1000 ms). */
  attemptTimeoutMs?: number;
  /** Wait before trying again after "not owner" or no responders (default 50 ms, doubling to 1 s). */
  backoffMs?: number;
  /** Told, for each batch an owner took, the name it gave ('' when none). */
  onAnswered?: (node: string) => void;
}

export class ShardUnavailable extends Error {
  override readonly name = 'ShardUnavailable';
}

let counter = 0;
const newId = (): string => `${process.pid.toString(36)}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/** The sender's side: any node sends a batch to whichever node owns the shard now. */
export class ShardClient {
  private readonly prefix: string;

  constructor(
    private readonly nc: NatsConnection,
    private readonly o: ShardClientOptions,
  ) {
    this.prefix = o.prefix ?? 'dc.shard';
  }

  /**
   * Sends one batch to the shard's owner and resolves with its answer; tries again (same batch id)
   * on "not owner", no responders and timeouts until `deadlineMs` has passed, then rejects with
   * ShardUnavailable.
   */
  async send(shard: number, batch: Uint8Array, deadlineMs = 10_000): Promise<Uint8Array> {
    const id = newId();
    const h = headers();
    h.set(REQUEST_ID, id);
    const giveUpAt = this.o.clock.monotonic() + deadlineMs;
    let wait = this.o.backoffMs ?? 50;
    let last = 'no attempt';
    // Timers may wake a fraction of a millisecond before the monotonic deadline they were set for
    // (libuv counts whole milliseconds): an attempt with almost nothing left is not made.
    while (giveUpAt - this.o.clock.monotonic() >= LAST_ATTEMPT_MS) {
      const timeout = Math.max(1, Math.min(this.o.attemptTimeoutMs ?? 1000, giveUpAt - this.o.clock.monotonic()));
      try {
        const reply = await this.nc.request(shardSubject(this.prefix, shard), batch, { timeout, headers: h });
        if (reply.headers?.get(STATUS) !== NOT_OWNER) {
          this.o.onAnswered?.(reply.headers?.get(NODE) ?? '');
          return reply.data;
        }
        last = 'not owner';
      } catch (e) {
        if (e instanceof TimeoutError) {
          last = 'timeout';
          continue; // the owner may be slow or gone: the same id is safe to send again
        }
        if (!(e instanceof RequestError && e.isNoResponders())) throw e;
        last = 'no responders';
      }
      await new Promise<void>((r) => this.o.clock.schedule(wait, () => r()));
      wait = Math.min(wait * 2, 1000);
    }
    throw new ShardUnavailable(`shard ${shard}: no owner answered (${last})`);
  }
}
