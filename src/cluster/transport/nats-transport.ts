// The shard transport of a cluster node: the main side's ShardedGames talks to logical shard `s`
// wherever it runs. Command batches go to the owner with a ShardClient (`dc.shard.<s>`, one at a time
// per shard, retried with the same id); answers come back on the asking node's own subject
// `dc.node.<name>.<s>`, and so do the updates of the games it follows (it tells the owner which, with
// its batches: `CommandWire.f`), one message per host batch for all of them; announcements every node
// needs (a game started, resumed or ended, the shard's heads) come on `dc.out.<s>`.
// Invariant: replies travel on core NATS (at most once, unordered across a reconnect), which the shard
// protocol copes with; an answer names the node that asked, and a node drops what is not its own.
// A shard this node serves itself is not reached over NATS at all (`serveLocally`): its commands go
// straight to the local host and the host's replies for this node come back through one ordered local
// queue (`deliver`); the copies of them its subscriptions hear (marked `Dc-From` this node) are dropped.
// (docs/CLUSTER.md, "A node: `dicechess serve --cluster`", main side).
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { PartsAssembler } from './reply-parts.js';
import type { Clock } from '../../domain/clock.js';
import { codec } from '../../domain/codec.js';
import { chunked, type Command, type ShardReply } from '../../shard/protocol/messages.js';
import type { ShardChannel, ShardEvents, ShardTransport } from '../../shard/protocol/transport.js';
import { ShardClient } from './shard-link.js';

/** A game this node starts (true) or stops (false) following: the owner sends it the game's updates. */
export type FollowChange = [id: string, on: boolean];

/**
 * A command batch as it crosses: the sender node, its commands and (optional, older nodes send none)
 * the games it started or stopped following since its last batch, or all it follows of the shard
 * when the owner changed; the owner takes them before the commands.
 */
export interface CommandWire {
  n: string;
  c: Command[];
  f?: FollowChange[];
}

/** A reply batch as it crosses: the replies and, for each, the node it is for ('' for every node, '!x' for all but x). */
export interface ReplyWire {
  r: ShardReply[];
  to: string[];
}

export const encodeCommands = (w: CommandWire): Uint8Array => codec.wire.encode(w);
export const decodeCommands = (b: Uint8Array): CommandWire => codec.wire.decode<CommandWire>(b);
export const encodeReplies = (w: ReplyWire): Uint8Array => codec.wire.encode(w);
export const decodeReplies = (b: Uint8Array): ReplyWire => codec.wire.decode<ReplyWire>(b);

/** The header naming the node that published a reply batch (it drops its own copies: it took them locally). */
export const FROM_HEADER = 'Dc-From';

export const outSubject = (prefix: string, shard: number): string => `${prefix}.${shard}`;
/** The subject of the answers for one node from shard `shard` (node names are valid subject tokens). */
export const nodeSubject = (prefix: string, node: string, shard: number): string => `${prefix}.${node}.${shard}`;

export interface NatsShardTransportOptions {
  nc: NatsConnection;
  /** This node's name (unique in the cluster). */
  node: string;
  clock: Clock;
  /** How long one batch keeps trying to reach an owner (a takeover takes up to a lease's TTL). */
  deadlineMs: number;
  /** Subject prefixes (default dc.shard, dc.out and dc.node). */
  shardPrefix?: string;
  outPrefix?: string;
  nodePrefix?: string;
  /** Told when a reply sent in parts is dropped (incomplete in time, over its bounds). */
  onPartsDropped?: (why: string) => void;
}

/** Follow changes with only the last one of each game kept, in the order of those. */
function latest(changes: FollowChange[]): FollowChange[] {
  const last = new Map<string, boolean>();
  for (const [id, on] of changes) {
    last.delete(id);
    last.set(id, on);
  }
  return [...last];
}

/** The answer a request gets when its batch could not reach any owner in time. */
function unreachable(c: Command, why: string): ShardReply | null {
  // A game command's sender turns `failed` into the command's own "lost" answer ('busy' for a move).
  if (!('rid' in c)) return null;
  return { t: 'failed', rid: c.rid, error: why };
}

