// ndjson event streams (docs/API.md, "Streams"): one JSON object per line, a blank line as keep-alive,
// live only, and a subscriber that falls too far behind is cut off rather than buffered forever.
//
// Backpressure, as uWS does it: res.write() always takes the whole chunk, and returns false when
// part of it had to stay in uWS's own buffer because the socket is full. From then on we keep lines
// in our queue instead of piling them onto uWS, and hand the queue over in one write when uWS calls
// onWritable. (getWriteOffset() only tracks tryEnd(), which needs the total size up front, so it
// says nothing about a chunked stream.) Memory per subscriber is therefore bounded by our queue
// (maxBufferedBytes) plus at most one earlier flush still inside uWS. Output too large to make at
// once is pumped instead (pump(), ndjson-pump.ts): made piece by piece as the client takes it.
import type { HttpResponse } from 'uWebSockets.js';
import { systemClock, type Clock, type TimerHandle } from '../domain/clock.js';
import { Pump, type Pieces } from './ndjson-pump.js';
import type { BugLog, Responder } from './responder.js';

export const NDJSON_TYPE = 'application/x-ndjson';
export const DEFAULT_KEEP_ALIVE_MS = 25_000;
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;

const STREAM_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-cache, no-store',
  'x-accel-buffering': 'no', // tells nginx-style proxies not to hold lines back
};

/** Why a stream closed: the client left, it was too slow, the server ended it, or a handler failed. */
export type CloseReason = 'client' | 'slow' | 'end' | 'error';

export interface NdjsonOptions {
  readonly clock: Clock;
  /** A blank line after this long without output; 0 disables keep-alives. */
  readonly keepAliveMs: number;
  /** Queued-but-unsent bytes beyond which the subscriber is disconnected. */
  readonly maxBufferedBytes: number;
  /** Reports exceptions thrown by onClose callbacks. */
  readonly logger?: BugLog;
  /**
   * Sends a blank line at once so the client sees the 200 before the first event (the default).
   * False for a body whose first record is made at once (an export): a line-by-line reader then
   * finds a record on line 1, and the status and headers go out with that record.
   */
  readonly blankFirst: boolean;
  /**
   * The response's content type, when the text streamed is not ndjson (an event's PGN export, sent
   * with the same pacing and bounds): such a stream is opened with keep-alives off, since a blank
   * line means something there.
   */
  readonly contentType?: string;
}

export interface NdjsonStream {
  /**
   * Queues one line (a newline is added unless present). Pass the same string to every subscriber:
   * it is written as is. False once the stream is closed, including when this write cut it off.
   */
  write(line: string): boolean;
  /** Flushes what is queued, then ends the response. */
  end(): void;
  /** cb runs exactly once when the stream closes, whatever the cause (at once if already closed). */
  onClose(cb: (reason: CloseReason) => void): void;
  /**
   * Writes what `pieces` yields (parts of lines or whole lines, newlines included), made only as it
   * can go out; `then` runs once the last is written. Lines written meanwhile, and end(), wait for it.
   */
  pump(pieces: Pieces, then?: () => void): void;
  /** Forcibly drops the connection (e.g. the handler failed mid-stream). */
  abort(reason?: CloseReason): void;
  readonly closed: boolean;
  /** Bytes held back because the client is not reading fast enough (for metrics and tests). */
  readonly queuedBytes: number;
}

/**
 * Starts a 200 ndjson response. The status, headers and a first blank line go out at once (unless blankFirst is false): uWS
 * sends nothing until the first body write, and a client must see the 200 before the first event.
 */
export function openNdjson(res: Responder, opts: Partial<NdjsonOptions> = {}): NdjsonStream {
  const options: NdjsonOptions = {
    clock: opts.clock ?? systemClock,
    keepAliveMs: opts.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    maxBufferedBytes: opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    logger: opts.logger,
    blankFirst: opts.blankFirst ?? true,
    contentType: opts.contentType,
  };
  if (res.head) {
    // HEAD: the status and headers a GET would get, and no stream behind them.
    res.reply({ status: 200, body: undefined, contentType: options.contentType ?? NDJSON_TYPE, headers: STREAM_HEADERS });
    return new Stream(res, undefined, options, 'end');
  }
  let stream: Stream | undefined;
  const raw = res.takeForStream(() => stream?.abort('error'));
  if (raw === undefined) return new Stream(res, undefined, options, res.aborted ? 'client' : 'end');
  stream = new Stream(res, raw, options, undefined);
  return stream;
}

