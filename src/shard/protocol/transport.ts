// The shard transport seam. The main thread's ShardedGames talks to shard `i` only through a
// ShardChannel: it sends batches of commands, and gets batches of replies and, if the shard dies,
// one `died`. Three transports implement it: worker threads (shard/main/worker-transport.ts), the
// same thread for tests (shard/loopback-transport.ts), and a cluster node's NATS subjects
// (cluster/transport/nats-transport.ts); none of them touches the actors or the edge.
import type { Command, ShardReply } from './messages.js';

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