/** The shards this node serves itself (its OwnedShards): their commands are taken without NATS. */
export interface LocalShards {
  /** True while this node's own host serves the shard. */
  takesHere(shard: number): boolean;
  /** This node's commands to it; the answers come back through `NatsShardTransport.deliver`. */
  take(shard: number, batch: Command[]): void;
}

/** What crossed NATS for this node since it started (for /metrics and the tests). */
export interface TransportStats {
  /** Reply messages decoded, by the subject they came on: the shard's broadcast, or this node's own (answers, followed games' updates). */
  received: { broadcast: number; direct: number };
  /**
   * Command batches sent to a shard's owner, by who took them: this node's own host without NATS
   * (`local`), this node over NATS (`here`: its shard was not served yet when sent), another node.
   */
  batches: { local: number; here: number; elsewhere: number };
}

export class NatsShardTransport implements ShardTransport {
  private readonly client: ShardClient;
  private readonly outPrefix: string;
  private readonly nodePrefix: string;
  private readonly counts: TransportStats = { received: { broadcast: 0, direct: 0 }, batches: { local: 0, here: 0, elsewhere: 0 } };
  private local: LocalShards | undefined;
  /** Each open shard's events, for the replies taken locally. */
  private readonly events = new Map<number, ShardEvents>();
  /** The local host's replies for this node, in the order they were made (one queue for every shard). */
  private inbox: { shard: number; replies: ShardReply[] }[] = [];
  private draining = false;
  /** Replies too large for one message (a large tree) come in parts: put together here, bounded. */
  private readonly parts: PartsAssembler;

  constructor(private readonly o: NatsShardTransportOptions) {
    this.parts = new PartsAssembler({ now: () => o.clock.monotonic(), onDrop: o.onPartsDropped });
    this.client = new ShardClient(o.nc, {
      clock: o.clock, prefix: o.shardPrefix,
      onAnswered: (by) => void (by === o.node ? this.counts.batches.here++ : this.counts.batches.elsewhere++),
    });
    this.outPrefix = o.outPrefix ?? 'dc.out';
    this.nodePrefix = o.nodePrefix ?? 'dc.node';
  }

  /** From now on the shards `local` serves take this node's commands directly. */
  serveLocally(local: LocalShards): void {
    this.local = local;
  }

  /**
   * The local host's replies for this node (answers, updates, announcements), in its order: applied on
   * a later turn, after whatever it delivered before (one queue, so an answer never overtakes the
   * update it refers to).
   */
  deliver(shard: number, replies: ShardReply[]): void {
    this.inbox.push({ shard, replies });
    if (this.draining) return;
    this.draining = true;
    setImmediate(() => {
      this.draining = false;
      const inbox = this.inbox;
      this.inbox = [];
      for (const { shard: s, replies: r } of inbox) this.events.get(s)?.replies(r);
    });
  }

  stats(): TransportStats {
    return { received: { ...this.counts.received }, batches: { ...this.counts.batches } };
  }