/** The response an open stream writes to (undefined for HEAD or a closed one). */
export function responseOf(stream: NdjsonStream): HttpResponse | undefined {
  return stream instanceof Stream ? stream.response : undefined;
}

/** Streams holding lines written inside `gatherWrites`, to send when it returns. */
let gathering: Set<Stream> | null = null;

/**
 * Runs `fn`, holding back every stream line it writes, then sends each stream's lines in one socket
 * write. The game shards' replies are applied inside it: a batch often holds several versions of
 * one game (a turn, then the next roll), and each subscriber then gets one write for all of them.
 */
export function gatherWrites(fn: () => void): void {
  if (gathering !== null) {
    fn();
    return;
  }
  const held = new Set<Stream>();
  gathering = held;
  try {
    fn();
  } finally {
    gathering = null;
    for (const s of held) s.sendGathered();
  }
}

class Stream implements NdjsonStream {
  private queue: string[] = [];
  private pendingBytes = 0;
  /** uWS reported backpressure and has not called onWritable since. */
  private blocked = false;
  /** When the last bytes (a line or a keep-alive) were handed to the socket or the queue. */
  private lastWriteAt = 0;
  private timer: TimerHandle | undefined;
  private handlers: ((reason: CloseReason) => void)[] = [];
  private closedWith: CloseReason | undefined;
  /** Set before we close the socket ourselves, so the abort it triggers reports the real cause. */
  private cutReason: CloseReason | undefined;
  /** Lines written inside gatherWrites, sent when it returns. */
  private gathered = '';
  /** Output being pumped (pump()); lines written meanwhile queue behind it. */
  private pumping: Pump | undefined;

