// A node's start-up waits for its cluster. Operators start nats-servers and nodes together: for a
// few seconds (longer on a loaded machine) the servers refuse connections, JetStream has no meta
// leader, or it has one but not enough current peers to place an R3 stream ("no suitable peers for
// placement"), and a stream just made may be "not found" by the next server asked. None of that is a
// reason to exit. Every start-up step runs under one `StartWait`: a step that fails for such a
// transient cause is tried again (250 ms doubling to 5 s apart), each wait logged with its cause,
// until the node's start-up budget (`cluster.startTimeoutMs`, counted from the node's start) is
// spent; then the node gives up with the last cause. Anything else (a bad setting, a refused
// credential, a stream whose settings conflict) fails at once. (docs/CLUSTER.md, "Starting a node".)
import { JetStreamApiError } from '@nats-io/jetstream';
import type { Logger } from '../domain/log.js';
import { isTransient } from './store/bucket-copy.js';

/** JetStream API codes that mean "not ready yet" while a cluster forms. */
const NOT_READY_CODES = new Set([
  10005, // no suitable peers for placement
  10008, // JetStream system temporarily unavailable
  10023, // insufficient resources (peers not yet known)
  10039, // JetStream not enabled for account
  10059, // stream not found (made a moment ago, asked of a server that has not applied it)
  10076, // JetStream not enabled
]);

const NOT_READY_TEXT =
  /no suitable peers|temporarily unavailable|insufficient resources|not enabled|not current|stream not found|no responders|timeout|timed out|connection refused|CONNECTION_REFUSED|ECONNREFUSED|ECONNRESET|disconnect|connection closed|no leader|leader not/i;

/** Causes a connection attempt may fail with that no waiting will cure (refused credentials, TLS). */
const CONNECT_FATAL = /authori[sz]ation|authentication|permission|tls|certificate|handshake|invalid/i;

/** True when a start-up step failed because the cluster is not ready yet, not because it is wrong. */
export function notReadyYet(e: unknown): boolean {
  if (isTransient(e)) return true;
  if (e instanceof JetStreamApiError && NOT_READY_CODES.has(e.code)) return true;
  return e instanceof Error && NOT_READY_TEXT.test(e.message);
}

/** True when a connection attempt failed for a cause that may pass (nothing listening yet). */
export function connectMayPass(e: unknown): boolean {
  return !(e instanceof Error && CONNECT_FATAL.test(e.message));
}

/** The node did not come up within its budget, or a step failed for a cause waiting cannot cure. */
export class StartFailed extends Error {
  override readonly name = 'StartFailed';
  constructor(why: string) {
    super(`cluster: cannot start: ${why}`);
  }
}

export interface StartWaitOptions {
  /** The whole start-up's budget (ms), counted from construction. */
  timeoutMs: number;
  log: Logger;
  /** First wait between tries and the longest (default 250 and 5,000 ms). */
  firstWaitMs?: number;
  maxWaitMs?: number;
  /**
   * Elapsed milliseconds. Monotonic by default: a wall clock stepped back or forth while a node
   * starts neither stretches nor cuts its budget.
   */
  elapsed?: () => number;
  /** Waits ms (default a timer). */
  sleep?: (ms: number) => Promise<void>;
  /** Told of every wait, with its cause (the starting edge shows it on /health). */
  onWait?: (step: string, cause: string) => void;
}

export class StartWait {
  private readonly elapsed: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly startedAt: number;
  private done = false;

  constructor(private readonly o: StartWaitOptions) {
    this.elapsed = o.elapsed ?? (() => performance.now());
    this.sleep = o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.startedAt = this.elapsed();
  }

  /** Milliseconds of the budget left. */
  left(): number {
    return this.o.timeoutMs - (this.elapsed() - this.startedAt);
  }

  /** The node is up: later calls of `step` run once, without waiting (nothing is starting any more). */
  finish(): void {
    this.done = true;
  }

  /**
   * Runs `fn` until it succeeds, trying it again while it fails for a cause `retryable` accepts
   * (`notReadyYet` by default) and the budget lasts. Rejects with StartFailed naming the step and the
   * last cause. `cleanup` runs after each failed try (closing what the try opened).
   */
  async step<T>(
    step: string,
    fn: () => Promise<T>,
    o: { retryable?: (e: unknown) => boolean; cleanup?: () => Promise<void> } = {},
  ): Promise<T> {
    const retryable = o.retryable ?? notReadyYet;
    let wait = this.o.firstWaitMs ?? 250;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        await o.cleanup?.().catch(() => {});
        if (e instanceof StartFailed) throw e; // a step inside this one already gave up
        const cause = e instanceof Error ? e.message : String(e);
        if (this.done || !retryable(e)) throw new StartFailed(`${step}: ${cause}`);
        const left = this.left();
        if (left <= 0) {
          throw new StartFailed(`the cluster was not ready within ${Math.round(this.o.timeoutMs / 1000)} s (cluster.startTimeoutMs): ${step}: ${cause}`);
        }
        const retryInMs = Math.min(wait, left);
        this.o.log.warn({ step, attempt, cause, retryInMs }, `cluster: waiting for JetStream (${step}: ${cause})`);
        this.o.onWait?.(step, cause);
        await this.sleep(retryInMs);
        wait = Math.min(wait * 2, this.o.maxWaitMs ?? 5000);
      }
    }
  }
}