  open(index: number, events: ShardEvents): ShardChannel {
    const { node, nc } = this.o;
    let closed = false;
    this.events.set(index, events);
    // Each subscription assembles its own parts (two subscriptions matching one subject each get every part).
    let subs = 0;
    const callbackFor = (kind: keyof TransportStats['received'], tag = `${index}.${subs++}`) => (err: Error | null, m: Msg): void => {
      if (err !== null || closed) return;
      if (this.local !== undefined && m.headers?.get(FROM_HEADER) === node) return; // taken locally already
      const data = this.parts.take(tag, m.data, m.headers);
      if (data === undefined) return; // a part of a message not complete yet, or dropped
      let w: ReplyWire;
      try {
        w = decodeReplies(data);
      } catch {
        return; // not a reply batch: nothing of it can be trusted
      }
      this.counts.received[kind]++;
      const mine = w.r.filter((_, i) => w.to[i] === '' || w.to[i] === node || (w.to[i].startsWith('!') && w.to[i] !== `!${node}`));
      if (mine.length > 0) events.replies(mine);
      // Another node took the shard over: it is told what this node follows.
      if (kind === 'broadcast' && w.r.some((r) => r.t === 'resumed')) resendFollows();
    };
    let resendFollows = (): void => {};
    const sub: Subscription = nc.subscribe(outSubject(this.outPrefix, index), { callback: callbackFor('broadcast') });
    // The answers to this node's own commands: only this node hears them (nobody else decodes them).
    const direct: Subscription = nc.subscribe(nodeSubject(this.nodePrefix, node, index), { callback: callbackFor('direct') });
    // The games this node follows of the shard (their owner sends it their updates, on `direct`), and
    // the changes not told to the owner yet; the node that took the last batch (a new owner is told
    // the whole set, as is any owner after a takeover's `resumed`).
    const followed = new Set<string>();
    let changes: FollowChange[] = [];
    let taker: string | undefined;
    const tellAll = (): void => {
      // Each game once however often it is told (a takeover announces many `resumed`).
      changes = latest([...changes, ...[...followed].map((id): FollowChange => [id, true])]);
    };
    resendFollows = () => {
      if (followed.size === 0 || closed) return;
      tellAll();
      void pump();
    };
    let queue: Command[] = [];
    let sending = false;
    const pump = async (): Promise<void> => {
      if (sending) return;
      sending = true;
      try {
        while ((queue.length > 0 || changes.length > 0) && !closed) {
          const all = queue;
          queue = [];
          let f = latest(changes);
          changes = [];
          for (const part of all.length > 0 ? chunked(all) : [[]]) {
            // Served here: straight to the host, in order after what went before (this loop is
            // sequential); nothing to follow, every update of the shard reaches this node.
            if (this.local?.takesHere(index)) {
              f = [];
              taker = node; // the next owner elsewhere is told the whole set
              if (part.length === 0) continue;
              this.counts.batches.local++;
              this.local.take(index, part);
              continue;
            }
            try {
              const { by } = await this.client.exchange(index, encodeCommands(f.length > 0 ? { n: node, c: part, f } : { n: node, c: part }), this.o.deadlineMs);
              f = [];
              if (by !== taker) {
                taker = by;
                tellAll(); // a new owner knows nothing of what this node follows
              }
            } catch (e) {
              changes = [...f, ...changes]; // told with the next batch
              f = [];
              const why = `shard ${index}: ${(e as Error).message}`;
              const answers = part.map((c) => unreachable(c, why)).filter((r): r is ShardReply => r !== null);
              if (answers.length > 0 && !closed) events.replies(answers);
              // No owner now: the next batch, or the next owner's `resumed`, tells it (commands queued meanwhile go on).
              if (part.length === 0 && queue.length === 0) return;
            }
          }
        }
      } finally {
        sending = false;
      }
    };
    return {
      send: (batch) => {
        if (closed) return;
        // Stopping and resuming a shard are its owner's business (ownership.ts), not a caller's:
        // answered here, never sent. A crash request (tests of worker shards) has no meaning here.
        const local: ShardReply[] = [];
        for (const c of batch) {
          if (c.t === 'stop' || c.t === 'resume') local.push({ t: 'done', rid: c.rid });
          else if (c.t !== 'crash') queue.push(c);
        }
        if (local.length > 0) setImmediate(() => !closed && events.replies(local));
        void pump();
      },
      // A game this node starts or stops following: told to the owner ahead of any later command.
      follow: async (id, on) => {
        if (closed || on === followed.has(id)) return;
        if (on) followed.add(id);
        else followed.delete(id);
        changes.push([id, on]);
        void pump();
      },
      close: async () => {
        closed = true;
        if (this.events.get(index) === events) this.events.delete(index);
        queue = [];
        changes = [];
        followed.clear();
        direct.unsubscribe();
        await sub.unsubscribe();
      },
    };
  }
}
