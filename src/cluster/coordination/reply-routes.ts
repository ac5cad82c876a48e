// Where an owned shard's replies go (owned-shards.ts). Each reply of a host batch is for this node
// itself, for other nodes over NATS, or both. What is for this node is handed over locally, in the
// host's order, as one list per host batch: the answers to its own commands and the updates and
// announcements they refer to come through the same queue, so an answer never overtakes the version
// it is about. What one other node needs (the answers to its commands and the updates of the games it
// follows) goes in one message per node on its own subject (`dc.node.<name>.<s>`), in the host's order;
// what every node needs goes on the shard's subject. A message for every node is published after the
// per-node messages of the replies made before it, and before those of the replies made after it, so
// each node gets everything in the host's order (a game's final update before its `ended`).
import type { ShardReply } from '../../shard/protocol/messages.js';

/** Replies for one subject, each with the node it is for ('' every node, '!x' all but x). */
export interface Run {
  subject: string;
  r: ShardReply[];
  to: string[];
}

/** A host batch sorted out: the messages to publish in this order, and what this node itself takes (in order). */
export interface Routed {
  runs: Run[];
  local: ShardReply[];
}

/** True when a reply addressed `to` (as in a ReplyWire) is for node `node`. */
export const isFor = (to: string, node: string): boolean => to === '' || to === node || (to.startsWith('!') && to !== `!${node}`);

export class ReplyRouter {
  private readonly runs: Run[] = [];
  private readonly local: ShardReply[] = [];
  /** Each node's replies since the last one for every node: one message each. */
  private readonly byNode = new Map<string, Run>();
  private everyone: Run | undefined;

  /**
   * `self`: this node's name when its own replies are taken locally (never published); undefined when
   * they go over NATS like any node's. `nodeSubject(n)`: node n's subject; `everyNode`: the shard's.
   */
  constructor(
    private readonly self: string | undefined,
    private readonly nodeSubject: (node: string) => string,
    private readonly everyNode: string,
  ) {}

  /** An answer, or an update of a game it follows, for one node. */
  toNode(reply: ShardReply, node: string): void {
    if (node === this.self) return void this.local.push(reply);
    if (this.everyone) {
      this.runs.push(this.everyone);
      this.everyone = undefined;
    }
    let run = this.byNode.get(node);
    if (!run) {
      run = { subject: this.nodeSubject(node), r: [], to: [] };
      this.byNode.set(node, run);
    }
    run.r.push(reply);
    run.to.push(node);
  }

  /** A game's update: for this node (it owns the shard, so it has every game's) and each node that follows the game. */
  update(reply: ShardReply, followers: Iterable<string>): void {
    if (this.self !== undefined) this.local.push(reply);
    for (const node of followers) if (node !== this.self) this.toNode(reply, node);
  }

  /** A reply for every node ('') or all but one ('!x'). */
  toAll(reply: ShardReply, to: string): void {
    if (this.self !== undefined && isFor(to, this.self)) this.local.push(reply);
    this.flushNodes();
    this.everyone ??= { subject: this.everyNode, r: [], to: [] };
    this.everyone.r.push(reply);
    this.everyone.to.push(to);
  }

  done(): Routed {
    this.flushNodes();
    if (this.everyone) this.runs.push(this.everyone);
    this.everyone = undefined;
    return { runs: this.runs, local: this.local };
  }

  private flushNodes(): void {
    for (const run of this.byNode.values()) this.runs.push(run);
    this.byNode.clear();
  }
}
