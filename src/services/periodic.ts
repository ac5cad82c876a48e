// A task repeated on the injected clock: the next interval is counted from the end of the previous
// run, so a slow run never overlaps the next one. The ladder's pairing rounds and the rating batch
// both run this way.
import type { Clock, TimerHandle } from '../domain/clock.js';

export class Periodic {
  private timer: TimerHandle | null = null;
  private stopped = true;

  /** `task` reports its own failures; a rejection only ends that run, never the repetition. */
  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly task: () => Promise<unknown>,
  ) {}

  /** The first run comes one interval from now. */
  start(): void {
    this.stopped = false;
    this.arm();
  }

  /** No further runs; a run in progress is not waited for here (its owner knows it). */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.clock.schedule(this.intervalMs, () => {
      this.timer = null;
      const again = () => this.arm();
      this.task().then(again, again);
    });
  }
}
