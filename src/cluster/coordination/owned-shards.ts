// The owner's side of the logical shards a node holds: for each shard gained, a shard host (the same
// ShardHost a worker thread runs, built by the composition root through `open`) fed with the command
// batches that reach `dc.shard.<s>` (a ShardServer). Its replies go where they are needed (see
// nats-transport.ts): an answer to the node that asked, on that node's `dc.node.<name>.<s>`; a game's
// updates on `dc.out.<s>.<game>` for the nodes that follow it; what every node needs (a game started,
// resumed or ended, the heads) on `dc.out.<s>`. The order of the host's replies is kept across them.
// On a drain or a loss the host is stopped and the subject unserved.
//
// Request ids are unique per sending node only: each command that asks for an answer gets an id of
// this owner's own before the host sees it, and the answer goes out under the sender's id, tagged with
// the sender's name. A request leaves `waiting` once its final answer went out; the sender's id stays
// mapped to the owner's for `dedupMs` after its last send (a resend before the sender's deadline then
// reaches the host under the same id and gets the host's remembered reply), then goes: memory follows
// the requests of the last minute, not every request ever answered. Both are also capped in number
// (the oldest go first; an answer that comes for a forgotten request goes to nobody, and the sender's
// own timeout answers 'busy').
import { LRUCache } from 'lru-cache';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import { RecentMap } from '../../domain/recent-map.js';
import type { GameRecord } from '../../domain/records.js';
import type { Command, ShardReply } from '../../shard/protocol/messages.js';
import { decodeCommands, encodeReplies, gameSubject, nodeSubject, outSubject } from '../transport/nats-transport.js';
import { publishInParts } from '../transport/reply-parts.js';
import { ShardServer } from '../transport/shard-link.js';

/** What `open` builds for a shard: something that takes command batches, and its live games. */
export interface HostedShard {
  receive(batch: Command[]): void;
  /** The shard's live games, to resume on its host (taken over from the log). */
  live: GameRecord[];
  /** Releases what `open` opened (after the host was stopped). */
  close(): Promise<void>;
}

export interface ShardHostsOptions {
  nc: NatsConnection;
  clock: Clock;
  log: Logger;
  /**
   * Builds shard `s`'s host, whose reply batches go to `post`. `fenced`: its store refused a write
   * because another node took the shard over: nothing more of this host is published, and it stops.
   */
  open(shard: number, post: (batch: ShardReply[]) => void, fenced: () => void): Promise<HostedShard>;
  /** True while the lease on the shard is held (ShardOwnership.owns). */
  leaseHeld(shard: number): boolean;
  shardPrefix?: string;
  outPrefix?: string;
  nodePrefix?: string;
  /** This node's name, named on the answers to the batches it takes (ShardServer). */
  node?: string;
  /** Requests waiting for their host's answer, remembered at most (default 100,000); also the cap of `dedupMs`'s mapping. */
  maxWaiting?: number;
  /**
   * How long a remote request's id stays mapped after its last send, so that a resend gets the host's
   * remembered reply (default 60 s: twice a cluster node's 30 s request deadline).
   */
  dedupMs?: number;
  /** The shard is served here now, with the ids of the live games it resumed (taken over). */
  served?(shard: number, liveIds: string[]): void;
}

/** The largest reply batch published as one message (the servers' default limit is 1 MiB). */
const MAX_MESSAGE_BYTES = 900 * 1024;

/**
 * What a rid given to a host stands for, until its final reply: a remote node's request (its own
 * rid), or a request of this node's own.
 */
type Local =
  | { kind: 'remote'; shard: number; node: string; rid: number }
  | { kind: 'own'; done(r: ShardReply): void };

/** Replies that announce a game while their request goes on: its final reply comes later. */
const announcing = (r: ShardReply): boolean => r.t === 'started' || r.t === 'resumed';

interface Hosted {
  shard: number;
  ready: boolean;
  /** When the lease was gained (this node's clock, ms). */
  gainedAt: number;
  /** The same moment on the monotonic clock (the open duration is measured from it). */
  gainedMono: number;
  /** Another node took the shard over: whatever the host still emits is dropped. */
  fenced: boolean;
  hosted?: HostedShard;
  opening: Promise<void>;
}

