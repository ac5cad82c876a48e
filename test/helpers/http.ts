// Test plumbing for the edge: boot a uWS app on 127.0.0.1:0 that stops with the test, plain HTTP
// requests (node:http, one connection each so nothing lingers, unless the caller passes a keep-alive
// agent it destroys itself), an ndjson line reader that can stop reading like a slow consumer, and a
// raw socket for partial or abandoned uploads.
// Raw on purpose, not another client of the API (that is src/client/, and test/helpers/bot.ts on
// it): these send what a test writes, malformed bodies, odd methods, paths and headers included,
// which the client's types do not let through, and hand back the status, headers and bytes as
// they came, where the client would interpret them (problem, retry, reconnect) for the test.
import http from 'node:http';
import net from 'node:net';
import uWS from 'uWebSockets.js';
import { createRouter, listen, type Router, type RouterOptions } from '../../src/edge/toolkit.js';

/** The part of a tap Test these helpers need. */
export interface Teardown {
  teardown(fn: () => void | Promise<void>): void;
}

/** A logger that keeps what it is told, so tests can see that a bug was reported. */
export class MemoryLogger {
  readonly errors: { obj: object; msg: string }[] = [];
  error(obj: object, msg: string): void {
    this.errors.push({ obj, msg });
  }
}

export interface Served {
  readonly base: string;
  readonly port: number;
  readonly router: Router;
  readonly logger: MemoryLogger;
}

/** Builds a router on a fresh app, lets setup add routes, listens on port 0, closes at teardown. */
export async function serve(t: Teardown, setup: (router: Router) => void, opts: Partial<RouterOptions> = {}): Promise<Served> {
  const logger = new MemoryLogger();
  const app = uWS.App();
  const router = createRouter(app, { logger, ...opts });
  setup(router);
  const server = await listen(router, '127.0.0.1', 0);
  t.teardown(() => server.close());
  return { base: `http://127.0.0.1:${server.port}`, port: server.port, router, logger };
}

export interface HttpResult {
  readonly status: number;
  /** Lower-case names; repeated headers joined with ', '. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** The body parsed as JSON, or undefined if it is not JSON. */
  readonly json: unknown;
}

export interface RequestOptions {
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /**
   * A keep-alive agent (see keepAliveAgent) to reuse connections: a fresh TCP connection per request
   * costs both ends more CPU than the request itself. Default: a new connection, closed after.
   */
  readonly agent?: http.Agent;
}

/**
 * An agent that keeps connections open between requests, for one server of one test (destroy it at
 * teardown). Idle connections are dropped by this side after a second, well before the server's own
 * idle timeout, so a request never goes out on a connection the server is closing as idle.
 */
export function keepAliveAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, timeout: 1000 });
}

export function request(method: string, url: string, opts: RequestOptions = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: opts.headers, agent: opts.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), text, json: tryJson(text) });
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      // A reused connection that the server closed before it read this request (nothing was
      // answered on it): the request never arrived, so it goes again on a new connection.
      if (req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) {
        request(method, url, { ...opts, agent: undefined }).then(resolve, reject);
      } else reject(e);
    });
    req.end(opts.body);
  });
}

export interface LineReader {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The next line without its newline ('' for a keep-alive); undefined once the stream is over. */
  next(): Promise<string | undefined>;
  /** Stops reading from the socket: the server's writes pile up, like a stalled client. */
  pause(): void;
  resume(): void;
  /** Resolves when the connection is gone; complete is false if the server cut it mid-stream. */
  readonly closed: Promise<{ complete: boolean }>;
  destroy(): void;
}

export function openLines(url: string, headers?: Record<string, string>): Promise<LineReader> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      const lines: string[] = [];
      const waiters: ((line: string | undefined) => void)[] = [];
      let partial = '';
      let over = false;
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        partial += text;
        let nl: number;
        while ((nl = partial.indexOf('\n')) >= 0) {
          const line = partial.slice(0, nl);
          partial = partial.slice(nl + 1);
          const w = waiters.shift();
          if (w) w(line);
          else lines.push(line);
        }
      });
      res.on('error', () => {}); // a cut stream is reported through `closed`
      const closed = new Promise<{ complete: boolean }>((done) => {
        res.on('close', () => {
          over = true;
          for (const w of waiters.splice(0)) w(undefined);
          done({ complete: res.complete });
        });
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: flatHeaders(res.headers),
        next: () => {
          const line = lines.shift();
          if (line !== undefined || over) return Promise.resolve(line);
          return new Promise((r) => waiters.push(r));
        },
        pause: () => res.pause(),
        resume: () => res.resume(),
        closed,
        destroy: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

export interface RawConnection {
  /** Writes bytes; errors (the server may already have closed) only show up in `closed`. */
  write(data: string | Buffer): void;
  /** Everything received so far. */
  received(): string;
  /** Resolves with the received text once it satisfies test; rejects if the socket closes first. */
  until(test: (text: string) => boolean): Promise<string>;
  /** Resolves with everything received when the socket is closed. */
  readonly closed: Promise<string>;
  /** Half-closes: sends FIN, still reads what the server sends. */
  end(): void;
  destroy(): void;
}

export function rawConnect(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let text = '';
    let isClosed = false;
    const watchers: { test: (t: string) => boolean; ok: (t: string) => void; fail: (e: Error) => void }[] = [];
    const check = (): void => {
      for (const w of [...watchers]) {
        if (w.test(text)) {
          watchers.splice(watchers.indexOf(w), 1);
          w.ok(text);
        }
      }
    };
    sock.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      check();
    });
    sock.on('error', () => {}); // EPIPE/ECONNRESET after the server closed on us are expected here
    const closed = new Promise<string>((done) => {
      sock.on('close', () => {
        isClosed = true;
        for (const w of watchers.splice(0)) w.fail(new Error(`socket closed; received: ${JSON.stringify(text.slice(0, 300))}`));
        done(text);
      });
    });
    sock.once('connect', () =>
      resolve({
        write: (data) => {
          if (!isClosed) sock.write(data);
        },
        received: () => text,
        until: (test) =>
          new Promise((ok, fail) => {
            if (test(text)) ok(text);
            else if (isClosed) fail(new Error('socket already closed'));
            else watchers.push({ test, ok, fail });
          }),
        closed,
        end: () => sock.end(),
        destroy: () => sock.destroy(),
      }),
    );
    sock.once('error', reject);
  });
}

/**
 * A port nobody listens on at this moment, for tests that need a fixed port: a socket bound to port 0
 * is never shared with another, so port 0 cannot show what happens when two servers want one port.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

/** A promise with its resolver outside, to wait for something the server side observed. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function flatHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The JSON value of a text, or undefined when it is not JSON. */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
