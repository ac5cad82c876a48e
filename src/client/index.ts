// The typed client of the dicechess bot API: `import { Client } from 'dicechess/client'`, or on its
// own as the package `dicechess-client` (packages/client, built from these same files).
// Every route of the catalogue is a method, grouped by area (`client.games.move(…)`, areas.ts) and
// also under its operationId (the first names, kept as deprecated aliases of the same functions),
// typed from the same zod schemas the server checks with; the ndjson streams are async iterators
// that reconnect. It imports nothing but its own folder: the routes and their types come from
// generated/, written from the catalogue by scripts/client-catalogue.mjs, so it needs no zod, no uWS,
// no LMDB, and only what Node 20, Deno and browsers all have (fetch, AbortSignal, Web Crypto).
import { ROUTE_TABLE } from './generated/routes.js';
import type { Areas, FlatMethods } from './generated/methods.js';
import { AREAS } from './areas.js';
import { pathParams, type RouteEntry } from './route-entry.js';
import { ApiError, isTransient, openStream } from './stream.js';
import { abortable, retryable, RETRY_DEFAULTS, type RetryOptions } from './retry.js';
import type { Args, OperationId, Result, RouteMethods, StreamLine, Success } from './api.js';
import type { CallOptions, EventStream, Failure, Pending, StreamOptions } from './results.js';

export { ApiError, isTransient, StreamError } from './stream.js';
export { AREAS } from './areas.js';
export type { RetryOptions } from './retry.js';
export type { Args, OperationId, Result, RouteMethods, StreamId, StreamLine, Success } from './api.js';
export type { CallOptions, EventStream, Failure, Pending, Problem, StreamOptions } from './results.js';
export type {
  AccountMethods, Areas, ChallengesMethods, EventsMethods, FlatMethods, GamesMethods, LadderMethods, LobbyMethods,
  ServerMethods, StreamsMethods, WebhooksMethods,
} from './generated/methods.js';

/** One line of the account stream. */
export type AccountEvent = StreamLine<'streamAccountEvents'>;
/** One line of a game stream. */
export type GameEvent = StreamLine<'streamGameEvents'>;

export interface ClientOptions {
  /** The server, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Bearer token; set or change it later with `client.token = …`. */
  token?: string;
  /** Milliseconds a plain request may take before it fails with `network_error` (default 30 s). */
  timeoutMs?: number;
  /** Stream reconnects: the first wait and its cap, milliseconds (defaults 250 and 5000). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** A stream silent this long is reopened (default 60 s; the server sends a keep-alive every 25 s). */
  idleMs?: number;
  /**
   * The longest line a stream accepts, in bytes (default 1 MiB): a longer one (or a server that never
   * sends a newline) ends the stream with a StreamError.
   */
  maxLineBytes?: number;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof globalThis.fetch;
  /**
   * Retries of a call answered 429 or 5xx, or not answered at all, for the calls a second copy cannot
   * harm (see retry.ts): how many tries in all (default 3; 1 turns retrying off), the first wait and
   * its cap (250 ms doubling to 5 s), and the longest Retry-After waited for (10 s: a longer one is
   * handed back at once, for the caller to decide).
   */
  retry?: RetryOptions;
  /** The User-Agent header of every request (default `dicechess-client`). */
  userAgent?: string;
  /** Waits before a retry; tests pass one that does not wait on the wall clock. Ends early on `signal`. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A route as the client uses it: its table entry and its name. */
type Route = RouteEntry & { operationId: OperationId };
const byId = new Map(Object.entries(ROUTE_TABLE).map(([id, r]) => [id, { ...r, operationId: id } as Route]));

function networkFailure(error: unknown, signal?: AbortSignal): Failure {
  if (signal?.aborted) {
    const detail = `aborted by the caller${signal.reason instanceof Error ? `: ${signal.reason.message}` : ''}`;
    return { ok: false, status: 0, retryAfter: null, problem: { type: 'about:blank', title: 'Aborted', status: 0, detail, code: 'aborted' } };
  }
  const detail = error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error);
  return {
    ok: false,
    status: 0,
    retryAfter: null,
    problem: { type: 'about:blank', title: 'Network error', status: 0, detail, code: 'network_error' },
  };
}

