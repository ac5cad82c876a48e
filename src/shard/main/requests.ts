// What main waits for from its shards: every command with a `rid`, until its reply comes. A command
// is sent again (the same `rid`, so its owner acts on it once) while no reply has come, a few times
// with a growing pause, and answered at its deadline if none ever does: a transport may lose a
// command or its reply, and nothing here waits forever or grows without bound.
import type { Clock, TimerHandle } from '../../domain/clock.js';
import type { Command, ShardReply } from '../protocol/messages.js';

/** One request waiting for its reply. */
export interface Waiting {
  shard: number;
  /** The command as sent, sent again as it is while no reply comes. */
  cmd: Extract<Command, { rid: number }>;
  deadline: number;
  /** Sends so far, and when the next one is due. */
  sends: number;
  nextSend: number;
  /** Games this request has had announced (`started` / `resumed` with its rid). */
  announced: Set<string> | null;
  /** Sent even to a restarting shard (its resume, and what the resume asks). */
  bypass: boolean;
  /** The reply came (the first one: later copies find nothing waiting), with the games announced. */
  settle(r: ShardReply, announced: ReadonlySet<string>): void;
  /** No reply will come: the deadline passed, or the shard died. */
  fail(why: string): void;
}

export interface RequestsDeps {
  clock: Clock;
  /** Puts a command on its shard's way; `again`: a resend of one already sent. */
  send(shard: number, cmd: Command, again: boolean, bypass: boolean): void;
  /** Requests waiting at once, across shards; past it `open` refuses. */
  max: number;
  /** Pause before the first resend (ms); it doubles at each one, up to RESEND_MAX_MS. */
  resendMs: number;
  /** Sends of one command at most (the first included). */
  maxSends: number;
}

/** How often deadlines and resends are checked (on the injected clock). */
export const SWEEP_EVERY_MS = 1000;
const RESEND_MAX_MS = 8000;
const NONE: ReadonlySet<string> = new Set();

export class Requests {
  private readonly waiting = new Map<number, Waiting>();
  /** Random start: a shard that outlives this main (a remote one) never mistakes a new rid for an old one. */
  private nextRid = 1 + Math.floor(Math.random() * 2 ** 40);
  private sweeping: TimerHandle | null = null;
  private stopped = false;

  constructor(private readonly deps: RequestsDeps) {}

  get size(): number {
    return this.waiting.size;
  }

  full(): boolean {
    return this.waiting.size >= this.deps.max;
  }

  /**
   * Sends `make(rid)` to `shard` and waits for its reply; false (nothing sent) when too many wait.
   * `announces`: the command makes games appear (create, pair, resume), see `announced`.
   */
  open(
    shard: number,
    make: (rid: number) => Extract<Command, { rid: number }>,
    opts: { timeoutMs: number; announces?: boolean; bypass?: boolean },
    on: Pick<Waiting, 'settle' | 'fail'>,
  ): boolean {
    if (this.full()) return false;
    const rid = this.nextRid++;
    const cmd = make(rid);
    const now = this.deps.clock.now();
    this.waiting.set(rid, {
      shard, cmd, deadline: now + opts.timeoutMs, sends: 1, nextSend: now + this.deps.resendMs, announced: opts.announces ? new Set() : null, bypass: opts.bypass ?? false, ...on,
    });
    this.sweeping ??= this.deps.clock.schedule(SWEEP_EVERY_MS, () => this.sweep());
    this.deps.send(shard, cmd, false, opts.bypass ?? false);
    return true;
  }

  /** The request waiting for this reply, if any (an announcement peeks: its command still waits). */
  peek(rid: number): Waiting | undefined {
    return this.waiting.get(rid);
  }

  /** A reply: the request it answers, taken (a second copy of the reply finds nothing). */
  answer(r: Extract<ShardReply, { rid: number }>): void {
    const w = this.waiting.get(r.rid);
    if (w === undefined) return;
    this.waiting.delete(r.rid);
    w.settle(r, w.announced ?? NONE);
  }

  /** One request that will not be answered (it could not even be sent). */
  fail(rid: number, why: string): void {
    const w = this.waiting.get(rid);
    if (w === undefined) return;
    this.waiting.delete(rid);
    w.fail(why);
  }

  /** Fails every request waiting on `shard` (it died): each gets its answer now. */
  failShard(shard: number, why: string): void {
    for (const [rid, w] of this.waiting) {
      if (w.shard !== shard) continue;
      this.waiting.delete(rid);
      w.fail(why);
    }
  }

  /** The server stops: no more resends, and whatever still waits is answered now. */
  stop(): void {
    this.stopped = true;
    this.sweeping?.cancel();
    this.sweeping = null;
    for (const [rid, w] of this.waiting) {
      this.waiting.delete(rid);
      w.fail('the game shards are stopping');
    }
  }

  private sweep(): void {
    this.sweeping = null;
    const now = this.deps.clock.now();
    for (const [rid, w] of this.waiting) {
      if (w.deadline <= now) {
        this.waiting.delete(rid);
        w.fail(`shard ${w.shard} did not answer in time`);
      } else if (w.nextSend <= now && w.sends < this.deps.maxSends) {
        w.sends++;
        w.nextSend = now + Math.min(RESEND_MAX_MS, this.deps.resendMs * 2 ** (w.sends - 1));
        this.deps.send(w.shard, w.cmd, true, w.bypass);
      }
    }
    if (this.waiting.size > 0 && !this.stopped) this.sweeping = this.deps.clock.schedule(SWEEP_EVERY_MS, () => this.sweep());
  }
}
