// Pieces the load drivers share (bench/load-driver.ts, bench/pair-play.ts, bench/webhook-driver.ts,
// bench/ladder-driver.ts). The drivers share two cores with the server they measure, so the hot
// paths here avoid JSON.parse and needless allocations: what a driver spends is taken from the server.
// That is why the request and stream functions below are raw (node:http, undici's bare dispatch on
// keep-alive pools, bytes scanned unparsed): they generate the measured load. Calls outside it
// (minting bots, setting up games, reading stats afterwards) go through the typed client.
import http from 'node:http';
import type { Dispatcher, Pool } from 'undici';
import { Client, unwrap } from '../src/client/index.js';
import type { TimeControl } from '../src/domain/types.js';

export type Tree = { [uci: string]: Tree };

/** A uniformly random root-to-leaf path of a legal-move tree ([] for the empty tree, a forced pass). */
export function randomPath(tree: Tree): string[] {
  const path: string[] = [];
  for (let keys = Object.keys(tree); keys.length; keys = Object.keys(tree)) {
    const k = keys[Math.floor(Math.random() * keys.length)];
    path.push(k);
    tree = tree[k];
  }
  return path;
}

const QUOTE = 34;
const COLON = 58;
const COMMA = 44;
const OPEN = 123;
const CLOSE = 125;
/** Offsets of the keys of the object being read (reused: one scan at a time). */
const keyStarts: number[] = [];

/**
 * The same random path as randomPath, read straight from the tree's compact JSON bytes (`at` is the
 * offset of its opening brace), without decoding or building the tree: a tree of thousands of
 * leaves costs a scan of its bytes instead of a parse and its garbage. Returns undefined when the
 * bytes are not the compact `{"uci":{…},…}` form, so the caller can parse them instead.
 */
export function randomPathIn(buf: Buffer, at: number): string[] | undefined {
  const path: string[] = [];
  const n = buf.length;
  let i = at;
  for (;;) {
    if (buf[i] !== OPEN) return undefined;
    let j = i + 1;
    if (buf[j] === CLOSE) return path;
    keyStarts.length = 0;
    for (;;) {
      if (buf[j] !== QUOTE) return undefined;
      keyStarts.push(j);
      j = buf.indexOf(QUOTE, j + 1) + 1;
      if (j === 0 || buf[j] !== COLON || buf[j + 1] !== OPEN) return undefined;
      // Skip the value: keys are UCI moves, so braces only ever delimit objects.
      j += 1;
      let depth = 0;
      do {
        if (j >= n) return undefined;
        const c = buf[j++];
        if (c === OPEN) depth++;
        else if (c === CLOSE) depth--;
      } while (depth > 0);
      const c = buf[j];
      if (c === COMMA) j++;
      else if (c === CLOSE) break;
      else return undefined;
    }
    const k = keyStarts[Math.floor(Math.random() * keyStarts.length)];
    const end = buf.indexOf(QUOTE, k + 1);
    path.push(buf.toString('latin1', k + 1, end));
    i = end + 2;
  }
}

/** The integer after `key` (e.g. '"v":') in `buf`, from offset `from`; NaN when absent. */
export function intAfter(buf: Buffer, key: string, from = 0): number {
  const at = buf.indexOf(key, from, 'latin1');
  if (at < 0) return Number.NaN;
  let n = 0;
  let i = at + key.length;
  for (let c = buf[i]; c >= 48 && c <= 57; c = buf[++i]) n = n * 10 + c - 48;
  return i === at + key.length ? Number.NaN : n;
}

/** An HTTP answer: its status and body bytes (decoded as text only when asked). */
export class Answer {
  constructor(
    readonly status: number,
    readonly bytes: Buffer,
  ) {}
  get text(): string {
    return this.bytes.toString('utf8');
  }
}

const bodyOf = (chunks: Buffer[]): Buffer => (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));

/**
 * A JSON request function against one server, on a shared keep-alive agent, each call bounded in
 * time. `body` may be pre-serialised JSON text (ASCII: its length is its byte count).
 */
export function requester(base: URL, agent: http.Agent, timeoutMs: number) {
  const host = base.hostname;
  const port = base.port;
  return (method: string, path: string, token?: string, body?: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
      const headers: Record<string, string> = { 'content-length': String(payload.length) };
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const req = http.request({ host, port, method, path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(new Answer(res.statusCode ?? 0, bodyOf(chunks))));
        res.on('error', reject);
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload, 'latin1');
    });
}

/** A long-lived GET on a Pool (an ndjson stream): its status, then its bytes as they come. */
export interface PoolStreamHandlers {
  onStatus(status: number): void;
  onChunk(chunk: Buffer): void;
  /** The answer ended (`error` undefined) or failed. */
  onEnd(error?: Error): void;
}

/**
 * Opens a stream through `pool` (keep-alive: the connection is reused once the answer ends, as a
 * bot on a keep-alive client would) with undici's bare dispatch handler: no Readable and no
 * IncomingMessage per stream, the bytes handed straight to `onChunk`. Never times out while open
 * (the server's keep-alive lines come every 25 s). Returns a function that aborts it.
 */
