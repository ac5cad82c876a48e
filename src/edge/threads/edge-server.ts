// An edge thread's own work: it registers main's routes on its uWS app (same order, so uWS matches
// requests as it does on one thread), reads each request synchronously into one message (route,
// method, URL, query, parameters, every header, the peer address) and its body as byte pieces, and
// does to the real connection what main's handler did to its stand-in. The static web page is
// answered here without main. Nothing here parses JSON or knows a route's meaning.
import uWS, { type HttpRequest, type HttpResponse, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import { DOWN, packBatch, paramCount, unpackBatch, UP, type DownMessage, type RouteKey, type UpMessage } from './protocol.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A sized answer (tryEnd) being handed to the socket: the bytes main sent that it has not taken yet. */
interface Sized {
  readonly total: number;
  /** getWriteOffset() before the first byte of the body. */
  start: number;
  /** Body bytes the socket has taken. */
  sent: number;
  /** Body offset of chunks[0]'s first byte. */
  from: number;
  chunks: Uint8Array[];
}

interface Open {
  readonly res: HttpResponse;
  blocked: boolean;
  watching: boolean;
  sized: Sized | undefined;
}

export interface EdgeServerDeps {
  readonly app: TemplatedApp;
  readonly routes: readonly RouteKey[];
  /** Posts a packed batch to main (transferring the buffer). */
  readonly post: (buf: ArrayBuffer) => void;
  /** Counts a request taken by this thread. */
  readonly counted: () => void;
}

type Registrar = (pattern: string, handler: (res: HttpResponse, req: HttpRequest) => void) => unknown;

export class EdgeServer {
  private readonly open = new Map<number, Open>();
  private nextId = 1;
  private out: UpMessage[] = [];
  private flushing = false;
  private listenSocket: us_listen_socket | undefined;
  private refusing = false;

  constructor(private readonly d: EdgeServerDeps) {
    const app = d.app as unknown as Record<string, Registrar>;
    d.routes.forEach(([method, pattern], route) => {
      const params = paramCount(pattern);
      app[method].call(d.app, pattern, (res, req) => this.take(route, params, res, req));
    });
  }

  listen(host: string, port: number): Promise<boolean> {
    return new Promise((resolve) => {
      // Default options: SO_REUSEPORT, so that every edge thread binds the same port (edge-threads.ts
      // keeps other processes off it).
      const app = this.d.app as unknown as { listen(h: string, p: number, o: number, cb: (s: us_listen_socket | false) => void): unknown };
      app.listen(host, port, 0, (socket) => {
        if (socket !== false) this.listenSocket = socket;
        resolve(socket !== false);
      });
    });
  }

  /** Stops accepting; a request on a kept-alive connection is answered by closing it. */
  unlisten(): void {
    this.refusing = true;
    if (this.listenSocket !== undefined) uWS.us_listen_socket_close(this.listenSocket);
    this.listenSocket = undefined;
  }

  /** Closes every connection, idle ones included (the thread may then end). */
  stop(): void {
    this.unlisten();
    for (const o of this.open.values()) o.res.close();
    this.open.clear();
    (this.d.app as unknown as { close?: () => void }).close?.();
  }

  private take(route: number, params: number, res: HttpResponse, req: HttpRequest): void {
    if (this.refusing) {
      res.close();
      return;
    }
    this.d.counted();
    const id = this.nextId++;
    const method = req.getCaseSensitiveMethod();
    const values: string[] = [];
    for (let i = 0; i < params; i++) values.push(req.getParameter(i) ?? '');
    const headers: string[] = [];
    req.forEach((k, v) => void headers.push(k, v));
    const peer = new Uint8Array(res.getRemoteAddressAsText().slice(0));
    const o: Open = { res, blocked: false, watching: false, sized: undefined };
    this.open.set(id, o);
    res.onAborted(() => {
      if (this.open.delete(id)) this.queue([UP.ABORTED, id]);
    });
    this.queue([UP.REQUEST, id, route, method, req.getUrl(), req.getQuery() ?? null, values, headers, peer]);
    if (BODY_METHODS.has(method.toUpperCase())) {
      res.onData((chunk, last) => {
        if (this.open.has(id)) this.queue([UP.DATA, id, new Uint8Array(chunk.slice(0)), last]);
      });
    }
  }

  /** A batch from main: applied in order, each request's run of messages in one cork. */
  receive(buf: ArrayBuffer): void {
    const batch = unpackBatch<DownMessage>(buf);
    let i = 0;
    while (i < batch.length) {
      const id = batch[i][1];
      let j = i + 1;
      while (j < batch.length && batch[j][1] === id) j++;
      const o = this.open.get(id);
      if (o !== undefined) {
        const from = i;
        o.res.cork(() => {
          for (let k = from; k < j && this.open.get(id) === o; k++) this.apply(id, o, batch[k]);
        });
      }
      i = j;
    }
  }

  private apply(id: number, o: Open, m: DownMessage): void {
    const res = o.res;
    switch (m[0]) {
      case DOWN.STATUS:
        res.writeStatus(m[2]);
        return;
      case DOWN.HEADER:
        res.writeHeader(m[2], m[3]);
        return;
      case DOWN.WRITE:
        if (!res.write(m[2]) && !o.blocked) {
          o.blocked = true;
          this.watch(id, o);
          this.queue([UP.BLOCKED, id]);
        }
        return;
      case DOWN.END:
        this.open.delete(id);
        res.end(m[2] ?? '', m[3]);
        return;
      case DOWN.END_EMPTY:
        this.open.delete(id);
        res.endWithoutBody();
        return;
      case DOWN.SIZED: {
        const s = (o.sized ??= { total: m[3], start: -1, sent: 0, from: 0, chunks: [] });
        s.chunks.push(m[2]);
        this.pump(id, o, s);
        return;
      }
      case DOWN.CLOSE:
        this.open.delete(id);
        res.close();
        return;
    }
  }

  /** Hands a sized answer's bytes to the socket until it is full; reports the progress to main. */
  private pump(id: number, o: Open, s: Sized): void {
    const res = o.res;
    const before = s.sent;
    while (s.chunks.length > 0) {
      const chunk = s.chunks[0];
      if (s.start < 0) s.start = res.getWriteOffset();
      const [ok, done] = res.tryEnd(chunk.subarray(s.sent - s.from), s.total);
      if (done) {
        this.open.delete(id);
        this.queue([UP.WRITABLE, id, s.total]);
        return;
      }
      s.sent = res.getWriteOffset() - s.start;
      while (s.chunks.length > 0 && s.from + s.chunks[0].byteLength <= s.sent) s.from += s.chunks.shift()!.byteLength;
      if (!ok) {
        this.watch(id, o);
        break;
      }
    }
    if (s.sent !== before) this.queue([UP.WRITABLE, id, s.sent]);
  }

  private watch(id: number, o: Open): void {
    if (o.watching) return;
    o.watching = true;
    o.res.onWritable(() => {
      if (this.open.get(id) !== o) return true;
      if (o.sized !== undefined) {
        o.res.cork(() => this.pump(id, o, o.sized!));
      } else if (o.blocked) {
        o.blocked = false;
        this.queue([UP.WRITABLE, id, 0]);
      }
      return true;
    });
  }

  private queue(m: UpMessage): void {
    this.out.push(m);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = false;
    if (this.out.length === 0) return;
    const batch = this.out;
    this.out = [];
    this.d.post(packBatch(batch));
  }
}