export class OwnedShards {
  private readonly server: ShardServer;
  private readonly hosts = new Map<number, Hosted>();
  private readonly waiting: LRUCache<number, Local>;
  /** `node:rid` of each recent remote request to the rid its host knows it by (a resend keeps it). */
  private readonly byRemote: RecentMap<string, number>;
  private nextRid = 1;
  private readonly outPrefix: string;
  private readonly nodePrefix: string;
  /** Failed takeovers in a row of each shard whose lease is held (the next try waits longer). */
  private readonly failures = new Map<number, number>();
  /**
   * Each shard's stop still under way. A host gained again meanwhile (a lease lost for a moment,
   * then won back) opens only once the old one is stopped and its store closed: one store per shard
   * at a time, so the new takeover lists and reads the log after every write of the old store has
   * settled, and the old one's unfollowing cannot come after the new one's following.
   */
  private readonly stopping = new Map<number, Promise<void>>();

  constructor(private readonly o: ShardHostsOptions) {
    this.outPrefix = o.outPrefix ?? 'dc.out';
    this.nodePrefix = o.nodePrefix ?? 'dc.node';
    this.waiting = new LRUCache({ max: o.maxWaiting ?? 100_000 });
    this.byRemote = new RecentMap({ clock: o.clock, windowMs: o.dedupMs ?? 60_000, max: o.maxWaiting ?? 100_000 });
    this.server = new ShardServer(o.nc, {
      clock: o.clock,
      prefix: o.shardPrefix,
      node: o.node,
      owns: (s) => this.hosts.get(s)?.ready === true && o.leaseHeld(s),
      handle: async (s, bytes) => {
        this.handle(s, bytes);
        return new Uint8Array();
      },
    });
  }

  /** Requests waiting for an answer, and remote ids still mapped for a resend (for the tests). */
  remembered(): { waiting: number; mapped: number } {
    this.byRemote.prune();
    return { waiting: this.waiting.size, mapped: this.byRemote.size };
  }

  /** Shards whose host is up and serving. */
  serving(): number[] {
    return [...this.hosts.values()].filter((h) => h.ready).map((h) => h.shard).sort((a, b) => a - b);
  }

  /** The shard was gained: build its host, resume its games, then serve its subject. */
  gained(shard: number): void {
    if (this.hosts.has(shard)) return;
    const h: Hosted = { shard, ready: false, gainedAt: this.o.clock.now(), gainedMono: this.o.clock.monotonic(), fenced: false, opening: Promise.resolve() };
    this.hosts.set(shard, h);
    const before = this.stopping.get(shard) ?? Promise.resolve();
    h.opening = before.then(() => (this.hosts.get(shard) === h ? this.start(h) : undefined)).then(
      () => void this.failures.delete(shard),
      (e: unknown) => {
        this.o.log.error({ shard, err: e instanceof Error ? e.stack ?? e.message : String(e) }, 'could not take over a shard');
        if (this.hosts.get(shard) !== h) return;
        this.hosts.delete(shard);
        // The lease is still ours, so nobody else will serve the shard: try again (a server died
        // mid-takeover, say) while the lease lasts, 250 ms doubling to 4 s apart.
        this.again(shard);
      },
    );
  }

  /**
   * One more try in a row to serve a shard whose lease this node still holds, 250 ms doubling to 4 s
   * after the last; returns how many tries in a row this is.
   */
  private again(shard: number): number {
    const n = (this.failures.get(shard) ?? 0) + 1;
    this.failures.set(shard, n);
    this.o.clock.schedule(Math.min(250 * 2 ** (n - 1), 4000), () => {
      if (this.o.leaseHeld(shard)) this.gained(shard);
      else this.failures.delete(shard);
    });
    return n;
  }

