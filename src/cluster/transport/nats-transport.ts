// The shard transport of a cluster node: the main side's ShardedGames talks to logical shard `s`
// wherever it runs. Command batches go to the owner with a ShardClient (`dc.shard.<s>`, one at a time
// per shard, retried with the same id); answers come back on the asking node's own subject
// `dc.node.<name>.<s>`, announcements every node needs (a game started, resumed or ended, the shard's
// heads) on `dc.out.<s>`, a game's updates on `dc.out.<s>.<game>` (the nodes that follow the game or
// own its shard).
// Invariant: replies travel on core NATS (at most once, unordered across a reconnect), which the shard
// protocol copes with; an answer names the node that asked, and a node drops what is not its own.
// (docs/CLUSTER.md, "A node: `dicechess serve --cluster`", main side).
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { PartsAssembler } from './reply-parts.js';
import type { Clock } from '../../domain/clock.js';
import { codec } from '../../domain/codec.js';
import { chunked, type Command, type ShardReply } from '../../shard/protocol/messages.js';
import type { ShardChannel, ShardEvents, ShardTransport } from '../../shard/protocol/transport.js';
import { ShardClient } from './shard-link.js';

/** A command batch as it crosses: the sender node and its commands. */
export interface CommandWire {
  n: string;
  c: Command[];
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

export const outSubject = (prefix: string, shard: number): string => `${prefix}.${shard}`;
/** The subject of the answers for one node from shard `shard` (node names are valid subject tokens). */
export const nodeSubject = (prefix: string, node: string, shard: number): string => `${prefix}.${node}.${shard}`;
/** The subject of one game's updates (game ids are base62: valid subject tokens). */
export const gameSubject = (prefix: string, shard: number, id: string): string => `${prefix}.${shard}.${id}`;

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

/** The answer a request gets when its batch could not reach any owner in time. */
function unreachable(c: Command, why: string): ShardReply | null {
  // A game command's sender turns `failed` into the command's own "lost" answer ('busy' for a move).
  if (!('rid' in c)) return null;
  return { t: 'failed', rid: c.rid, error: why };
}

/** What crossed NATS for this node since it started (for /metrics and the tests). */
export interface TransportStats {
  /** Reply messages decoded, by the subject they came on: the shard's broadcast, this node's own, a game's. */
  received: { broadcast: number; direct: number; game: number };
  /** Command batches sent to a shard's owner, by who took them: this node itself, or another node. */
  batches: { here: number; elsewhere: number };
}

export class NatsShardTransport implements ShardTransport {
  private readonly client: ShardClient;
  private readonly outPrefix: string;
  private readonly nodePrefix: string;
  private readonly counts: TransportStats = { received: { broadcast: 0, direct: 0, game: 0 }, batches: { here: 0, elsewhere: 0 } };
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

  stats(): TransportStats {
    return { received: { ...this.counts.received }, batches: { ...this.counts.batches } };
  }

  open(index: number, events: ShardEvents): ShardChannel {
    const { node, nc } = this.o;
    let closed = false;
    // Each subscription assembles its own parts (two subscriptions matching one subject each get every part).
    let subs = 0;
    const callbackFor = (kind: keyof TransportStats['received'], tag = `${index}.${subs++}`) => (err: Error | null, m: Msg): void => {
      if (err !== null || closed) return;
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
    };
    const sub: Subscription = nc.subscribe(outSubject(this.outPrefix, index), { callback: callbackFor('broadcast') });
    // The answers to this node's own commands: only this node hears them (nobody else decodes them).
    const direct: Subscription = nc.subscribe(nodeSubject(this.nodePrefix, node, index), { callback: callbackFor('direct') });
    // The games followed one by one, and the whole shard's (a wildcard) while this node owns it.
    const games = new Map<string, Subscription>();
    let all: Subscription | undefined;
    const settle = async (): Promise<void> => {
      if (!closed && !nc.isClosed()) await nc.flush().catch(() => {});
    };
    let queue: Command[] = [];
    let sending = false;
    const pump = async (): Promise<void> => {
      if (sending) return;
      sending = true;
      try {
        while (queue.length > 0 && !closed) {
          const all = queue;
          queue = [];
          for (const part of chunked(all)) {
            try {
              await this.client.send(index, encodeCommands({ n: node, c: part }), this.o.deadlineMs);
            } catch (e) {
              const why = `shard ${index}: ${(e as Error).message}`;
              const answers = part.map((c) => unreachable(c, why)).filter((r): r is ShardReply => r !== null);
              if (answers.length > 0 && !closed) events.replies(answers);
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
      follow: async (id, on) => {
        const had = games.get(id);
        if (on === (had !== undefined) || closed) return;
        if (on) games.set(id, nc.subscribe(gameSubject(this.outPrefix, index, id), { callback: callbackFor('game') }));
        else {
          games.delete(id);
          had?.unsubscribe();
        }
        await settle();
      },
      followAll: async (on) => {
        if (on === (all !== undefined) || closed) return;
        if (on) all = nc.subscribe(gameSubject(this.outPrefix, index, '*'), { callback: callbackFor('game') });
        else {
          all?.unsubscribe();
          all = undefined;
        }
        await settle();
      },
      close: async () => {
        closed = true;
        queue = [];
        for (const g of games.values()) g.unsubscribe();
        games.clear();
        all?.unsubscribe();
        direct.unsubscribe();
        await sub.unsubscribe();
      },
    };
  }
}