export function poolStream(pool: Pool, path: string, token: string | undefined, h: PoolStreamHandlers, headTimeoutMs = 10_000): () => void {
  let abort: ((e?: Error) => void) | undefined;
  let aborted = false;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  pool.dispatch(
    { method: 'GET', path, headers, headersTimeout: headTimeoutMs, bodyTimeout: 0 },
    {
      onConnect: (a: (e?: Error) => void) => {
        abort = a;
        if (aborted) a(new Error('closed by the driver'));
      },
      onHeaders: (status: number) => {
        h.onStatus(status);
        return true;
      },
      onData: (chunk: Buffer) => {
        h.onChunk(chunk);
        return true;
      },
      onComplete: () => h.onEnd(),
      onError: (e: Error) => h.onEnd(e),
    },
  );
  return () => {
    aborted = true;
    abort?.(new Error('closed by the driver'));
  };
}

/** A 'data' handler for an ndjson response (string chunks) that calls onLine per non-empty line. */
export function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let buf = '';
  return (chunk) => {
    let from = 0;
    let i = chunk.indexOf('\n');
    if (i < 0) {
      buf += chunk;
      return;
    }
    // The first line may continue what the previous chunk left; the others are whole in this chunk.
    const first = buf + chunk.slice(0, i);
    buf = '';
    if (first) onLine(first);
    for (from = i + 1, i = chunk.indexOf('\n', from); i >= 0; from = i + 1, i = chunk.indexOf('\n', from)) {
      if (i > from) onLine(chunk.slice(from, i));
    }
    if (from < chunk.length) buf = chunk.slice(from);
  };
}

/**
 * The same request function on an undici Pool (one origin, keep-alive sockets, no pipelining: a
 * move's verdict may wait for the turn, and a request queued behind it would wait too). It uses
 * the Pool's dispatch with a bare handler: no Readable per answer, about half the client CPU of
 * node:http per request here.
 */
export function poolRequester(pool: Pool, timeoutMs: number) {
  return (method: string, path: string, token?: string, body?: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      let payload: string | undefined;
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        payload = typeof body === 'string' ? body : JSON.stringify(body);
      }
      let status = 0;
      const chunks: Buffer[] = [];
      pool.dispatch(
        { method: method as Dispatcher.HttpMethod, path, headers, body: payload, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
        {
          onConnect: () => undefined,
          onHeaders: (code: number) => {
            status = code;
            return true;
          },
          onData: (chunk: Buffer) => {
            chunks.push(chunk);
            return true;
          },
          onComplete: () => resolve(new Answer(status, bodyOf(chunks))),
          onError: (e: Error) => reject(e),
        },
      );
    });
}

/**
 * A 'data' handler for an ndjson response read as bytes: calls onLine(buf, start, end) per
 * non-empty line without decoding it, so a reader decodes only the lines it needs. A line split
 * across chunks is joined into a fresh buffer first.
 */
export function byteLineSplitter(onLine: (buf: Buffer, start: number, end: number) => void): (chunk: Buffer) => void {
  let rest: Buffer | undefined;
  return (chunk) => {
    const buf = chunk;
    let from = 0;
    if (rest) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        rest = Buffer.concat([rest, chunk]);
        return;
      }
      const first = Buffer.concat([rest, chunk.subarray(0, nl)]);
      rest = undefined;
      if (first.length) onLine(first, 0, first.length);
      from = nl + 1;
    }
    for (let i = buf.indexOf(10, from); i >= 0; from = i + 1, i = buf.indexOf(10, from)) {
      if (i > from) onLine(buf, from, i);
    }
    // A copy: the socket may reuse the chunk's memory.
    if (from < buf.length) rest = Buffer.from(buf.subarray(from));
  };
}

/** True when `buf` holds the ASCII text `prefix` at `at`. */
export function bytesAt(buf: Buffer, at: number, prefix: Buffer): boolean {
  if (at < 0 || at + prefix.length > buf.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

/** A time control under which an untouched game stays live for the whole run: a day on each clock. */
export const LONG_CLOCK = { Fischer: { initialSeconds: 86_400, incrementSeconds: 0 } };

export interface AnonBot {
  token: string;
  team: string;
  name: string;
}

/** The typed client for a driver's calls outside the measured load, bounded in time like the rest. */
export function setupClient(url: string | URL, token?: string, timeoutMs = 30_000): Client {
  return new Client({ url: String(url), token, timeoutMs });
}

/** Mints an anonymous bot; throws when the server refuses. */
export async function mintAnon(url: string | URL, label: string): Promise<AnonBot> {
  const { token, team, name } = unwrap(await setupClient(url).mintAnonymous({ name: label }));
  return { token, team, name };
}

/** A game `white` challenges `black` to and `black` accepts (set-up, not load); its id. */
export async function liveGame(url: string | URL, white: AnonBot, black: AnonBot, timeControl: TimeControl): Promise<string> {
  const challenge = unwrap(await setupClient(url, white.token).createChallenge({ team: black.team, name: black.name, timeControl }));
  return unwrap(await setupClient(url, black.token).acceptChallenge(challenge.id)).gameId;
}
