// An edge thread's own work: it registers main's routes on its uWS app (same order, so uWS matches
// requests as it does on one thread), reads each request synchronously into one message (route,
// method, URL, query, parameters, every header, the peer address) and its body as byte pieces, and
// does to the real connection what main's handler did to its stand-in. The static web page is
// answered here without main. Nothing here parses JSON or knows a route's meaning.
import uWS, { type HttpRequest, type HttpResponse, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import type { AtOnce } from './at-once.js';
import { GameFeeds, type FeedTarget } from './game-feeds.js';
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
  /** A followed stream's bytes waiting for the socket (lines from the shard, then main's writes). */
  held: Uint8Array[];
  heldBytes: number;
  /** From UNTIL: main's END waits until the followed stream has written this update. */
  until: number | undefined;
  /** Main's END of a followed stream, waiting for `until`. */
  deferred?: DownMessage;
}

export interface EdgeServerDeps {
  readonly app: TemplatedApp;
  readonly routes: readonly RouteKey[];
  /** Posts a packed batch to main (transferring the buffer). */
  readonly post: (buf: ArrayBuffer) => void;
  /** Counts a request taken by this thread. */
  readonly counted: () => void;
  /** Counts a game update received from a shard (edge feeds). */
  readonly fed?: () => void;
  /** Bytes a followed stream may hold for a slow reader before it is cut off. */
  readonly maxBufferedBytes?: number;
  /** Waits on main for requests it answers at once (at-once.ts); without it every answer comes later. */
  readonly atOnce?: AtOnce;
}

type Registrar = (pattern: string, handler: (res: HttpResponse, req: HttpRequest) => void) => unknown;

export class EdgeServer implements FeedTarget {
  private readonly open = new Map<number, Open>();
  /** The game streams whose lines come straight from the shards. */
  readonly feeds: GameFeeds;
  private nextId = 1;
  private out: UpMessage[] = [];
  private flushing = false;
  private listenSocket: us_listen_socket | undefined;
  private refusing = false;
  /** The last SYNC sent to main, and the last SYNCED it answered. */
  private syncSent = 0;
  private synced = 0;

  constructor(private readonly d: EdgeServerDeps) {
    this.feeds = new GameFeeds(this, d.fed ?? (() => {}));
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
    for (const [id, o] of [...this.open]) {
      this.gone(id);
      o.res.close();
    }
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
    const o: Open = { res, blocked: false, watching: false, sized: undefined, held: [], heldBytes: 0, until: undefined };
    this.open.set(id, o);
    res.onAborted(() => {
      if (!this.gone(id)) return;
      // Sent now, not at the end of the turn: the client sees its connection closed at once and may
      // ask again on another connection (maybe another thread), which should find this one forgotten.
      this.queue([UP.ABORTED, id]);
      this.flush();
    });
    this.queue([UP.REQUEST, id, route, method, req.getUrl(), req.getQuery() ?? null, values, headers, peer]);
    if (BODY_METHODS.has(method.toUpperCase())) {
      res.onData((chunk, last) => {
        if (!this.open.has(id)) return;
        this.queue([UP.DATA, id, new Uint8Array(chunk.slice(0)), last]);
        if (last) this.answerAtOnce(id, route);
      });
    } else {
      this.answerAtOnce(id, route);
    }
  }

  /** A complete request: handed to main now and, if its route answers at once, waited on (at-once.ts). */
  private answerAtOnce(id: number, route: number): void {
    const a = this.d.atOnce;
    if (a === undefined || !a.tries(route)) return;
    const seq = ++this.syncSent;
    this.queue([UP.SYNC, seq]);
    this.flush();
    a.wait(() => this.synced >= seq);
    a.learn(route, !this.open.has(id));
  }

  /** A batch from main: applied in order, each request's run of messages in one cork. */
  receive(buf: ArrayBuffer): void {
    const batch = unpackBatch<DownMessage>(buf);
    let i = 0;
    while (i < batch.length) {
      if (batch[i][0] === DOWN.SYNCED) {
        this.synced = Math.max(this.synced, batch[i][2] as number);
        i++;
        continue;
      }
      const id = batch[i][1];
      let j = i + 1;
      while (j < batch.length && batch[j][1] === id && batch[j][0] !== DOWN.SYNCED) j++;
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
        this.writeStream(id, o, m[2]);
        return;
      case DOWN.END:
        // A followed stream's end waits for the game's last lines, which come from the shard.
        if (o.until !== undefined && !this.feeds.endAfter(id, o.until)) {
          o.until = undefined;
          o.deferred = m;
          return;
        }
        this.gone(id);
        this.flushHeld(o);
        res.end(m[2] ?? '', m[3]);
        return;
      case DOWN.END_EMPTY:
        this.gone(id);
        res.endWithoutBody();
        return;
      case DOWN.SIZED: {
        const s = (o.sized ??= { total: m[3], start: -1, sent: 0, from: 0, chunks: [] });
        s.chunks.push(m[2]);
        this.pump(id, o, s);
        return;
      }
      case DOWN.CLOSE:
        this.gone(id);
        res.close();
        return;
      case DOWN.FOLLOW:
        this.feeds.follow(id, m[2], m[3], m[4]);
        return;
      case DOWN.UNTIL:
        o.until = m[2];
        return;
      case DOWN.SYNCED:
        return;
    }
  }

  /** The response is over here: forgotten, and its game let go if it followed one. */
  private gone(id: number): boolean {
    this.feeds.drop(id);
    return this.open.delete(id);
  }

  /** A stream's bytes: after any held ones; held past a full socket, cut off past the bound. */
  private writeStream(id: number, o: Open, bytes: Uint8Array): void {
    if (o.held.length > 0 || (o.blocked && this.feeds.has(id))) {
      o.held.push(bytes);
      o.heldBytes += bytes.byteLength;
      if (o.heldBytes > (this.d.maxBufferedBytes ?? Infinity)) this.cut(id);
      return;
    }
    if (!o.res.write(bytes) && !o.blocked) {
      o.blocked = true;
      this.watch(id, o);
      this.queue([UP.BLOCKED, id]);
    }
  }

  private flushHeld(o: Open): boolean {
    if (o.held.length === 0) return true;
    const all = o.held.length === 1 ? o.held[0] : Buffer.concat(o.held);
    o.held = [];
    o.heldBytes = 0;
    return o.res.write(all);
  }

  // ── FeedTarget: what the game feeds do to a followed stream ──

  write(id: number, bytes: Uint8Array): boolean {
    const o = this.open.get(id);
    if (o === undefined) return false;
    o.res.cork(() => this.writeStream(id, o, bytes));
    return this.open.get(id) === o;
  }

  finish(id: number): void {
    const o = this.open.get(id);
    const m = o?.deferred;
    if (o === undefined || m === undefined) return;
    o.deferred = undefined;
    o.res.cork(() => this.apply(id, o, m));
  }

  cut(id: number): void {
    const o = this.open.get(id);
    if (o === undefined) return;
    this.gone(id);
    o.res.close();
    this.queue([UP.ABORTED, id]);
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
        this.gone(id);
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
        let drained = true;
        o.res.cork(() => (drained = this.flushHeld(o)));
        if (!drained) return true;
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
