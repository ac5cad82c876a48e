// Following a key-value bucket's changes with a watch that does not stay stuck when a server dies.
//
// A watch is an ordered consumer living on one server. When that server dies, the client notices only
// after missing its heartbeats, which the client library spaces 30 s apart (about a minute in all),
// and on 2.9 a new consumer may even be placed on the dead server, its creation then unanswered until
// it times out. So every `checkEveryMs` the follower asks the bucket for its last revision (the
// stream's leader answers); when the watch delivered nothing since the previous check while the bucket
// holds newer entries, or the watch failed, it starts a new watch from the first revision it has not
// seen. Entries are thus handed over in revision order, each at most once. The buses that share a
// bucket between nodes (token-bus.ts, account-bus.ts) and BucketCopy (bucket-copy.ts) all follow this way.
import type { KV, KvEntry } from '@nats-io/kv';
import type { Clock, TimerHandle } from '../../domain/clock.js';
import { systemClock } from '../../domain/clock.js';

export interface BucketFollowerOptions {
  clock?: Clock;
  /** How often the follower makes sure its watch still follows (default 2 s). */
  checkEveryMs?: number;
  /** Called when a watch fails or is replaced (logs). */
  onRestart?: (why: string) => void;
}

export class BucketFollower {
  /** Highest revision handed over. */
  lastRevision = 0;
  /** Watches started again after a stall or a failure (for tests and logs). */
  restarts = 0;
  private watch: { stop(): void } | undefined;
  private watchError: unknown;
  private checkedRevision = 0;
  private closed = false;
  private timer: TimerHandle | undefined;
  private readonly clock: Clock;

  /** The watch followed now (tests stop it behind the follower's back, as a dead server would). */
  get current(): { stop(): void } | undefined {
    return this.watch;
  }

  private constructor(
    private readonly kv: KV,
    private readonly onEntry: (e: KvEntry) => void,
    private readonly o: BucketFollowerOptions,
  ) {
    this.clock = o.clock ?? systemClock;
  }

  /**
   * Starts following every key (their latest values first, then every change) and resolves once the
   * first watch is made; `failed` is called if that first watch fails before the first check.
   */
  static async start(kv: KV, onEntry: (e: KvEntry) => void, o: BucketFollowerOptions = {}, failed?: (e: unknown) => void): Promise<BucketFollower> {
    const f = new BucketFollower(kv, onEntry, o);
    await f.follow(0, failed);
    f.schedule();
    return f;
  }

  /** Starts a watch (from revision `from`, or every key's latest value when 0) and drops the previous one. */
  private async follow(from: number, failed?: (e: unknown) => void): Promise<void> {
    const watch = await this.kv.watch(from > 0 ? { key: '>', resumeFromRevision: from } : { key: '>' });
    if (this.closed) {
      watch.stop();
      return;
    }
    this.watch?.stop();
    this.watch = watch;
    void (async () => {
      for await (const e of watch) {
        if (this.watch !== watch) break;
        if (e.revision <= this.lastRevision) continue;
        this.lastRevision = e.revision;
        this.onEntry(e);
      }
    })().catch((e: unknown) => {
      if (this.watch !== watch) return;
      this.watchError = e;
      failed?.(e);
    });
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = this.clock.schedule(this.o.checkEveryMs ?? 2_000, () => {
      void this.check().finally(() => this.schedule());
    });
  }

  private async check(): Promise<void> {
    const before = this.checkedRevision;
    this.checkedRevision = this.lastRevision;
    if (this.lastRevision > before && this.watchError === undefined) return; // following
    let last: number;
    try {
      last = (await this.kv.status()).streamInfo.state.last_seq;
    } catch {
      return; // the cluster does not answer now: the next check tries again
    }
    if (this.closed || (last <= this.lastRevision && this.watchError === undefined) || this.lastRevision !== this.checkedRevision) return;
    this.restarts++;
    this.o.onRestart?.(this.watchError !== undefined ? String(this.watchError) : 'watch silent');
    this.watchError = undefined;
    await this.follow(this.lastRevision + 1).catch((e: unknown) => {
      this.watchError = e;
    });
  }

  stop(): void {
    this.closed = true;
    this.timer?.cancel();
    this.watch?.stop();
    this.watch = undefined;
  }
}