function failureOf(res: Response, text: string): Failure {
  const seconds = Number(res.headers.get('retry-after'));
  const retryAfter = res.headers.has('retry-after') && Number.isFinite(seconds) ? seconds : null;
  let problem: Failure['problem'] | undefined;
  try {
    const body = JSON.parse(text) as Failure['problem'];
    if (body && typeof body === 'object' && typeof body.code === 'string') problem = body;
  } catch {
    // not a problem body: described below
  }
  problem ??= { type: 'about:blank', title: res.statusText, status: res.status, detail: text.slice(0, 200), code: 'unexpected_answer' };
  return { ok: false, status: res.status, problem, retryAfter };
}

/** Thrown by `unwrap` on a call the server took without a verdict yet (a move answered 202). */
export class PendingError extends Error {
  constructor(readonly pending: Pending) {
    super(`${pending.status}: no verdict yet; the game stream tells the outcome`);
    this.name = 'PendingError';
  }
}

/** The value of a success; an ApiError with the problem on a failure (a refusal too), a PendingError on a pending answer. */
export function unwrap<S extends { ok: true; value: unknown }>(result: S | Failure | Pending): S['value'] {
  if (result.ok) return result.value;
  if (result.pending) throw new PendingError(result);
  throw new ApiError(result);
}

/** A refusal the route answers with its own body (a refused move's verdict): a Failure that keeps the body. */
function refusalOf(res: Response, body: unknown): Failure {
  const reason = body && typeof body === 'object' && typeof (body as { reason?: unknown }).reason === 'string' ? (body as { reason: string }).reason : res.statusText;
  return { ok: false, status: res.status, retryAfter: null, body, problem: { type: 'about:blank', title: 'Refused', status: res.status, detail: reason, code: 'refused' } };
}

/**
 * The grouped methods (`client.games.move(…)`) and, deprecated, the same functions under their
 * operationIds (`client.submitMove(…)`): both are made in the constructor, one function per route.
 */
export interface Client extends Areas, FlatMethods {}

