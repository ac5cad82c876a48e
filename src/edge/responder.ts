// The one object allowed to write to a uWS HttpResponse. uWS invalidates the response after
// onAborted or after end(); touching it then throws from native code. So every write goes through
// here, checks the state first, and is corked (late writes outside cork are slow and warned about).
import type { HttpResponse } from 'uWebSockets.js';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Logger } from '../domain/log.js';
import type { TimerHandle } from '../domain/clock.js';
import { internalError, json, noContent, statusLine, tooManyRequests, type Headers, type Reply } from './reply.js';
import type { SendBudget, SendTicket } from './send-budget.js';
import type { StepResult } from './send-pacer.js';

/** The toolkit reports bugs, and (when asked for, at debug) the requests it refuses by a limit. */
export type BugLog = Pick<Logger, 'error' | 'debug'>;

/** What the access log reads of a request once its response is over (the RequestContext). */
export interface AccessSubject {
  readonly ip: string;
  /** The authenticated caller's id, once the route has authenticated one. */
  readonly identity: string | undefined;
}

export type HeaderList = ReadonlyArray<readonly [string, string]>;
export const NO_HEADERS: HeaderList = [];

/**
 * Called after every non-stream response the toolkit sends (conformance tests hook in here), with
 * the body as the client reads it: a compressed body is handed over decompressed.
 */
export type SendObserver = (status: number, contentType: string | undefined, body: string) => void;

/** 'sending': a large body is still leaving (tryEnd/onWritable); the request holds its places until it has. */
type State = 'open' | 'streaming' | 'sending' | 'done' | 'aborted';

/** Where a large body's bytes are counted: the server's budget and the client's address key. */
export interface SendGate {
  readonly budget: SendBudget;
  readonly address: string;
}

export class Responder {
  private state: State = 'open';
  private abortHandlers: (() => void)[] | undefined;
  private failStream: (() => void) | undefined;
  private finishHook: (() => void) | undefined;
  /** Headers every response on this request carries (CORS); set by the router. */
  baseHeaders: HeaderList = NO_HEADERS;
  /** Unset unless the router was given an observer, so the common path pays one comparison. */
  observer: SendObserver | undefined;
  /** Runs once when the response is complete or the connection is gone (the router's tracking). */
  onSettled: (() => void) | undefined;
  /** The status sent (200 for a stream); 0 while nothing has been. */
  status = 0;
  /** The request, for the access log; set by the router when it reads one. */
  subject: AccessSubject | undefined;
  /** Set by the router: large bodies are streamed with backpressure and counted (send-budget.ts). */
  sendGate: SendGate | undefined;
  private ticket: SendTicket | undefined;
  private drainTimer: TimerHandle | undefined;

  /**
   * Must be constructed synchronously inside the uWS handler: it registers onAborted. head: the
   * request is HEAD, so headers go out but never a body (uWS would send one).
   */
  constructor(
    readonly raw: HttpResponse,
    private readonly logger?: BugLog,
    readonly head = false,
  ) {
    raw.onAborted(() => this.onAbortedByPeer());
  }

  /** The client went away (or the connection was cut); nothing can be sent any more. */
  get aborted(): boolean {
    return this.state === 'aborted';
  }

  /** Nothing has been sent yet. */
  get open(): boolean {
    return this.state === 'open';
  }

  /** A stream owns the response (see ndjson.ts). */
  get streaming(): boolean {
    return this.state === 'streaming';
  }

  /** Runs cb when the client disconnects before the response is complete (at once if it already has). */
  onAbort(cb: () => void): void {
    if (this.state === 'aborted') {
      this.runSafely(cb);
      return;
    }
    (this.abortHandlers ??= []).push(cb);
  }

  /**
   * Runs cb once when this request stops holding anything: its reply went out, its stream ended,
   * or the connection went away. One hook per request (the router's per-address count uses it).
   */
  onFinish(cb: () => void): void {
    if (this.state === 'done' || this.state === 'aborted') this.runSafely(cb);
    else this.finishHook = cb;
  }

  /** Sends a JSON value (or a prebuilt JSON string). 204 is sent without a body. */
  send(status: number, value?: unknown, headers?: Headers): boolean {
    return this.reply(status === 204 ? noContent(headers) : json(status, value, headers));
  }

