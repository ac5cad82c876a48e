// Connecting to the NATS cluster and opening the buckets and streams the cluster layer uses.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { JetStreamApiError, jetstream, jetstreamManager, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { Kvm, type Bucket, type KV } from '@nats-io/kv';
import type { LeaseKv } from './lease.js';

export type { NatsConnection } from '@nats-io/transport-node';

/** Connects to any of the servers (the client fails over between them and reconnects forever). */
export function connectCluster(servers: string[], name: string): Promise<NatsConnection> {
  return connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 5000 });
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
  return new Kvm(js).create(o.bucket, { replicas: o.replicas, history: 1, ttl: o.ttlMs ?? 0, allow_direct: false });
}

/** A bucket as leases and shard ownership use it: removing a key purges its subject (no marker). */
export function leaseBucket(kv: KV): LeaseKv & { keys(filter?: string): ReturnType<KV['keys']> } {
  const b = kv as Bucket;
  return {
    create: (k, v) => kv.create(k, v),
    update: (k, v, rev, timeoutMs) => kv.update(k, v, rev, timeoutMs),
    get: (k) => kv.get(k),
    keys: (filter) => kv.keys(filter),
    remove: async (k) => {
      await b.jsm.streams.purge(b.stream, { filter: b.subjectForKey(k) });
    },
  };
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
  }
  return jsm;
}

const TOKEN_RE = /^[A-Za-z0-9_-]{1,128}$/;

/** A game id as one subject token (letters, digits, - and _), or an error naming what it was for. */
export function subjectToken(id: string, what: string): string {
  if (!TOKEN_RE.test(id)) throw new Error(`game id ${JSON.stringify(id)} cannot be a ${what} subject`);
  return id;
}