export class Client {
  readonly url: string;
  token: string | undefined;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly timeoutMs: number;
  private readonly backoff: { initialMs: number; maxMs: number };
  private readonly idleMs: number;
  private readonly maxLineBytes: number;
  private readonly retry: Required<RetryOptions>;
  private readonly userAgent: string;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.token = options.token;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.backoff = { initialMs: options.backoff?.initialMs ?? 250, maxMs: options.backoff?.maxMs ?? 5_000 };
    this.idleMs = options.idleMs ?? 60_000;
    this.maxLineBytes = options.maxLineBytes ?? 1024 * 1024;
    this.retry = { ...RETRY_DEFAULTS, ...options.retry };
    this.userAgent = options.userAgent ?? 'dicechess-client';
    this.sleep = options.sleep ?? abortable;
    const self = this as unknown as Record<string, unknown>;
    for (const [area, methods] of Object.entries(AREAS)) {
      const group: Record<string, unknown> = {};
      for (const [name, id] of Object.entries(methods)) group[name] = self[id] = this.op(id);
      self[area] = group;
    }
  }

  /** Calls a route by operationId (what every method does). */
  call<Id extends OperationId>(id: Id, ...args: Args<Id>): ReturnType<RouteMethods[Id]> {
    return (this.op(id) as (...a: unknown[]) => ReturnType<RouteMethods[Id]>)(...args);
  }

  private op<Id extends OperationId>(id: Id): RouteMethods[Id] {
    const route = byId.get(id);
    if (!route) throw new Error(`the route catalogue has no ${id}`);
    const streaming = route.ok[200] === 'ndjson';
    const fn = streaming
      ? (...args: unknown[]) => this.stream(route, args)
      : (...args: unknown[]) => this.send(route, args);
    return fn as unknown as RouteMethods[Id];
  }

  private target(route: Route, args: unknown[]): { url: string; body: unknown; rest: unknown[] } {
    const names = pathParams(route.path);
    let i = 0;
    let path = route.path;
    for (const name of names) path = path.replace(`{${name}}`, encodeURIComponent(String(args[i++])));
    const body = route.body ? args[i++] : undefined;
    let search = '';
    if (route.query) {
      const query = (args[i++] ?? {}) as Record<string, string | undefined>;
      const pairs = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined);
      if (pairs.length) search = `?${new URLSearchParams(pairs)}`;
    }
    return { url: `${this.url}${path}${search}`, body, rest: args.slice(i) };
  }

  private headers(route: Route): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent };
    if (route.auth !== 'public' && this.token) headers.authorization = `Bearer ${this.token}`;
    return headers;
  }

  /** One call: sent, and sent again while the answer is one waiting can mend and a retry is safe. */
  private async send(route: Route, args: unknown[]): Promise<Result<OperationId> | Pending> {
    const { url, body, rest } = this.target(route, args);
    const signal = (rest[0] as CallOptions | undefined)?.signal;
    const safe = retryable(route, body);
    let wait = this.retry.initialMs;
    for (let attempt = 1; ; attempt++) {
      const r = await this.once(route, url, body, signal);
      if (r.ok || r.pending || !safe || attempt >= this.retry.attempts || signal?.aborted) return r;
      if (!(r.status === 0 || r.status === 429 || r.status >= 500) || r.problem.code === 'aborted') return r;
      const asked = (r.retryAfter ?? 0) * 1000;
      if (asked > this.retry.maxRetryAfterMs) return r; // longer than a call should block: the caller decides
      await this.sleep(Math.max(wait, asked), signal);
      if (signal?.aborted) return networkFailure(signal.reason, signal);
      wait = Math.min(wait * 2, this.retry.maxMs);
    }
  }

  private async once(route: Route, url: string, body: unknown, signal: AbortSignal | undefined): Promise<Result<OperationId> | Pending> {
    const headers = this.headers(route);
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      const timeout = AbortSignal.timeout(this.timeoutMs);
      res = await this.fetchImpl(url, {
        method: route.method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      text = await res.text();
    } catch (e) {
      return networkFailure(e, signal);
    }
    const kind = route.ok[res.status];
    if (!kind) return failureOf(res, text);
    if (kind === 'pending') return { ok: false, pending: true, status: res.status, headers: res.headers };
    let value: unknown;
    if (kind === 'json') {
      try {
        value = JSON.parse(text);
      } catch {
        return failureOf(res, text);
      }
    } else if (kind !== 'empty') value = text;
    if (res.status >= 300) return refusalOf(res, value);
    return { ok: true, status: res.status, value, headers: res.headers } as Success<OperationId>;
  }

  private stream(route: Route, args: unknown[]): EventStream<unknown> {
    const { url, rest } = this.target(route, args);
    // Which line completes a stream: a game's GameEnded, an event's EventEnded; an event's export of
    // games is a finite answer, complete when the server ends it (and resumed, never repeated, after a
    // break: the server builds it the same way each time, in a fixed order).
    const lastOfGame = route.path.includes('{id}') && !route.path.startsWith('/events/');
    const lastOfEvent = route.operationId === 'streamEvent';
    const finite = route.operationId === 'getEventGames';
    return openStream(
      {
        url,
        headers: { ...this.headers(route), accept: 'application/x-ndjson' },
        fetch: this.fetchImpl,
        initialMs: this.backoff.initialMs,
        maxMs: this.backoff.maxMs,
        idleMs: this.idleMs,
        maxLineBytes: this.maxLineBytes,
        isLast: (line) =>
          typeof line === 'object' && line !== null && ((lastOfGame && 'GameEnded' in line) || (lastOfEvent && 'EventEnded' in line)),
        finite,
        failure: failureOf,
        network: networkFailure,
      },
      rest[0] as StreamOptions | undefined,
    );
  }
}
