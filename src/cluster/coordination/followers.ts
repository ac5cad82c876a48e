// Which other nodes follow which games of the shards this node owns (owned-shards.ts): a node that
// follows a game tells the owner (with its command batches, `CommandWire.f`), and the owner sends the
// game's updates to those nodes only, each node's in one message per host batch. A game's followers
// are forgotten when it ends or its shard leaves this node. Bounded: at most `max` games are
// remembered, the least recently told going first (a follower that loses its place sees a gap at the
// next heads and asks again; it tells the owner again whenever the owner changes).

import { LRUCache } from 'lru-cache';

export class Followers {
  /** `shard:game` to the nodes that follow it. */
  private readonly games: LRUCache<string, Set<string>>;

  constructor(max = 100_000) {
    this.games = new LRUCache({ max });
  }

  /** Node `node` follows game `id` of shard `shard` now (`on`), or no longer. */
  set(shard: number, node: string, id: string, on: boolean): void {
    const key = `${shard}:${id}`;
    const nodes = this.games.get(key);
    if (on) {
      if (nodes) nodes.add(node);
      else this.games.set(key, new Set([node]));
    } else if (nodes) {
      nodes.delete(node);
      if (nodes.size === 0) this.games.delete(key);
    }
  }

  of(shard: number, id: string): Iterable<string> {
    return this.games.peek(`${shard}:${id}`) ?? [];
  }

  /** The game ended: nobody follows it any more. */
  ended(shard: number, id: string): void {
    this.games.delete(`${shard}:${id}`);
  }

  /** The shard left this node: its games' followers tell the next owner. */
  dropShard(shard: number): void {
    const prefix = `${shard}:`;
    for (const key of [...this.games.keys()]) if (key.startsWith(prefix)) this.games.delete(key);
  }

  get size(): number {
    return this.games.size;
  }
}
