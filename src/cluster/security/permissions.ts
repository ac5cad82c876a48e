// What a node may do on NATS, subject by subject, and what a monitoring user may: the permissions a
// server configuration gives the `node` and `monitor` users of the dicechess account (nats-conf.ts
// writes them; docs/CLUSTER.md, "Securing a cluster", explains each).
//
// NATS wildcards match whole tokens only (`KV_dc-*` is not a pattern), so every stream is named: a
// new bucket or stream in src/cluster must be added to CLUSTER_STREAMS, or a node on a secured
// cluster is refused when it creates it (the secured whole-node test fails first).

export interface ClusterStream {
  /** The JetStream stream's name (a bucket `b` is the stream `KV_b`). */
  stream: string;
  /** The subjects its messages are written on. */
  subjects: string;
  /**
   * Whether a node deletes messages one by one: a key's message (leaseBucket), or a finished game's
   * roll-up marker (DC_GAMES). Nodes never purge: see GameLog.trim.
   */
  deletes: boolean;
  /** Whether a node may update the stream's settings (a stream made by an earlier version gains roll-ups). */
  updated?: boolean;
  /** Whether a node acknowledges its messages one by one (a work queue). */
  acked: boolean;
}

const bucket = (name: string, deletes = false): ClusterStream => ({ stream: `KV_${name}`, subjects: `$KV.${name}.>`, deletes, acked: false });

/** Every stream and bucket a node creates and uses (their default names). */
export const CLUSTER_STREAMS: readonly ClusterStream[] = [
  { stream: 'DC_GAMES', subjects: 'dc.game.*', deletes: true, updated: true, acked: false },
  { stream: 'DC_RESULTS', subjects: 'dc.result.*', deletes: false, acked: true },
  bucket('dc-live', true),
  bucket('dc-online'),
  bucket('dc-shards', true),
  bucket('dc-singletons', true),
  bucket('dc-tokens'),
  bucket('dc_bots'),
  bucket('dc_store'),
  bucket('dc_tickets'),
];

/** The buckets whose values are secrets (token hashes and principals, bot records with webhook secrets). */
export const SECRET_BUCKETS = ['dc-tokens', 'dc_bots'] as const;

export interface UserPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** May answer a request it received (its reply subject) and nothing else in the inboxes. */
  allow_responses?: boolean;
}

/** The inbox prefix of the monitor user: its replies never reach the nodes' inboxes, nor theirs it. */
export const MONITOR_INBOX_PREFIX = '_INBOX_monitor';

/** The `node` user: its own subjects, the streams above (no deletion), its inboxes. */
export function nodePermissions(streams: readonly ClusterStream[] = CLUSTER_STREAMS): UserPermissions {
  const api = ['$JS.API.INFO'];
  const writes: string[] = [];
  for (const s of streams) {
    const n = s.stream;
    api.push(
      `$JS.API.STREAM.CREATE.${n}`,
      `$JS.API.STREAM.INFO.${n}`,
      `$JS.API.STREAM.MSG.GET.${n}`,
      `$JS.API.CONSUMER.CREATE.${n}`,
      `$JS.API.CONSUMER.CREATE.${n}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${n}.>`,
      `$JS.API.CONSUMER.INFO.${n}.>`,
      `$JS.API.CONSUMER.DELETE.${n}.>`,
      `$JS.API.CONSUMER.MSG.NEXT.${n}.>`,
      `$JS.FC.${n}.>`,
    );
    if (s.deletes) api.push(`$JS.API.STREAM.MSG.DELETE.${n}`);
    if (s.updated) api.push(`$JS.API.STREAM.UPDATE.${n}`);
    if (s.acked) api.push(`$JS.ACK.${n}.>`);
    if (s.subjects.startsWith('$KV.')) writes.push(s.subjects);
  }
  return {
    // dc.> covers the core subjects (dc.shard, dc.out, dc.acct, dc.evt, dc.svc, dc.seen) and the
    // streams' own (dc.game.*, dc.result.*).
    publish: { allow: ['dc.>', ...writes, ...api] },
    subscribe: { allow: ['dc.>', '_INBOX.>'] },
    allow_responses: true,
  };
}

/**
 * The `monitor` user: account and stream/consumer information, nothing else. It publishes only
 * JetStream information requests (no message, no key, no management), reads no stream's messages
 * (no MSG.GET, no consumer, no subscription to `$KV.>` or `dc.>`), and gets its answers on its own
 * inbox prefix (subscribing to `_INBOX.>` would hear the nodes' replies, bucket values among them).
 */
export function monitorPermissions(): UserPermissions {
  return {
    publish: {
      allow: [
        '$JS.API.INFO',
        '$JS.API.STREAM.NAMES',
        '$JS.API.STREAM.LIST',
        '$JS.API.STREAM.INFO.*',
        '$JS.API.CONSUMER.NAMES.*',
        '$JS.API.CONSUMER.LIST.*',
        '$JS.API.CONSUMER.INFO.*.*',
      ],
    },
    subscribe: { allow: [`${MONITOR_INBOX_PREFIX}.>`] },
  };
}
