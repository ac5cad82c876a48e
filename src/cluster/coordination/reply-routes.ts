// Where an owned shard's replies go (owned-shards.ts): each reply of a host batch is for this node
// itself, for other nodes over NATS, or both. What is for this node is handed over locally, in the
// host's order, as one list per host batch: the answers to its own commands and the updates and
// announcements they refer to come through the same queue, so an answer never overtakes the version
// it is about (they used to cross NATS on different subjects). What other nodes need is published in
// runs of consecutive replies for one subject, also in the host's order.
import type { ShardReply } from '../../shard/protocol/messages.js';

/** Consecutive replies for one subject, each with the node it is for ('' every node, '!x' all but x). */
export interface Run {
  subject: string;
  r: ShardReply[];
  to: string[];
}

/** A host batch sorted out: the runs to publish, and what this node itself takes (in order). */
export interface Routed {
  runs: Run[];
  local: ShardReply[];
}

/** True when a reply addressed `to` (as in a ReplyWire) is for node `node`. */
export const isFor = (to: string, node: string): boolean => to === '' || to === node || (to.startsWith('!') && to !== `!${node}`);

export class ReplyRouter {
  private readonly routed: Routed = { runs: [], local: [] };

  /**
   * `self`: this node's name when its own replies are taken locally (never published); undefined when
   * they go over NATS like any node's (then everything is published, and nothing is local).
   */
  constructor(private readonly self: string | undefined) {}

  /** A reply for node(s) `to`, published on `subject` when another node needs it. */
  add(reply: ShardReply, to: string, subject: string): void {
    const self = this.self;
    if (self !== undefined && isFor(to, self)) this.routed.local.push(reply);
    // Only this node wants it: nothing crosses NATS.
    if (self !== undefined && to === self) return;
    const runs = this.routed.runs;
    let last = runs.at(-1);
    if (last?.subject !== subject) {
      last = { subject, r: [], to: [] };
      runs.push(last);
    }
    last.r.push(reply);
    last.to.push(to);
  }

  done(): Routed {
    return this.routed;
  }
}
