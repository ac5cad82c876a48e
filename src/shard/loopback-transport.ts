// Shards in the calling thread: the real shard host and protocol, with every batch copied as a thread
// boundary would copy it. Tests and in-process test servers use it ('loopback' shards).
import type { ShardChannel, ShardEvents, ShardTransport } from './protocol/transport.js';
import type { MessagePort } from 'node:worker_threads';
import { EdgeFeedPublisher } from './owner/edge-feeds.js';
import { ShardHost, type ShardHostDeps, type ShardStore } from './owner/host.js';

/**
 * Shards in the calling thread, for tests: the same host, the same batches (copied, as a thread
 * boundary would), delivered on later event-loop turns; the test's clock and store are
 * shared with it. `storeFor(i)` gives shard i its store: the server's own when it is LMDB (one
 * environment, as worker threads share it), a ForwardingStore when the server keeps memory.
 */
export class LoopbackTransport implements ShardTransport {
  /** Every host opened, by shard index (the latest one): tests look inside. */
  readonly hosts: ShardHost[] = [];

  constructor(
    private readonly deps: Omit<ShardHostDeps, 'post' | 'later' | 'store' | 'statsEveryMs'> & { storeFor(index: number): ShardStore },
    /** With several HTTP threads: new ports to the edge threads for shard `index`, at every start. */
    private readonly feedPorts?: (index: number) => MessagePort[],
  ) {}

  open(index: number, events: ShardEvents): ShardChannel {
    let open = true;
    const feeds = new EdgeFeedPublisher((fn) => setImmediate(fn));
    const ports = this.feedPorts?.(index) ?? [];
    if (ports.length > 0) feeds.attach(ports);
    const host = new ShardHost({
      ...this.deps,
      store: this.deps.storeFor(index),
      statsEveryMs: 0,
      later: (fn) => setImmediate(fn),
      post: (batch) => {
        feeds.saw(batch);
        const copy = structuredClone(batch);
        setImmediate(() => {
          if (open) events.replies(copy);
        });
      },
    });
    this.hosts[index] = host;
    return {
      send: (batch) => {
        const copy = structuredClone(batch);
        setImmediate(() => {
          if (open) host.receive(copy);
        });
      },
      close: async () => {
        open = false;
        feeds.close();
      },
    };
  }
}
