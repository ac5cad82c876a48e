// Main's link to each shard: its channel, the batching of commands (one batch per shard per
// event-loop turn, cut by size), and its life: a shard that dies is opened again (after a growing
// pause when it keeps dying) and, while it takes its games back, the commands for it are held, then
// sent in the order they came. What a death means for the games is the owner's (ShardedGames) say.
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import { chunked, type Command, type ShardReply } from '../protocol/messages.js';
import type { ShardChannel, ShardTransport } from '../protocol/transport.js';

/** Commands one restarting shard may hold for later; past it they are answered at once. */
export const HELD_MAX = 10_000;

/** After this many deaths in a row within RESTART_WINDOW_MS, restarts wait (doubling, capped). */
const RESTART_WINDOW_MS = 10_000;
const RESTART_DELAY_MAX_MS = 30_000;

export interface ShardLink {
  index: number;
  channel: ShardChannel;
  out: Command[];
  flushing: boolean;
  cpuSeconds: number;
  /** V8 heap of the shard's thread (bytes), from its last stats. */
  heap: { used: number; total: number };
  deaths: number;
  lastDeath: number;
  /** Between its death and the end of its games' resume: commands wait in `held`, not sent. */
  restarting: boolean;
  held: Command[];
  /** Grows at every death, so a restart overtaken by another death stands down. */
  generation: number;
  /** The games its last `heads` named. */
  reported: string[];
}

export interface ShardLinksDeps {
  transport: ShardTransport;
  count: number;
  clock: Clock;
  log: Logger;
  replies(index: number, batch: readonly ShardReply[]): void;
  /** The shard died: answer what waited on it, close its games' streams (before any restart). */
  lost(index: number, err: Error): void;
  /** A command that cannot be held (the bound is reached): answer it now. */
  refuse(c: Command, index: number): void;
  /** The shard is open again: hand it its games back (the commands held meanwhile go afterwards). */
  reopened(index: number, err: Error): Promise<void>;
  /** Stopping: no restart. */
  stopping(): boolean;
}

export class ShardLinks {
  readonly all: ShardLink[];

  constructor(private readonly deps: ShardLinksDeps) {
    this.all = Array.from({ length: deps.count }, (_, index) => ({
      index, channel: this.open(index), out: [], flushing: false, cpuSeconds: 0, heap: { used: 0, total: 0 }, deaths: 0, lastDeath: 0, restarting: false, held: [], generation: 0, reported: [],
    }));
  }

  private open(index: number): ShardChannel {
    return this.deps.transport.open(index, {
      replies: (batch) => this.deps.replies(index, batch),
      died: (err) => this.died(index, err),
    });
  }

  /** Queues a command for its shard (`bypass`: even while it restarts, as its resume does). */
  enqueue(shard: ShardLink, c: Command, bypass = false): void {
    if (shard.restarting && !bypass) {
      // Sent once the shard has its games back; past the bound, answered at once instead.
      if (shard.held.length < HELD_MAX) shard.held.push(c);
      else this.deps.refuse(c, shard.index);
      return;
    }
    shard.out.push(c);
    if (shard.flushing) return;
    shard.flushing = true;
    // One message per shard per event-loop turn: every command of this turn rides together.
    setImmediate(() => {
      shard.flushing = false;
      const batch = shard.out;
      shard.out = [];
      // Bounded in bytes and count: a big turn (a resume of many games) goes as several batches.
      for (const part of chunked(batch)) shard.channel.send(part);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((s) => s.channel.close()));
  }

  private died(index: number, err: Error): void {
    const shard = this.all[index];
    shard.restarting = true;
    shard.generation++;
    this.deps.log.error({ shard: index, err: err.stack ?? err.message }, 'shard died; restarting it');
    shard.out = [];
    shard.held = [];
    shard.channel.close().catch(() => {});
    this.deps.lost(index, err);
    if (this.deps.stopping()) return;
    const now = this.deps.clock.now();
    shard.deaths = now - shard.lastDeath < RESTART_WINDOW_MS ? shard.deaths + 1 : 1;
    shard.lastDeath = now;
    const delay = shard.deaths <= 1 ? 0 : Math.min(RESTART_DELAY_MAX_MS, 250 * 2 ** shard.deaths);
    const generation = shard.generation;
    setTimeout(() => void this.restart(shard, err, generation), delay).unref();
  }

  private async restart(shard: ShardLink, err: Error, generation: number): Promise<void> {
    if (this.deps.stopping() || generation !== shard.generation) return;
    shard.channel = this.open(shard.index);
    await this.deps.reopened(shard.index, err);
    // Died again meanwhile: the newer restart takes over.
    if (generation !== shard.generation) return;
    // Its games are back: what waited meanwhile goes now, in the order it came.
    shard.restarting = false;
    const held = shard.held;
    shard.held = [];
    for (const c of held) this.enqueue(shard, c);
    this.deps.log.info({ shard: shard.index }, 'shard restarted');
  }
}
