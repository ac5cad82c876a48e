// Which node runs which logical shard. Games map to a fixed number of logical shards; each node holds
// a lease on its own membership key and on every shard it owns (see lease.ts). Every node computes the
// same assignment from the members it sees (sorted names, shard s to member s mod N), takes the shards
// assigned to it once their previous holder's lease is gone, and hands back shards assigned to someone
// else: it drains them first (the caller stops and settles their games), then releases the lease.
// A node that dies stops renewing: its membership and shard keys expire and the others take over.
//
// Views may differ for a moment (a member just joined or expired): the leases keep one owner per
// shard throughout; views only decide who tries.
import type { Clock, TimerHandle } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import { shardIndex, shardKey } from '../../shard/protocol/messages.js';
import { LeaseCandidate, type LeaseKv, type LeaseLoss } from './lease.js';

/** The lease bucket plus listing keys (an @nats-io/kv bucket fits it as it is). */
export interface OwnershipKv extends LeaseKv {
  keys(filter?: string): Promise<AsyncIterable<string>>;
}

export interface OwnershipOptions {
  kv: OwnershipKv;
  /** This node's name (letters, digits, - and _): unique in the cluster. */
  node: string;
  /** Number of logical shards (the same on every node). */
  shards: number;
  /** The bucket's TTL. */
  ttlMs: number;
  clock: Clock;
  /** This node now owns the shard: resume its games (after the log takeover). */
  onGained(shard: number): void;
  /** This node lost the shard without handing it over (renewal failed): stop acting for it at once. */
  onLost(shard: number, why: LeaseLoss): void;
  /** The shard is assigned elsewhere: stop taking commands for it and settle its games; then it is released. */
  drain(shard: number): Promise<void>;
  /** Told when the members this node sees change, and when a listing of them is given up. */
  log?: Pick<Logger, 'info' | 'warn'>;
}

const NODE_RE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Which logical shard a game lives on: the shard protocol's own mapping (FNV-1a of the id, a mirror
 * pair by its smaller id so both games share a shard), so ownership and routing always agree.
 */
export function shardOf(gameId: string, shards: number, mirrorOf: string | null = null): number {
  return shardIndex(shardKey(gameId, mirrorOf), shards);
}

/** The shards assigned to `node` when these are the members. */
export function assigned(members: readonly string[], node: string, shards: number): number[] {
  const sorted = [...members].sort();
  const i = sorted.indexOf(node);
  if (i < 0) return [];
  const out: number[] = [];
  for (let s = 0; s < shards; s++) if (s % sorted.length === i) out.push(s);
  return out;
}

export class ShardOwnership {
  private readonly membership: LeaseCandidate;
  private readonly candidates = new Map<number, LeaseCandidate>();
  private readonly draining = new Set<number>();
  private timer: TimerHandle | undefined;
  private running = false;
  private members: string[] = [];

  constructor(private readonly o: OwnershipOptions) {
    if (!NODE_RE.test(o.node)) throw new Error(`node name ${JSON.stringify(o.node)}: letters, digits, - and _ only`);
    this.membership = new LeaseCandidate({ kv: o.kv, key: `node.${o.node}`, holder: o.node, ttlMs: o.ttlMs, clock: o.clock });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.membership.start();
    this.later(0);
  }

  /** Shards this node may act for right now. */
  owned(): number[] {
    return [...this.candidates.entries()].filter(([, c]) => c.lease.held()).map(([s]) => s).sort((a, b) => a - b);
  }

  owns(shard: number): boolean {
    return this.candidates.get(shard)?.lease.held() === true;
  }

  /** The members this node saw last. */
  view(): string[] {
    return [...this.members];
  }

  /** Leaves the cluster in order: drains and releases every shard, then its membership. */
  async stop(): Promise<void> {
    this.running = false;
    this.timer?.cancel();
    for (const [shard] of this.candidates) await this.handBack(shard);
    await this.membership.stop();
  }

  private later(ms: number): void {
    this.timer?.cancel();
    this.timer = this.o.clock.schedule(ms, () => void this.rebalance().finally(() => this.running && this.later(this.o.ttlMs / 3)));
  }

  private async rebalance(): Promise<void> {
    if (!this.running) return;
    let members: string[];
    try {
      members = await this.listMembers();
    } catch (e) {
      // Bucket unreachable, or a listing that never finished: keep what is held (the leases decide), try again next round.
      this.o.log?.warn({ err: String(e) }, 'shard ownership: members not listed this round');
      return;
    }
    if (!this.membership.lease.held()) members = members.filter((m) => m !== this.o.node);
    members.sort();
    if (members.join() !== this.members.join()) this.o.log?.info({ members, was: this.members }, 'shard ownership: members changed');
    this.members = members;
    const mine = new Set(assigned(this.members, this.o.node, this.o.shards));
    for (const shard of mine) if (!this.candidates.has(shard)) this.want(shard);
    for (const [shard] of this.candidates) if (!mine.has(shard) && !this.draining.has(shard)) void this.handBack(shard);
  }

  /** The members' names, or a rejection once a listing has taken a whole TTL (it is then abandoned). */
  private async listMembers(): Promise<string[]> {
    const members: string[] = [];
    let timer: TimerHandle | undefined;
    const late = new Promise<never>((_, reject) => (timer = this.o.clock.schedule(this.o.ttlMs, () => reject(new Error('listing took a whole TTL')))));
    const listing = (async () => {
      for await (const k of await this.o.kv.keys('node.*')) members.push(k.slice('node.'.length));
      return members;
    })();
    listing.catch(() => {}); // an abandoned listing's own failure is nobody's
    try {
      return await Promise.race([listing, late]);
    } finally {
      timer?.cancel();
    }
  }

  private want(shard: number): void {
    const c = new LeaseCandidate({
      kv: this.o.kv,
      key: `shard.${shard}`,
      holder: this.o.node,
      ttlMs: this.o.ttlMs,
      clock: this.o.clock,
      onGained: () => this.o.onGained(shard),
      onLost: (why) => this.o.onLost(shard, why),
    });
    this.candidates.set(shard, c);
    c.start();
  }

  private async handBack(shard: number): Promise<void> {
    const c = this.candidates.get(shard);
    if (!c) return;
    this.draining.add(shard);
    this.o.log?.info({ shard, held: c.lease.held(), members: this.members }, 'shard ownership: handing the shard back');
    let failed: unknown;
    try {
      // Drained only while held. A lease that ran out unnoticed (the process was paused, and this
      // round's listing answered before the lease's own timers ran) is no hand-back but a loss:
      // c.stop() reports it through onLost, so the shard stops here all the same.
      if (c.lease.held()) await this.o.drain(shard);
    } catch (e) {
      failed = e;
    }
    try {
      // Stopped whatever the drain did, so the lease is never left renewing with no candidate.
      if (!(await c.stop())) failed ??= new Error('the lease key could not be removed');
    } catch (e) {
      failed ??= e;
    } finally {
      this.candidates.delete(shard);
      this.draining.delete(shard);
    }
    // A rebalance round does not await its hand-backs: a failure thrown from here would end the
    // process (a node healed from a partition met "JetStream system temporarily unavailable" on the
    // release). The lease is given up all the same; a key whose removal failed expires at its TTL.
    if (failed !== undefined) this.o.log?.warn({ shard, err: String(failed) }, 'shard ownership: hand-back failed; the lease key expires by itself');
  }
}
