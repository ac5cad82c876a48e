// Time is injected: everything that waits or expires asks a Clock, so tests drive time by hand.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /**
   * Milliseconds since the Unix epoch: wall time, which an operator or NTP may step back or forth.
   * For what is shown or written for other processes to read; never for a deadline kept here.
   */
  now(): number;
  /**
   * Milliseconds on a clock that only moves forward at a steady rate, from an arbitrary origin (this
   * process's): what a deadline or an expiry the process computes for itself is measured on. Timers
   * (`schedule`) run on it too.
   */
  monotonic(): number;
  /** Calls fn once after ms milliseconds (never synchronously). */
  schedule(ms: number, fn: () => void): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  // Node's timers run on the same kind of clock (libuv's monotonic time), not on the wall clock.
  monotonic: () => performance.now(),
  schedule(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * A clock that only moves when told to. Timers fire in due order during advance(), each at its own
 * instant, so expiry logic is tested without sleeping.
 */
export class ManualClock implements Clock {
  /** The monotonic reading; timers fall due on it. */
  private t: number;
  /** What the wall clock reads beyond it (moved by stepWall only). */
  private wallOffset = 0;
  private seq = 0;
  private timers: { due: number; seq: number; fn: () => void; live: boolean }[] = [];
  private readonly runDue: boolean;

  /**
   * With `runDueTimers`, a timer already due when scheduled (0 ms) runs by itself on the next turn of
   * the event loop, as with a real clock; time itself still moves only in advance(). Whole-server
   * tests use it so that "do this right away" work (a house bot's accept) happens without advancing.
   */
  constructor(start = 1_700_000_000_000, opts: { runDueTimers?: boolean } = {}) {
    this.t = start;
    this.runDue = opts.runDueTimers ?? false;
  }

  now(): number {
    return this.t + this.wallOffset;
  }

  /** Starts equal to now(); moves with advance() and jump(), never with stepWall(). */
  monotonic(): number {
    return this.t;
  }

  /**
   * Steps the wall clock (now()) by ms, back when negative, as an operator or NTP might: the
   * monotonic reading and the timers do not move.
   */
  stepWall(ms: number): void {
    this.wallOffset += ms;
  }

  schedule(ms: number, fn: () => void): TimerHandle {
    const timer = { due: this.t + Math.max(0, ms), seq: this.seq++, fn, live: true };
    this.timers.push(timer);
    if (this.runDue && ms <= 0) {
      setImmediate(() => {
        if (!timer.live) return;
        timer.live = false;
        fn();
      });
    }
    return { cancel: () => void (timer.live = false) };
  }

  /**
   * Moves time forward by ms without firing any timer: what a paused process sees on waking, its
   * overdue timers still to run (the next advance() runs them).
   */
  jump(ms: number): void {
    this.t += ms;
  }

  /** Moves time forward by ms, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.timers = this.timers.filter((x) => x.live);
      let next: (typeof this.timers)[number] | undefined;
      for (const x of this.timers) {
        if (x.due <= end && (!next || x.due < next.due || (x.due === next.due && x.seq < next.seq))) next = x;
      }
      if (!next) break;
      this.t = Math.max(this.t, next.due);
      next.live = false;
      next.fn();
    }
    this.t = end;
  }

  /** Number of timers still waiting. */
  pending(): number {
    return this.timers.filter((x) => x.live).length;
  }
}