  private async start(h: Hosted): Promise<void> {
    const hosted = await this.o.open(
      h.shard,
      (batch) => this.post(h, batch),
      () => {
        h.fenced = true;
        if (this.hosts.get(h.shard) !== h) return;
        // The store refused a write: its view of the log is stale. While the lease is still this
        // node's (a race of its own, say a new game's id already marked by an earlier takeover), nobody
        // else will serve the shard: take it over again from the log, as after a failed takeover.
        void this.stop(h.shard).then(() => {
          if (this.hosts.has(h.shard) || !this.o.leaseHeld(h.shard)) return;
          const tries = this.again(h.shard);
          this.o.log.warn({ shard: h.shard, tries }, 'shard store fenced while its lease is held: taking the shard over again');
        });
      },
    );
    h.hosted = hosted;
    if (this.hosts.get(h.shard) !== h) {
      await hosted.close();
      return;
    }
    const live = hosted.live;
    if (live.length > 0) await this.own(hosted, (rid) => ({ t: 'resume', rid, recs: live }));
    if (this.hosts.get(h.shard) !== h) return;
    h.ready = true;
    this.server.serve(h.shard);
    this.o.log.info({ shard: h.shard, games: live.length }, 'serving shard');
    // The takeover's times, for the failover benchmark (bench/cluster-failover.ts): the lease gained,
    // then the log taken over and the games resumed, then the subject answered. Wall times, since the
    // bench compares them with other processes' (only logged, nothing here waits on them); the
    // duration on the monotonic clock.
    const servingAt = this.o.clock.now();
    const openMs = Math.round(this.o.clock.monotonic() - h.gainedMono);
    this.o.log.info({ shard: h.shard, games: live.length, gainedAt: h.gainedAt, servingAt, openMs }, 'shard taken over');
    if (live.length > 0) this.o.served?.(h.shard, live.map((g) => g.id));
  }

  /** The shard goes (drained, or its lease lost): stop serving it, stop its host, close its store. */
  async stop(shard: number): Promise<void> {
    const h = this.hosts.get(shard);
    // Already stopping (a loss, then a drain): the caller waits for that stop, as it would for its own.
    if (!h) return this.stopping.get(shard);
    this.hosts.delete(shard);
    const done = this.halt(h);
    this.stopping.set(shard, done);
    try {
      await done;
    } finally {
      if (this.stopping.get(shard) === done) this.stopping.delete(shard);
    }
  }

  private async halt(h: Hosted): Promise<void> {
    const shard = h.shard;
    h.ready = false;
    await this.server.unserve(shard);
    await h.opening;
    if (h.hosted) {
      await this.own(h.hosted, (rid) => ({ t: 'stop', rid })).catch(() => {});
      await h.hosted.close().catch(() => {});
    }
    this.abandon(shard);
    this.o.log.info({ shard }, 'stopped serving shard');
  }

  async stopAll(): Promise<void> {
    // Every host stops; so do the stops already under way (of shards no longer in `hosts`).
    const stops = [...this.hosts.keys()].map((s) => this.stop(s));
    await Promise.all([...stops, ...this.stopping.values()]);
  }

  /**
   * The requests its stopped host left unanswered get an answer now ('busy' for a move, which the
   * mover may send again; failed for the rest), so no sender waits for its own timeout.
   */
  private abandon(shard: number): void {
    const byNode = new Map<string, ShardReply[]>();
    for (const [rid, w] of this.waiting.entries()) {
      if (w.kind !== 'remote' || w.shard !== shard) continue;
      this.waiting.delete(rid);
      this.byRemote.delete(`${w.node}:${w.rid}`);
      // A game command's sender answers `failed` with the command's own "lost" answer ('busy' for a move).
      const r = byNode.get(w.node) ?? [];
      r.push({ t: 'failed', rid: w.rid, error: `shard ${shard} moved to another node` });
      byNode.set(w.node, r);
    }
    for (const [node, r] of byNode) this.publish(shard, { r, to: r.map(() => node) }, nodeSubject(this.nodePrefix, node, shard));
  }

  /** A request of this node's own to a host, resolved by its answer. */
  private own(hosted: HostedShard, make: (rid: number) => Command): Promise<void> {
    return new Promise((resolve, reject) => {
      const rid = this.nextRid++;
      this.waiting.set(rid, {
        kind: 'own',
        done: (r) => {
          if (announcing(r)) return;
          this.waiting.delete(rid);
          if (r.t === 'failed') reject(new Error(r.error));
          else resolve();
        },
      });
      hosted.receive([make(rid)]);
    });
  }