  constructor(
    private readonly res: Responder,
    private readonly raw: HttpResponse | undefined,
    private readonly o: NdjsonOptions,
    alreadyClosed: CloseReason | undefined,
  ) {
    if (raw === undefined) {
      this.closedWith = alreadyClosed ?? 'end';
      return;
    }
    res.onAbort(() => this.finish(this.cutReason ?? 'client'));
    raw.onWritable(() => {
      this.drain();
      return true;
    });
    const base = res.baseHeaders;
    raw.cork(() => {
      raw.writeStatus('200 OK');
      for (const [k, v] of base) raw.writeHeader(k, v);
      raw.writeHeader('content-type', o.contentType ?? NDJSON_TYPE);
      for (const k in STREAM_HEADERS) raw.writeHeader(k, STREAM_HEADERS[k]);
      if (o.blankFirst) this.push(raw, '\n');
    });
    this.lastWriteAt = o.clock.now();
    this.arm(o.keepAliveMs);
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** The response under the stream (an edge thread's stand-in may carry the lines itself). */
  get response(): HttpResponse | undefined {
    return this.raw;
  }

  get queuedBytes(): number {
    return this.pendingBytes;
  }

  write(line: string): boolean {
    const raw = this.raw;
    if (this.closedWith !== undefined || raw === undefined) return false;
    const s = line.charCodeAt(line.length - 1) === 10 ? line : line + '\n';
    this.lastWriteAt = this.o.clock.now();
    if (!this.blocked && this.pumping === undefined) {
      if (gathering !== null) {
        this.gathered += s;
        gathering.add(this);
      } else {
        raw.cork(() => this.push(raw, s));
      }
      return true;
    }
    this.queue.push(s);
    this.pendingBytes += Buffer.byteLength(s);
    if (this.pendingBytes > this.o.maxBufferedBytes) {
      this.abort('slow');
      return false;
    }
    return true;
  }

  /** The lines held by gatherWrites, in one write. */
  sendGathered(): void {
    const data = this.gathered;
    this.gathered = '';
    const raw = this.raw;
    if (data === '' || this.closedWith !== undefined || raw === undefined) return;
    raw.cork(() => this.push(raw, data));
  }

  end(): void {
    const raw = this.raw;
    if (this.closedWith !== undefined || raw === undefined) return;
    if (this.pumping !== undefined) return this.pumping.finally(() => this.end());
    const rest = this.gathered + this.takeQueue();
    this.gathered = '';
    // uWS keeps whatever the socket cannot take yet and sends it before the final chunk.
    raw.cork(() => {
      if (rest !== '') raw.write(rest);
      raw.end();
    });
    this.res.streamEnded();
    this.finish('end');
  }

  abort(reason: CloseReason = 'error'): void {
    if (this.closedWith !== undefined) return;
    this.cutReason = reason;
    this.res.close(); // runs the abort handlers, hence finish(reason)
    this.finish(reason);
  }

  onClose(cb: (reason: CloseReason) => void): void {
    if (this.closedWith !== undefined) this.call(cb, this.closedWith);
    else this.handlers.push(cb);
  }

  private push(raw: HttpResponse, s: string): void {
    if (!raw.write(s)) this.blocked = true;
  }

  pump(pieces: Pieces, then?: () => void): void {
    const raw = this.raw;
    if (this.closedWith !== undefined || raw === undefined) return;
    if (this.pumping !== undefined) throw new Error('a stream pumps one source at a time');
    const stream = this;
    this.pumping = new Pump({
      res: this.res, logger: this.o.logger,
      get blocked() { return stream.blocked; },
      write: (slice) => {
        this.lastWriteAt = this.o.clock.now();
        raw.cork(() => this.push(raw, slice));
      },
      abort: (reason) => this.abort(reason),
      done: () => {
        this.pumping = undefined;
        if (!this.blocked) this.drain();
      },
    }, pieces, then);
    this.pumping.start();
  }

  private drain(): void {
    const raw = this.raw;
    if (this.closedWith !== undefined || raw === undefined) return;
    this.blocked = false;
    if (this.pumping !== undefined) return this.pumping.drained();
    const data = this.takeQueue();
    if (data !== '') raw.cork(() => this.push(raw, data));
  }

  private takeQueue(): string {
    const q = this.queue;
    if (q.length === 0) return '';
    this.queue = [];
    this.pendingBytes = 0;
    return q.length === 1 ? q[0] : q.join('');
  }

  private arm(ms: number): void {
    if (this.o.keepAliveMs > 0) this.timer = this.o.clock.schedule(ms, () => this.tick());
  }

  /**
   * One timer per stream, not one per write: when it fires early (a line went out since it was set),
   * it sleeps again until exactly one period after that line, so the silence between any two things
   * written never exceeds the period.
   */
  private tick(): void {
    const raw = this.raw;
    if (this.closedWith !== undefined || raw === undefined) return;
    const period = this.o.keepAliveMs;
    const now = this.o.clock.now();
    const quietFor = now - this.lastWriteAt;
    if (quietFor < period) {
      this.arm(period - quietFor);
      return;
    }
    // A blocked socket still has bytes of ours to send, and gains nothing from one more queued; a
    // pumped line may be half-written.
    if (!this.blocked && this.pumping === undefined) raw.cork(() => this.push(raw, '\n'));
    this.lastWriteAt = now;
    this.arm(period);
  }

  private finish(reason: CloseReason): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = reason;
    this.timer?.cancel();
    this.timer = undefined;
    this.queue = [];
    this.gathered = '';
    this.pendingBytes = 0;
    this.pumping?.stop();
    this.pumping = undefined;
    const hs = this.handlers;
    this.handlers = [];
    for (const h of hs) this.call(h, reason);
  }

  private call(cb: (reason: CloseReason) => void, reason: CloseReason): void {
    try {
      cb(reason);
    } catch (err) {
      this.o.logger?.error({ err }, 'ndjson close callback failed');
    }
  }
}
