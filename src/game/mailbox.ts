// A small bounded serial mailbox (after lila's AsyncActor): commands run one at a time, in the order
// they were posted, each to completion (including its awaits) before the next starts. That is what
// makes a game actor the only writer of its state without any locking.
//
// Bounded: `offer` refuses once `capacity` commands are waiting or running, so a flood of requests
// for one game is turned away at the door instead of queueing without limit. `push` always accepts;
// it is for the actor's own commands (timers, follow-up rolls), which are bounded by construction.

export type Task = () => Promise<void> | void;

export class Mailbox {
  /** Waiting commands; null when none, so an idle actor (most of them) holds no array at all. */
  private queue: Task[] | null = null;
  /** A drain loop is scheduled or running. */
  private running = false;
  /** A task is executing right now (it has left the queue). */
  private executing = false;
  private idleWaiters: (() => void)[] | null = null;

  constructor(
    readonly capacity = 256,
    /** Called with anything a task throws; the mailbox itself carries on with the next task. */
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  /** Commands waiting plus the one running. */
  get size(): number {
    return (this.queue?.length ?? 0) + (this.executing ? 1 : 0);
  }

  /** Enqueues unless full; false means refused (the caller answers 'busy'). */
  offer(task: Task): boolean {
    if (this.size >= this.capacity) return false;
    this.push(task);
    return true;
  }

  /** Enqueues regardless of capacity. */
  push(task: Task): void {
    (this.queue ??= []).push(task);
    // Start on a microtask, never synchronously: a caller (say a subscriber reacting to an event the
    // actor is publishing) must not find itself running inside another command.
    if (!this.running) {
      this.running = true;
      queueMicrotask(() => void this.drain());
    }
  }

  /** Resolves once nothing is waiting or running. */
  idle(): Promise<void> {
    if (!this.running && this.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.idleWaiters ??= []).push(resolve));
  }

  private async drain(): Promise<void> {
    for (let task = this.queue?.shift(); task; task = this.queue?.shift()) {
      this.executing = true;
      try {
        await task();
      } catch (e) {
        try {
          this.onError(e);
        } catch {
          // An error handler that throws must not stop the mailbox.
        }
      }
      this.executing = false;
    }
    this.queue = null;
    this.running = false;
    const waiters = this.idleWaiters ?? [];
    this.idleWaiters = null;
    for (const w of waiters) w();
  }
}