  private handle(shard: number, bytes: Uint8Array): void {
    const h = this.hosts.get(shard);
    if (!h?.ready || !h.hosted) return;
    const { n: node, c: batch } = decodeCommands(bytes);
    const cmds: Command[] = [];
    for (const c of batch) {
      // Stopping or resuming is the owner's own decision; crash requests are for worker tests only.
      if (c.t === 'stop' || c.t === 'resume' || c.t === 'crash') continue;
      if ('rid' in c) {
        // A resend (a lost command or answer) goes under the rid its first send had, so the host
        // answers it with its remembered reply instead of acting twice.
        const key = `${node}:${c.rid}`;
        const rid = this.byRemote.get(key) ?? this.nextRid++;
        this.byRemote.set(key, rid);
        this.waiting.set(rid, { kind: 'remote', shard, node, rid: c.rid });
        cmds.push({ ...c, rid } as Command);
      } else cmds.push(c);
    }
    if (cmds.length > 0) h.hosted.receive(cmds);
  }

  private post(h: Hosted, batch: ShardReply[]): void {
    // Runs of consecutive replies for one subject, published in the host's order: a game's updates
    // on its own subject, an answer on its asking node's, what every node needs on the shard's.
    let r: ShardReply[] = [];
    let to: string[] = [];
    let subject = '';
    const add = (reply: ShardReply, node: string, on: string): void => {
      if (on !== subject) {
        if (r.length > 0 && !h.fenced) this.publish(h.shard, { r, to }, subject);
        r = [];
        to = [];
        subject = on;
      }
      r.push(reply);
      to.push(node);
    };
    const everyNode = outSubject(this.outPrefix, h.shard);
    for (const reply of batch) {
      if (reply.t === 'stats') continue;
      if (!('rid' in reply)) {
        add(reply, '', reply.t === 'update' ? gameSubject(this.outPrefix, h.shard, reply.id) : everyNode);
        continue;
      }
      const w = this.waiting.get(reply.rid);
      if (w?.kind === 'own') {
        w.done(reply);
        // A game taken over here: every node's replica starts over from it (rid 0: no request's).
        if (reply.t === 'resumed') add({ ...reply, rid: 0 }, '', everyNode);
      } else if (w?.kind === 'remote') {
        // Answered: only the id mapping stays (for a resend), not the request.
        if (!announcing(reply)) this.waiting.delete(reply.rid);
        add({ ...reply, rid: w.rid }, w.node, nodeSubject(this.nodePrefix, w.node, h.shard));
        // A new game is announced to the other nodes too (rid 0), so their account streams get
        // its GameStart; the requester has it under its own rid.
        if (reply.t === 'started') add({ ...reply, rid: 0 }, `!${w.node}`, everyNode);
      }
    }
    if (r.length > 0 && !h.fenced) this.publish(h.shard, { r, to }, subject);
  }

  /**
   * One message per batch, split in halves while too big for the servers (a large resume); a single
   * reply still too big (a large legal-move tree) goes in parts (transport/reply-parts.ts).
   */
  private publish(shard: number, w: { r: ShardReply[]; to: string[] }, subject: string): void {
    const bytes = encodeReplies(w);
    if (bytes.byteLength > MAX_MESSAGE_BYTES && w.r.length > 1) {
      const half = Math.ceil(w.r.length / 2);
      this.publish(shard, { r: w.r.slice(0, half), to: w.to.slice(0, half) }, subject);
      this.publish(shard, { r: w.r.slice(half), to: w.to.slice(half) }, subject);
      return;
    }
    try {
      if (bytes.byteLength > MAX_MESSAGE_BYTES) publishInParts(this.o.nc, subject, bytes);
      else this.o.nc.publish(subject, bytes);
    } catch (e) {
      this.o.log.warn({ shard, err: String(e) }, 'could not publish shard replies');
    }
  }
}
