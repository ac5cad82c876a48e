// The shard transport seam. The main thread's ShardedGames talks to shard `i` only through a
// ShardChannel: it sends batches of commands, and gets batches of replies and, if the shard dies,
// one `died`. The server's implementation runs each shard in a worker thread (worker-transport.ts);
// the tests' runs a shard in the same thread (LoopbackTransport, below); one that carries the same
// batches over a network (NATS, one subject per shard) would implement the same two interfaces,
// touching neither the actors nor the edge.
import type { Command, ShardReply } from './protocol.js';
import { ShardHost, type ShardHostDeps, type ShardStore } from './host.js';

export interface ShardEvents {
  /** One batch of replies, in the order the shard made them. */
  replies(batch: ShardReply[]): void;
  /** The shard is gone (an uncaught error, its thread exited); nothing more arrives from it. */
  died(err: Error): void;
}

export interface ShardChannel {
  /** One batch of commands, delivered in order after any sent before. */
  send(batch: Command[]): void;
  /** Ends the shard (after its `stop` was answered, or to give up on it). */
  close(): Promise<void>;
  /**
   * Cluster mode only: start (`on`) or stop receiving the updates of one game of this shard (a node
   * keeps a current replica only of the games it is asked about); resolves once the change is in
   * effect. Without it every update reaches main.
   */
  follow?(id: string, on: boolean): Promise<void>;
  /** Cluster mode only: the same for every game of the shard (this node owns it). */
  followAll?(on: boolean): Promise<void>;
}

export interface ShardTransport {
  /** Starts shard `index` (again, after it died). */
  open(index: number, events: ShardEvents): ShardChannel;
}

/**
 * Shards in the calling thread, for tests: the same host, the same batches (copied, as a thread
 * boundary would), delivered on later event-loop turns; the test's clock and store are
 * shared with it. `storeFor(i)` gives shard i its store: the server's own when it is LMDB (one
 * environment, as worker threads share it), a ForwardingStore when the server keeps memory.
 */
export class LoopbackTransport implements ShardTransport {
  /** Every host opened, by shard index (the latest one): tests look inside. */
  readonly hosts: ShardHost[] = [];

  constructor(private readonly deps: Omit<ShardHostDeps, 'post' | 'later' | 'store' | 'statsEveryMs'> & { storeFor(index: number): ShardStore }) {}

  open(index: number, events: ShardEvents): ShardChannel {
    let open = true;
    const host = new ShardHost({
      ...this.deps,
      store: this.deps.storeFor(index),
      statsEveryMs: 0,
      later: (fn) => setImmediate(fn),
      post: (batch) => {
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
      },
    };
  }
}
