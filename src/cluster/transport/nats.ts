// Connecting to the NATS cluster and opening the buckets and streams the cluster layer uses.
import { connect, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import {
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type StreamConfig,
} from '@nats-io/jetstream';
import { Kvm, type Bucket, type KV } from '@nats-io/kv';
import type { LeaseKv } from '../coordination/lease.js';

export type { NatsConnection } from '@nats-io/transport-node';

/**
 * Connects to any of the servers (the client fails over between them and reconnects forever).
 * `security`: credentials and TLS (natsClientOptions in nats-auth.ts), the same on every reconnect.
 */
export function connectCluster(servers: string[], name: string, security: Partial<NodeConnectionOptions> = {}): Promise<NatsConnection> {
  // ignoreAuthErrorAbort: a reconnect refused for its credentials (a rotation that removed the old user
  // before the node's file was replaced) is tried again, with the file read anew, rather than given up.
  return connect({ ...security, servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 5000, ignoreAuthErrorAbort: true });
}

export interface BucketOptions {
  /** Bucket name (letters, digits, - and _). */
  bucket: string;
  /** Copies kept by the cluster (1, 3 or 5; 3 in a three-server cluster). */
  replicas: number;
  /** How long a key lives after its last write; 0 = for ever. */
  ttlMs?: number;
  /** Timeout of each request to the bucket. */
  timeoutMs?: number;
}

/** Opens a bucket, creating it on first use (every node calls this with the same options). */
export async function openBucket(nc: NatsConnection, o: BucketOptions): Promise<KV> {
  const js = jetstream(nc, { timeout: o.timeoutMs ?? 5000 });
  // allow_direct off: a key is read from the stream's leader, never from a replica a write behind (a
  // read-modify-write computed from a stale value may conclude there is nothing to write).
  const kv = await new Kvm(js).create(o.bucket, { replicas: o.replicas, history: 1, ttl: o.ttlMs ?? 0, allow_direct: false });
  // A bucket just made can be "not found" for a moment by the server asked next (seen on a loaded
  // cluster): it is asked again for up to about five seconds before that counts as an error.
  for (let attempt = 1; ; attempt++) {
    try {
      await kv.status();
      return kv;
    } catch (e) {
      if (!(e instanceof JetStreamApiError) || e.code !== JetStreamApiCodes.StreamNotFound || attempt >= 20) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * The keys of a bucket (matching `filter`, a key pattern with * and >) that hold a value or a marker,
 * read from the stream's leader as the subjects its stream holds. Unlike `kv.keys()`, no consumer is
 * made: on 2.9 a consumer may be placed on a server that is down, and then its creation goes
 * unanswered until it times out. Meant for buckets whose keys are removed by purging (leaseBucket).
 */
export async function subjectKeys(
  kv: KV,
  filter = '>',
  o: { barrierKey?: string; pause?: (ms: number) => Promise<void> } = {},
): Promise<string[]> {
  const pause = o.pause ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const b = kv as Bucket;
  const prefix = b.subjectForKey('');
  // A server elected leader right after a restart of the whole cluster may answer (on 2.9) before it
  // has applied every write the old cluster acknowledged, and list too few keys. With a barrier, a
  // write is made first and its sequence awaited: a state that holds it holds everything before it.
  const barrier = o.barrierKey === undefined ? 0 : await kv.put(o.barrierKey, BARRIER_VALUE);
  for (let attempt = 1, wait = 50; ; attempt++, wait = Math.min(wait * 2, 500)) {
    const info = await b.jsm.streams.info(b.stream, { subjects_filter: `${prefix}${filter}` });
    if (info.state.last_seq >= barrier) return Object.keys(info.state.subjects ?? {}).map((s) => s.slice(prefix.length));
    if (attempt >= BARRIER_ATTEMPTS) throw new Error(`${b.stream}: the leader's state stayed before write ${barrier} (at ${info.state.last_seq})`);
    await pause(wait);
  }
}

/** About ten seconds of asking (50 ms doubling to 500 ms). */
const BARRIER_ATTEMPTS = 24;

const BARRIER_VALUE = new Uint8Array([48]);

/**
 * A bucket as leases and shard ownership use it: removing a key deletes its one message by sequence
 * (no marker is left, so the stream's subjects are the live keys). Not the stream purge API: on
 * nats-server 2.9 a purge by subject, replayed when every server restarts after dying at once,
 * removes other keys as well (test/cluster/transport/trim-restart.test.ts).
 */
export function leaseBucket(kv: KV, o: { barrierKey?: string } = {}): LeaseKv & { keys(filter?: string): Promise<AsyncIterable<string>> } {
  const b = kv as Bucket;
  return {
    create: (k, v) => kv.create(k, v),
    update: (k, v, rev, timeoutMs) => kv.update(k, v, rev, timeoutMs),
    get: (k) => kv.get(k),
    // Every removal deletes the key's message, so the stream's subjects are the live keys (and no
    // consumer is needed).
    keys: async (filter) => toAsync(await subjectKeys(kv, filter, o)),
    remove: async (k) => {
      // History 1: the key's last revision is its only message. A write after the read replaces it,
      // and then the delete finds nothing: the newer value stays, as if it came after the removal.
      const e = await kv.get(k);
      if (e !== null) await deleteStored(b.jsm, b.stream, e.revision);
    },
  };
}

/** Deletes message `seq` of `stream`; one already gone is not an error (deleting is idempotent). */
export async function deleteStored(jsm: JetStreamManager, stream: string, seq: number): Promise<void> {
  try {
    await jsm.streams.deleteMessage(stream, seq, false);
  } catch (e) {
    // 10057: the delete failed because no message has that sequence (any more).
    if (e instanceof JetStreamApiError && e.code === 10057) return;
    throw e;
  }
}

/**
 * Creates a stream unless it exists (every node calls this with the same config at start-up; a
 * stream made by another node meanwhile is fine). Returns the manager it used.
 */
export async function ensureStream(
  nc: NatsConnection,
  timeoutMs: number,
  config: Partial<StreamConfig> & { name: string },
): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
  try {
    await jsm.streams.add(config);
  } catch (e) {
    if (!(e instanceof JetStreamApiError) || e.code !== 10058) throw e; // 10058: the name is in use
    // A stream made by an earlier version without roll-ups gets them (the only setting added since).
    if (config.allow_rollup_hdrs === true) {
      const info = await jsm.streams.info(config.name);
      if (!info.config.allow_rollup_hdrs) await jsm.streams.update(config.name, { ...info.config, allow_rollup_hdrs: true });
    }
  }
  return jsm;
}

const TOKEN_RE = /^[A-Za-z0-9_-]{1,128}$/;

/** A game id as one subject token (letters, digits, - and _), or an error naming what it was for. */
export function subjectToken(id: string, what: string): string {
  if (!TOKEN_RE.test(id)) throw new Error(`game id ${JSON.stringify(id)} cannot be a ${what} subject`);
  return id;
}

async function* toAsync<T>(items: readonly T[]): AsyncIterable<T> {
  yield* items;
}

export interface WatchedReadOptions {
  /** A consumer that delivers neither a message nor a heartbeat for this long is replaced (default 3 s). */
  stallMs?: number;
  /** Called each time a consumer is replaced (for logs and tests). */
  onRestart?: (why: string) => void;
}

/**
 * Reads one subject of a stream in order, from sequence `fromSeq` on, through an ordered consumer,
 * and keeps reading: `onMsg` gets each message once, in sequence order; returning true ends the read.
 *
 * A consumer lives on one server. When that server dies, the client library notices only after
 * missing heartbeats, and then asks the dead server for the consumer's state until it answers; and
 * on 2.9 a consumer may even be placed on a server that is down, so its creation is never answered.
 * Here a consumer that delivers neither a message nor a heartbeat (asked for every stallMs/3) for
 * `stallMs` is dropped, and a new one starts from the sequence after the last message handed over;
 * creations that fail are tried again (100 ms doubling to 2 s) until stop().
 */
export function watchedRead(
  js: JetStreamClient,
  stream: string,
  subject: string,
  fromSeq: number,
  onMsg: (m: JsMsg) => boolean | void,
  o: WatchedReadOptions = {},
): { stop(): void; done: Promise<void> } {
  const stallMs = o.stallMs ?? 3000;
  const heartbeatMs = Math.max(500, Math.floor(stallMs / 3));
  let next = Math.max(1, fromSeq);
  let stopped = false;
  let current: ConsumerMessages | undefined;
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    current?.stop();
    finish();
  };
  const closed = (): boolean => (js as unknown as { nc?: NatsConnection }).nc?.isClosed() === true;
  const run = async (): Promise<void> => {
    let wait = 100;
    let why = '';
    while (!stopped && !closed()) {
      if (why !== '') {
        o.onRestart?.(why);
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, 2000);
        if (stopped) break;
      }
      let watchdog: NodeJS.Timeout | undefined;
      let created: ReturnType<typeof setTimeout> | undefined;
      try {
        // The creation itself may go unanswered (placed on a dead server): bounded by stallMs.
        const consumer = await Promise.race([
          js.consumers.get(stream, { filter_subjects: subject, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: next }),
          new Promise<never>((_, rej) => (created = setTimeout(() => rej(new Error('consumer creation unanswered')), stallMs))),
        ]);
        if (stopped) break;
        const messages = await consumer.consume({ max_messages: 256, expires: Math.max(1000, heartbeatMs * 4), idle_heartbeat: heartbeatMs });
        current = messages;
        if (stopped) {
          messages.stop();
          break;
        }
        let heard = performance.now();
        let stalled = false;
        void (async () => {
          for await (const s of messages.status()) if (s.type === 'heartbeat') heard = performance.now();
        })().catch(() => {});
        watchdog = setInterval(() => {
          if (performance.now() - heard <= stallMs) return;
          stalled = true;
          messages.stop();
        }, heartbeatMs);
        for await (const m of messages) {
          // Stopped from outside (a replay giving up on it): messages the consumer had already
          // fetched are not handed over, since the caller reads on by other means from here.
          if (stopped) break;
          heard = performance.now();
          if (m.seq < next) continue;
          next = m.seq + 1;
          wait = 100;
          if (onMsg(m) === true) {
            stop();
            break;
          }
        }
        why = stalled ? 'consumer silent' : 'consumer ended';
      } catch (e) {
        why = (e as Error).message;
      } finally {
        clearTimeout(created);
        clearInterval(watchdog);
      }
    }
    finish();
  };
  void run();
  return { stop, done };
}