  /**
   * Sends a complete reply unless something was already sent or the client is gone. closeConnection
   * is for replies sent while the request body is still arriving (413): we won't read the rest.
   */
  reply(r: Reply, closeConnection = false): boolean {
    if (this.state !== 'open') return false;
    this.status = r.status;
    const gate = this.sendGate;
    const body = r.body;
    if (gate !== undefined && body !== undefined && !this.head && r.status !== 204 && r.status !== 304 && !closeConnection) {
      // A UTF-16 unit is at most 3 bytes of UTF-8: most bodies are ruled out without measuring them.
      const maybeLarge = typeof body === 'string' ? body.length * 3 >= gate.budget.limits.largeBodyBytes : gate.budget.isLarge(body.byteLength);
      if (maybeLarge) {
        const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
        if (gate.budget.isLarge(bytes.byteLength)) return this.replyLarge(r, bytes, gate);
      }
    }
    this.state = 'done';
    this.settled();
    const raw = this.raw;
    raw.cork(() => {
      this.writeHead(r);
      // RFC 9110: a 204/304 carries no Content-Length, but end() would add "content-length: 0"; a
      // HEAD answer carries the length of the body it does not send. Only endWithoutBody() with no
      // arguments is safe in this uWS build: a length argument aborts the process or is mangled.
      if (r.status === 204 || r.status === 304) {
        if (closeConnection) raw.end('', true);
        else raw.endWithoutBody();
      } else if (this.head) {
        if (r.body !== undefined) raw.writeHeader('content-length', String(Buffer.byteLength(r.body)));
        raw.endWithoutBody();
      } else raw.end(r.body ?? '', closeConnection);
    });
    if (this.observer !== undefined) this.observe(r);
    return true;
  }

  /**
   * A large body: admitted by the budget (else a 429 goes out instead), then written, head and all, a
   * slice per event-loop turn (send-pacer.ts) with tryEnd and the total size, so that other requests are
   * answered between slices and uWS never holds more than the socket takes. A slice the socket does
   * not take whole waits for onWritable. The bytes are never copied: each slice is a view of them.
   * The request stays in flight (its connection-cap place and the router's tracking) until the last
   * byte has left; a reader that takes nothing for drainTimeoutMs is disconnected.
   */
  private replyLarge(r: Reply, bytes: Uint8Array, gate: SendGate): boolean {
    const verdict = gate.budget.admit(gate.address, bytes.byteLength);
    if (!verdict.ok) {
      // A small problem body: it goes the ordinary way, not counted.
      return this.reply(tooManyRequests(verdict.code, verdict.retryAfterSeconds, verdict.detail));
    }
    this.state = 'sending';
    this.ticket = verdict.ticket;
    const raw = this.raw;
    const pacer = gate.budget.pacer;
    const total = bytes.byteLength;
    let start = -1;
    let sent = 0;
    /** One tryEnd of at most maxBytes from where the socket left off. */
    const write = (maxBytes: number): StepResult => {
      let ok = false;
      let done = false;
      raw.cork(() => {
        if (start < 0) {
          this.writeHead(r);
          start = raw.getWriteOffset();
        }
        [ok, done] = raw.tryEnd(bytes.subarray(sent, Math.min(total, sent + maxBytes)), total);
        if (!done) sent = raw.getWriteOffset() - start;
      });
      if (done) {
        this.sent();
        return 'over';
      }
      this.ticket?.unsent(total - sent);
      if (ok) return 'more';
      this.armDrain(gate);
      return 'wait';
    };
    const sender = {
      step: (maxBytes: number): StepResult => {
        if (this.state !== 'sending') return 'over';
        try {
          return write(maxBytes);
        } catch (err) {
          // A bug, not the client: cut the connection so that the request's places are given back.
          this.logger?.error({ err }, 'writing a large answer failed');
          this.close();
          return 'over';
        }
      },
    };
    raw.onWritable(() => {
      // The socket drained: progress. The next slice goes out on the pacer's next turn.
      if (this.state === 'sending') {
        this.drainTimer?.cancel();
        this.drainTimer = undefined;
        pacer.ready(sender);
      }
      return true;
    });
    // Even the head and the first slice wait for a turn: however many large answers are asked for at
    // once, a turn writes no more than the pacer's budget.
    pacer.ready(sender);
    if (this.observer !== undefined) this.observe(r);
    return true;
  }

