// Connecting to the NATS cluster and opening the buckets and streams the cluster layer uses.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
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
  return new Kvm(js).create(o.bucket, { replicas: o.replicas, history: 1, ttl: o.ttlMs ?? 0 });
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
