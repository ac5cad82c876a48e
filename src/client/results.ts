// The shapes of a call's outcome that no route decides: a failure, a pending answer, the options of
// a call and of a stream. Kept apart from the per-route types so both views of them share these: the
// client's own (api.ts, from the generated catalogue) and the catalogue's (types.ts, from the zod
// schemas, for the web page and the generator).
import type { Problem } from './generated/types.js';

export type { Problem };

/**
 * A problem answer, or a refusal the route answers with a body of its own (a refused move's verdict,
 * 409): then `problem` describes it (code `refused`, `detail` its reason) and `body` is that verdict.
 * `status` 0 when no answer came at all: code `network_error` (refused connection, reset, timeout) or
 * `aborted` (the caller's AbortSignal). `retryAfter` in seconds when the server sent Retry-After.
 */
export interface Failure {
  ok: false;
  pending?: false;
  status: number;
  problem: Problem;
  retryAfter: number | null;
  /** A refusal's own body (e.g. `{applied: false, version: null, reason: 'illegal turn'}`). */
  body?: unknown;
}

/**
 * The server took the request but has no verdict yet (a move answered 202: the game stream tells the
 * outcome). Neither a success nor a failure; `unwrap` throws a PendingError on it.
 */
export interface Pending {
  ok: false;
  pending: true;
  status: number;
  headers: Headers;
}

/** Per call: `signal` aborts it (and any wait before a retry); the result is then a Failure with code `aborted`. */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface StreamOptions {
  /** Called whenever a connection is (re)opened; the game stream then starts again with a Snapshot. */
  onConnect?: () => void;
  /** Called with each failure before the stream waits and reconnects. */
  onRetry?: (failure: Failure, waitMs: number) => void;
}

/** An ndjson stream as an async iterator that reconnects with back-off; close() ends it. */
export interface EventStream<T> extends AsyncIterable<T> {
  close(): void;
}