  /** Status line, the base (CORS) headers, the reply's own and its content type; inside a cork. */
  private writeHead(r: Reply): void {
    const raw = this.raw;
    const base = this.baseHeaders;
    raw.writeStatus(statusLine(r.status));
    for (let i = 0; i < base.length; i++) raw.writeHeader(base[i][0], base[i][1]);
    const h = r.headers;
    if (h !== undefined) for (const k in h) raw.writeHeader(k, h[k]);
    if (r.contentType !== undefined) raw.writeHeader('content-type', r.contentType);
  }

  /** (Re)starts the no-progress timer of a large body. */
  private armDrain(gate: SendGate): void {
    this.drainTimer?.cancel();
    this.drainTimer = gate.budget.clock.schedule(gate.budget.limits.drainTimeoutMs, () => {
      this.drainTimer = undefined;
      if (this.state === 'sending') this.raw.close();
    });
  }

  /** The last byte of a large body has left. */
  private sent(): void {
    if (this.state !== 'sending') return;
    this.state = 'done';
    this.endSending();
    this.settled();
  }

  private endSending(): void {
    this.drainTimer?.cancel();
    this.drainTimer = undefined;
    this.ticket?.done();
    this.ticket = undefined;
  }

  /** Answers 500 if nothing was sent yet; cuts a stream that was already going. */
  fail(): void {
    if (this.state === 'open') this.reply(internalError());
    else if (this.state === 'streaming') {
      if (this.failStream !== undefined) this.failStream();
      else this.close();
    }
  }

  /**
   * Hands the raw response to a stream writer; undefined if it was already answered or aborted.
   * onFail is how fail() cuts the stream, so that the stream can tell its subscribers why.
   */
  takeForStream(onFail?: () => void): HttpResponse | undefined {
    if (this.state !== 'open') return undefined;
    this.state = 'streaming';
    this.status = 200;
    this.failStream = onFail;
    return this.raw;
  }

  /** The stream writer ended the response itself. */
  streamEnded(): void {
    if (this.state !== 'streaming') return;
    this.state = 'done';
    this.settled();
  }

  /** Forcibly closes the connection; the abort handlers run. */
  close(): void {
    if (this.state === 'open' || this.state === 'streaming' || this.state === 'sending') this.raw.close();
  }

  /** The response is over (answered, stream ended, or aborted): the router's and the caps' hooks run once. */
  private settled(): void {
    const cb = this.onSettled;
    this.onSettled = undefined;
    if (cb !== undefined) this.runSafely(cb);
    this.finished();
  }

  private observe(r: Reply): void {
    try {
      const body = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : decoded(r.body, r.headers?.['content-encoding']).toString('utf8');
      this.observer?.(r.status, r.contentType, body);
    } catch (err) {
      this.logger?.error({ err }, 'response observer failed');
    }
  }

  private onAbortedByPeer(): void {
    // A large body cut off while leaving counts as answered: its handler had already replied.
    const wasDone = this.state === 'done' || this.state === 'sending';
    this.endSending();
    this.state = 'aborted';
    this.settled();
    const handlers = this.abortHandlers;
    this.abortHandlers = undefined;
    if (wasDone || handlers === undefined) return;
    for (const cb of handlers) this.runSafely(cb);
  }

  private finished(): void {
    const hook = this.finishHook;
    if (hook === undefined) return;
    this.finishHook = undefined;
    this.runSafely(hook);
  }

  // A throw inside a uWS callback would take the process down; a bug in a close hook must not.
  private runSafely(cb: () => void): void {
    try {
      cb();
    } catch (err) {
      this.logger?.error({ err }, 'abort handler failed');
    }
  }
}

/** The bytes a client reads from a body sent with `encoding` (only the observer needs them). */
function decoded(body: Uint8Array, encoding: string | undefined): Buffer {
  if (encoding === 'br') return brotliDecompressSync(body);
  if (encoding === 'gzip') return gunzipSync(body);
  return Buffer.from(body);
}
