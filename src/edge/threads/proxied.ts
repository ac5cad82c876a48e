// Main's stand-ins for uWS's HttpRequest and HttpResponse of a request taken by an edge thread. The
// router, the responder, the streams and the web of handlers run on main unchanged against these:
// a request is what the edge read of it, and a response turns every write into a message for the
// edge thread, which makes the same calls on the real connection. What main must know of the
// connection (the client left, the socket is full, a sized answer's progress) comes back as messages.
import type { HttpRequest, HttpResponse, RecognizedString } from 'uWebSockets.js';
import { bytesOf, DOWN, type DownMessage } from './protocol.js';

/**
 * How far a sized answer (tryEnd) may run ahead of what the edge thread has handed to its socket.
 * Past it main waits for the edge's progress, so an answer to a reader who takes nothing holds at most
 * this much on the edge thread, and the responder's drain timeout and byte counts see the real pace.
 */
export const SIZED_WINDOW_BYTES = 256 * 1024;

/** Where a response's messages go: the link to its edge thread. */
export interface DownSink {
  send(msg: DownMessage): void;
  /** The response is over on main: the link forgets it. */
  forget(id: number): void;
}

export class ProxiedRequest {
  private headers: Map<string, string> | undefined;

  constructor(
    private readonly method: string,
    private readonly url: string,
    private readonly query: string | null,
    private readonly params: readonly string[],
    private readonly flatHeaders: readonly string[],
  ) {}

  getUrl(): string {
    return this.url;
  }
  getQuery(): string | undefined {
    return this.query ?? undefined;
  }
  getMethod(): string {
    return this.method.toLowerCase();
  }
  getCaseSensitiveMethod(): string {
    return this.method;
  }
  getParameter(i: number): string {
    return this.params[i] ?? '';
  }
  /** As uWS: '' when absent; the first of repeated headers. */
  getHeader(name: string): string {
    if (this.headers === undefined) {
      const m = new Map<string, string>();
      const h = this.flatHeaders;
      for (let i = 0; i + 1 < h.length; i += 2) if (!m.has(h[i])) m.set(h[i], h[i + 1]);
      this.headers = m;
    }
    return this.headers.get(name) ?? '';
  }
  forEach(cb: (key: string, value: string) => void): void {
    const h = this.flatHeaders;
    for (let i = 0; i + 1 < h.length; i += 2) cb(h[i], h[i + 1]);
  }
  setYield(): this {
    return this;
  }
}

type State = 'open' | 'ended' | 'gone';

export class ProxiedResponse {
  private state: State = 'open';
  private abortCb: (() => void) | undefined;
  private dataCb: ((chunk: ArrayBuffer, last: boolean) => void) | undefined;
  private writableCb: ((offset: number) => boolean) | undefined;
  /** The edge reported a full socket and no drain since. */
  private blocked = false;
  /** Sized answer: body bytes sent to the edge, and those it has handed to its socket. */
  private forwarded = 0;
  private confirmed = 0;

  constructor(
    readonly id: number,
    private readonly sink: DownSink,
    private readonly peer: Uint8Array,
  ) {}

  // ── what the edge thread reports ──

  data(chunk: Uint8Array, last: boolean): void {
    if (this.state !== 'open') return;
    // The handler may keep the chunk past this call (uWS would neuter it; ours is a copy it owns).
    this.dataCb?.(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer, last);
  }

  aborted(): void {
    if (this.state === 'gone') return;
    const wasOpen = this.state === 'open';
    this.state = 'gone';
    this.sink.forget(this.id);
    if (wasOpen) this.abortCb?.();
  }

  isBlocked(): void {
    if (this.state === 'open') this.blocked = true;
  }

  writable(offset: number): void {
    if (this.state !== 'open') return;
    this.blocked = false;
    if (offset > this.confirmed) this.confirmed = offset;
    this.writableCb?.(this.confirmed);
  }

  // ── HttpResponse, as the edge toolkit uses it ──

  onAborted(cb: () => void): this {
    this.abortCb = cb;
    return this;
  }
  onData(cb: (chunk: ArrayBuffer, last: boolean) => void): this {
    this.dataCb = cb;
    return this;
  }
  onWritable(cb: (offset: number) => boolean): this {
    this.writableCb = cb;
    return this;
  }
  cork(cb: () => void): this {
    cb();
    return this;
  }
  getRemoteAddressAsText(): ArrayBuffer {
    const p = this.peer;
    return p.buffer.slice(p.byteOffset, p.byteOffset + p.byteLength) as ArrayBuffer;
  }
  writeStatus(status: RecognizedString): this {
    if (this.state === 'open') this.sink.send([DOWN.STATUS, this.id, String(status)]);
    return this;
  }
  writeHeader(name: RecognizedString, value: RecognizedString): this {
    if (this.state === 'open') this.sink.send([DOWN.HEADER, this.id, String(name), String(value)]);
    return this;
  }
  /** As uWS: takes the whole chunk; false when the socket is known to be full (the rest waits there). */
  write(chunk: RecognizedString): boolean {
    if (this.state !== 'open') return false;
    this.sink.send([DOWN.WRITE, this.id, bytesOf(chunk as string | ArrayBuffer | ArrayBufferView)]);
    return !this.blocked;
  }
  end(body?: RecognizedString, closeConnection?: boolean): this {
    if (this.state !== 'open') return this;
    const bytes = body === undefined ? null : bytesOf(body as string | ArrayBuffer | ArrayBufferView);
    this.sink.send([DOWN.END, this.id, bytes, closeConnection === true]);
    this.over();
    return this;
  }
  endWithoutBody(): this {
    if (this.state !== 'open') return this;
    this.sink.send([DOWN.END_EMPTY, this.id]);
    this.over();
    return this;
  }
  /**
   * A sized answer: every chunk is taken (the edge keeps what its socket cannot take yet), `ok` is
   * false once SIZED_WINDOW_BYTES are on their way unconfirmed, and `done` only when the edge has
   * handed the last byte to its socket, so the request holds its places until then.
   */
  tryEnd(chunk: RecognizedString, total: number): [boolean, boolean] {
    if (this.state !== 'open') return [false, true];
    const bytes = bytesOf(chunk as string | ArrayBuffer | ArrayBufferView);
    if (bytes.byteLength > 0) {
      // A copy: the chunk is a view of the responder's body, packed only at the end of the turn.
      this.sink.send([DOWN.SIZED, this.id, bytes.slice(), total]);
      this.forwarded += bytes.byteLength;
    }
    if (this.confirmed >= total) {
      this.over();
      return [true, true];
    }
    return [this.forwarded < total && this.forwarded - this.confirmed < SIZED_WINDOW_BYTES, false];
  }
  getWriteOffset(): number {
    return this.forwarded;
  }
  /** As uWS: the connection goes, and the abort handler runs at once if the response was not over. */
  close(): this {
    if (this.state === 'gone') return this;
    const wasOpen = this.state === 'open';
    this.state = 'gone';
    this.sink.send([DOWN.CLOSE, this.id]);
    this.sink.forget(this.id);
    if (wasOpen) this.abortCb?.();
    return this;
  }

  private over(): void {
    this.state = 'ended';
    this.sink.forget(this.id);
  }
}

/** The stand-ins, typed as what the router and the handlers expect. */
export function asUws(res: ProxiedResponse, req: ProxiedRequest): [HttpResponse, HttpRequest] {
  return [res as unknown as HttpResponse, req as unknown as HttpRequest];
}
