// What crosses between main and an edge thread (docs/ARCHITECTURE.md, "Edge threads"). Both ways a
// turn's messages go as one batch packed into one buffer, which is transferred, never cloned object by
// object. A message is a short tuple whose first element is its kind and whose second is the request
// it belongs to (an id the edge thread chose, unique on that edge); bodies travel as bytes.
import type { MessagePort } from 'node:worker_threads';
import { codec } from '../../domain/codec.js';

/** Edge thread → main. */
export const UP = {
  /** [REQUEST, id, route, method, url, query, params, headers (name, value, name, value…), peer address text] */
  REQUEST: 1,
  /** [DATA, id, bytes, last]: a piece of the request body, in order. */
  DATA: 2,
  /** [ABORTED, id]: the client went away before the response was complete. */
  ABORTED: 3,
  /** [BLOCKED, id]: a write left bytes in uWS's buffer (the socket is full). */
  BLOCKED: 4,
  /** [WRITABLE, id, offset]: the socket drained; offset = body bytes of a sized answer handed to it so far. */
  WRITABLE: 5,
  /** [SYNC, seq]: answer SYNCED seq once main has handled everything sent before it (at-once.ts). */
  SYNC: 6,
} as const;

/** Main → edge thread: what to do with a response, in the order main's handler did it. */
export const DOWN = {
  /** [STATUS, id, status line] */
  STATUS: 1,
  /** [HEADER, id, name, value] */
  HEADER: 2,
  /** [WRITE, id, bytes]: a chunk of a chunked (stream) response. */
  WRITE: 3,
  /** [END, id, bytes, closeConnection] */
  END: 4,
  /** [END_EMPTY, id]: headers only (HEAD, 204, 304). */
  END_EMPTY: 5,
  /** [SIZED, id, bytes, total]: the next bytes of an answer of `total` body bytes (tryEnd). */
  SIZED: 6,
  /** [CLOSE, id]: cut the connection. */
  CLOSE: 7,
  /** [FOLLOW, id, game id, shard, seq]: the stream's next lines are the game's updates after `seq`, from its shard (game-feeds.ts). */
  FOLLOW: 8,
  /** [UNTIL, id, seq]: the END that follows waits until the followed stream has written update `seq`. */
  UNTIL: 9,
  /** [SYNCED, 0, seq]: main has handled everything the edge sent before its SYNC seq (at-once.ts). */
  SYNCED: 10,
} as const;

export type UpMessage =
  | [typeof UP.REQUEST, number, number, string, string, string | null, string[], string[], Uint8Array]
  | [typeof UP.DATA, number, Uint8Array, boolean]
  | [typeof UP.ABORTED, number]
  | [typeof UP.BLOCKED, number]
  | [typeof UP.WRITABLE, number, number]
  | [typeof UP.SYNC, number];

export type DownMessage =
  | [typeof DOWN.STATUS, number, string]
  | [typeof DOWN.HEADER, number, string, string]
  | [typeof DOWN.WRITE, number, Uint8Array]
  | [typeof DOWN.END, number, Uint8Array | null, boolean]
  | [typeof DOWN.END_EMPTY, number]
  | [typeof DOWN.SIZED, number, Uint8Array, number]
  | [typeof DOWN.CLOSE, number]
  | [typeof DOWN.FOLLOW, number, string, number, number]
  | [typeof DOWN.UNTIL, number, number]
  | [typeof DOWN.SYNCED, 0, number];

/** A route as uWS registers it: the app method ('get', 'any', 'options'…) and the pattern. */
export type RouteKey = readonly [method: string, pattern: string];

/** What an edge thread is started with (workerData). */
export interface EdgeThreadData {
  readonly index: number;
  /** Every route main's router registered, in order; a request names its route by position. */
  readonly routes: readonly RouteKey[];
  /** The built web page, served by the edge thread itself; null when there is none. */
  readonly webDir: string | null;
  /** One Int32 per edge thread: the requests each has taken (a debug counter, read by tests). */
  readonly counters: SharedArrayBuffer;
  /** One Int32 per edge thread: the game updates each has received from the shards (tests). */
  readonly feedCounters: SharedArrayBuffer;
  /** The thread's ports to the shards, by shard (feed-hub.ts); empty: every line comes through main. */
  readonly feeds: MessagePort[];
  /** Bytes a followed stream may hold for a reader that does not take them (`streams.maxBufferedBytes`). */
  readonly maxBufferedBytes: number;
  /** One Int32 per edge thread, bumped and notified by main after each batch it posts to that thread (at-once.ts). */
  readonly wakes: SharedArrayBuffer;
}

/** Control messages (not data): the edge thread's listen result, and main's orders. */
export type EdgeControl =
  | { readonly ctl: 'listen'; readonly host: string; readonly port: number }
  | { readonly ctl: 'listening'; readonly ok: boolean }
  | { readonly ctl: 'unlisten' }
  | { readonly ctl: 'stop' }
  /** A shard started again: the edge thread's new port to it. */
  | { readonly ctl: 'feed'; readonly shard: number; readonly port: MessagePort };

/** One buffer for a batch, owning its ArrayBuffer exactly, so that it can be transferred. */
export function packBatch(msgs: readonly unknown[]): ArrayBuffer {
  return codec.batches.encode(msgs).buffer;
}

/** The messages of a buffer made by packBatch (binary fields come back as Uint8Array views of it). */
export function unpackBatch<T>(buf: ArrayBuffer): T[] {
  const out: unknown = codec.batches.decode(new Uint8Array(buf));
  if (!Array.isArray(out)) throw new TypeError('edge thread batch: not an array');
  return out as T[];
}

const encoder = new TextEncoder();

/** A body as bytes (a string is UTF-8 encoded once, here). */
export function bytesOf(body: string | ArrayBuffer | ArrayBufferView): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
}

/** ':id' segments of a uWS pattern (the edge reads that many parameters). */
export function paramCount(pattern: string): number {
  let n = 0;
  for (const seg of pattern.split('/')) if (seg.startsWith(':')) n++;
  return n;
}
