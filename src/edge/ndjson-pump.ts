// Output too large to make in one piece (an event's export, game by game; the first line of a large
// event's stream), written to an ndjson stream as it is made: the pieces are taken from an iterator
// only as they can go out. Each turn of the send pacer (send-pacer.ts) takes up to a slice of them,
// and only while the socket takes what was written before (backpressure: after a write uWS could not
// pass on whole, nothing more is made until onWritable). Each slice is admitted by the send budget
// (send-budget.ts) like a large answer: counted as unsent until uWS has passed it on, and within the
// address's bytes per minute; a slice refused for now waits (the reader with it) and is offered again
// after the Retry-After the budget gives. A reader that takes nothing for drainTimeoutMs is cut off.
// So a slow reader holds one slice here, whatever the size of the whole. A source may also hand a
// promise instead of text (a game it must load first, as a cluster node does for finished games out of
// its cache): nothing more is taken from it until that promise settles.
import type { TimerHandle } from '../domain/clock.js';
import type { BugLog, Responder } from './responder.js';
import { DEFAULT_SEND_LIMITS, type SendTicket } from './send-budget.js';
import { SendPacer, type StepResult } from './send-pacer.js';

/** What a pump takes from: text, or a promise to wait for before asking for more. */
export type Pieces = Iterator<string | PromiseLike<unknown>>;

/** What a pump needs of the stream it writes to (ndjson.ts). */
export interface PumpHost {
  readonly res: Responder;
  readonly logger?: BugLog;
  /** uWS holds bytes the socket has not taken yet (no onWritable since). */
  readonly blocked: boolean;
  /** Writes a slice now; the host notes whether uWS could pass it on whole. */
  write(slice: string): void;
  /** Cuts the stream (a source that failed, a reader that took nothing for too long). */
  abort(reason: 'slow' | 'error'): void;
  /** Everything was written: the host sends what waited behind it. */
  done(): void;
}

/** Turns for pumps on a router without a send budget (unit tests); the budget's own pacer otherwise. */
const fallbackPacer = new SendPacer(DEFAULT_SEND_LIMITS);

export class Pump {
  /** A slice made but not written yet (the budget refused it for now). */
  private held = '';
  /** The source is done: once `held` is written, so is everything. */
  private exhausted = false;
  private over = false;
  /** The budget's count of the slice uWS still holds. */
  private ticket: SendTicket | undefined;
  /** The source handed a promise: nothing more is taken from it until it settles. */
  private awaiting = false;
  /** Waiting for the budget to take `held` again, or for the socket to drain (cut off when it fires). */
  private retry: TimerHandle | undefined;
  private drainTimer: TimerHandle | undefined;
  private readonly sender = { step: (maxBytes: number): StepResult => this.step(maxBytes) };

  constructor(
    private readonly host: PumpHost,
    private readonly pieces: Pieces,
    private then: (() => void) | undefined,
  ) {}

  start(): void {
    this.pacer().ready(this.sender);
  }

  /** Runs `after` once everything has been written (after what was asked for before). */
  finally(after: () => void): void {
    const then = this.then;
    this.then = () => {
      then?.();
      after();
    };
  }

  /** uWS passed on what it held: the slice is sent, and the next may be made. */
  drained(): void {
    this.drainTimer?.cancel();
    this.drainTimer = undefined;
    this.settle();
    if (!this.over) this.pacer().ready(this.sender);
  }

  /** The stream closed: nothing more is made, and nothing stays counted. */
  stop(): void {
    this.over = true;
    this.retry?.cancel();
    this.drainTimer?.cancel();
    this.settle();
  }

  private await(p: PromiseLike<unknown>): void {
    this.awaiting = true;
    p.then(
      () => {
        this.awaiting = false;
        if (!this.over) this.pacer().ready(this.sender);
      },
      (err: unknown) => {
        this.awaiting = false;
        if (this.over) return;
        this.host.logger?.error({ err }, 'an ndjson source failed');
        this.host.abort('error');
      },
    );
  }

  private pacer(): SendPacer {
    return this.host.res.sendGate?.budget.pacer ?? fallbackPacer;
  }

  private settle(): void {
    this.ticket?.done();
    this.ticket = undefined;
  }

  /** One turn of the pacer: the next slice, if the socket and the budget take it. */
  private step(maxBytes: number): StepResult {
    const h = this.host;
    if (this.over) return 'over';
    if (h.blocked || this.retry !== undefined || this.awaiting) return 'wait';
    let slice = this.held;
    try {
      while (!this.exhausted && slice.length < maxBytes) {
        const next = this.pieces.next();
        if (next.done) this.exhausted = true;
        else if (typeof next.value === 'string') slice += next.value;
        else {
          this.await(next.value);
          break; // what was made so far still goes out
        }
      }
    } catch (err) {
      h.logger?.error({ err }, 'an ndjson source failed');
      h.abort('error');
      return 'over';
    }
    const gate = h.res.sendGate;
    if (slice !== '' && gate !== undefined) {
      const verdict = gate.budget.admit(gate.address, Buffer.byteLength(slice));
      if (!verdict.ok) {
        this.held = slice;
        this.retry = gate.budget.clock.schedule(verdict.retryAfterSeconds * 1000, () => {
          this.retry = undefined;
          if (!this.over) this.pacer().ready(this.sender);
        });
        return 'wait';
      }
      this.ticket = verdict.ticket;
    }
    this.held = '';
    if (slice !== '') h.write(slice);
    if (!this.exhausted) {
      if (!h.blocked) {
        this.settle();
        return 'more';
      }
      if (gate !== undefined) {
        this.drainTimer = gate.budget.clock.schedule(gate.budget.limits.drainTimeoutMs, () => {
          this.drainTimer = undefined;
          if (!this.over) h.abort('slow');
        });
      }
      return 'wait';
    }
    // The last slice is with uWS, which sends it before the end: nothing more is made here.
    this.stop();
    h.done();
    this.then?.();
    return 'over';
  }
}
