// Takes turns between large answers so that none of them holds the main thread for long. A single
// tryEnd of a 25 MB body writes as much as the kernel takes in one go (several megabytes on
// loopback), and while eight clients read such bodies every event-loop turn was spent copying them:
// a /health arriving meanwhile waited ~10 ms. Here each large answer writes one slice (sliceBytes)
// per turn, and all of them together at most bytesPerTurn; then the loop goes back to its sockets, so
// the requests that arrived meanwhile are read and answered before the next slices go out.
//
// A sender whose socket is full waits for uWS's onWritable and then asks for a turn again; one whose
// slice was taken whole is simply queued for the next turn. Senders take turns in order: whoever was
// not served in a turn (the per-turn budget ran out) goes first in the next.

/** What one turn did for a sender. */
export type StepResult =
  /** The slice was taken whole and more is left: give me another turn. */
  | 'more'
  /** The socket is full: I ask again when it drains (onWritable). */
  | 'wait'
  /** Finished, aborted or closed: forget me. */
  | 'over';

export interface PacedSender {
  /** Writes at most `maxBytes` of the body (one tryEnd, corked). */
  step(maxBytes: number): StepResult;
}

export interface PaceLimits {
  /** Bytes one answer writes per turn of the event loop. */
  sliceBytes: number;
  /** Bytes all large answers together write per turn. */
  bytesPerTurn: number;
}

/** Runs cb on a later turn of the event loop, after pending I/O (setImmediate in production). */
export type Defer = (cb: () => void) => void;

export class SendPacer {
  private queue: PacedSender[] = [];
  /** The senders in the queue: one asking twice before its turn still gets one slice. */
  private readonly queued = new Set<PacedSender>();
  private scheduled = false;
  /** Turns taken and slices written so far (tests, the bench). */
  turns = 0;
  slices = 0;

  constructor(
    readonly limits: PaceLimits,
    private readonly defer: Defer = setImmediate,
  ) {}

  /** Senders waiting for their next turn. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Asks for a turn on the next pass (asking again before it has come changes nothing). */
  ready(sender: PacedSender): void {
    if (this.queued.has(sender)) return;
    this.queued.add(sender);
    this.queue.push(sender);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    this.defer(() => this.turn());
  }

  private turn(): void {
    this.scheduled = false;
    this.turns++;
    const now = this.queue;
    this.queue = [];
    const { sliceBytes, bytesPerTurn } = this.limits;
    let budget = bytesPerTurn;
    let i = 0;
    // Every turn serves at least one sender, whatever the budget.
    for (; i < now.length && (i === 0 || budget > 0); i++) {
      const slice = Math.max(1, Math.min(sliceBytes, budget));
      if (Number.isFinite(budget)) budget -= slice;
      this.slices++;
      this.queued.delete(now[i]);
      let r: StepResult;
      try {
        r = now[i].step(slice);
      } catch {
        r = 'over'; // a sender's own bug must not stop the others (the responder logs its errors)
      }
      if (r === 'more' && !this.queued.has(now[i])) {
        this.queued.add(now[i]);
        this.queue.push(now[i]);
      }
    }
    // Those the budget did not reach go first next time, ahead of those just served.
    if (i < now.length) this.queue = now.slice(i).concat(this.queue);
    this.schedule();
  }
}
