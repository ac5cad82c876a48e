// The typed client of the dicechess bot API: `import { Client } from 'dicechess/client'`.
// One method per route of the catalogue (named by its operationId), typed from the same zod schemas
// the server checks with; the two ndjson streams as async iterators that reconnect. It uses the
// global fetch of Node 20 and imports nothing of the server (no uWS, no LMDB).
import { CONTENT_TYPES, pathParams, ROUTES, type RouteSpec } from '../wire/routes.js';
import { ApiError, isTransient, openStream } from './stream.js';
import type {
  Args, EventStream, Failure, OperationId, Result, RouteMethods, StreamLine, StreamOptions, Success,
} from './types.js';

export { ApiError, isTransient, StreamError } from './stream.js';
export type {
  Args, EventStream, Failure, OperationId, Problem, Result, RouteMethods, StreamId, StreamLine,
  StreamOptions, Success,
} from './types.js';

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
}

const byId = new Map(ROUTES.map((r) => [r.operationId, r]));

function networkFailure(error: unknown): Failure {
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

/** The value of a success, or an ApiError with the problem. */
export function unwrap<S extends { ok: true; value: unknown }>(result: S | Failure): S['value'] {
  if (!result.ok) throw new ApiError(result);
  return result.value;
}

export class Client implements RouteMethods {
  readonly url: string;
  token: string | undefined;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly timeoutMs: number;
  private readonly backoff: { initialMs: number; maxMs: number };
  private readonly idleMs: number;
  private readonly maxLineBytes: number;

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.token = options.token;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.backoff = { initialMs: options.backoff?.initialMs ?? 250, maxMs: options.backoff?.maxMs ?? 5_000 };
    this.idleMs = options.idleMs ?? 60_000;
    this.maxLineBytes = options.maxLineBytes ?? 1024 * 1024;
  }

  // Identity
  readonly mintAnonymous = this.op('mintAnonymous');
  readonly register = this.op('register');
  readonly rotateToken = this.op('rotateToken');
  readonly getAccount = this.op('getAccount');
  readonly joinLadder = this.op('joinLadder');
  readonly leaveLadder = this.op('leaveLadder');
  readonly getCapacity = this.op('getCapacity');
  readonly setCapacity = this.op('setCapacity');
  // Challenges
  readonly createChallenge = this.op('createChallenge');
  readonly listChallenges = this.op('listChallenges');
  readonly acceptChallenge = this.op('acceptChallenge');
  readonly declineChallenge = this.op('declineChallenge');
  // Seeks and the lobby
  readonly createSeek = this.op('createSeek');
  readonly acceptSeek = this.op('acceptSeek');
  readonly listLobbySeeks = this.op('listLobbySeeks');
  readonly createGuestSeek = this.op('createGuestSeek');
  readonly pollSeek = this.op('pollSeek');
  readonly cancelSeek = this.op('cancelSeek');
  readonly guestAcceptSeek = this.op('guestAcceptSeek');
  readonly guestPlayHouse = this.op('guestPlayHouse');
  // Gameplay
  readonly submitSeed = this.op('submitSeed');
  readonly submitMove = this.op('submitMove');
  readonly resign = this.op('resign');
  readonly listMyGames = this.op('listMyGames');
  // Discovery
  readonly listGames = this.op('listGames');
  readonly getGame = this.op('getGame');
  readonly getLegalMoves = this.op('getLegalMoves');
  readonly getGameHistory = this.op('getGameHistory');
  // Leaderboard
  readonly getLeaderboard = this.op('getLeaderboard');
  readonly getBotProfile = this.op('getBotProfile');
  // Streams
  readonly streamAccountEvents = this.op('streamAccountEvents');
  readonly streamGameEvents = this.op('streamGameEvents');
  readonly streamPublicGameEvents = this.op('streamPublicGameEvents');
  // Webhooks
  readonly registerWebhook = this.op('registerWebhook');
  readonly getWebhook = this.op('getWebhook');
  readonly deleteWebhook = this.op('deleteWebhook');
  // Events
  readonly createEvent = this.op('createEvent');
  readonly listEvents = this.op('listEvents');
  readonly getEvent = this.op('getEvent');
  readonly streamEvent = this.op('streamEvent');
  readonly getEventGames = this.op('getEventGames');
  readonly acceptEvent = this.op('acceptEvent');
  readonly declineEvent = this.op('declineEvent');
  readonly startEvent = this.op('startEvent');
  readonly cancelEvent = this.op('cancelEvent');
  readonly pauseEvent = this.op('pauseEvent');
  readonly resumeEvent = this.op('resumeEvent');
  readonly withdrawEventPlayer = this.op('withdrawEventPlayer');
  readonly withdrawFromEvent = this.op('withdrawFromEvent');
  readonly myEvents = this.op('myEvents');
  readonly setEventHosts = this.op('setEventHosts');
  // Operations
  readonly health = this.op('health');
  readonly ready = this.op('ready');
  readonly metrics = this.op('metrics');
  readonly getOpenApi = this.op('getOpenApi');
  readonly getAsyncApi = this.op('getAsyncApi');

  /** Calls a route by operationId (what every method does). */
  call<Id extends OperationId>(id: Id, ...args: Args<Id>): ReturnType<RouteMethods[Id]> {
    return (this.op(id) as (...a: unknown[]) => ReturnType<RouteMethods[Id]>)(...args);
  }

  private op<Id extends OperationId>(id: Id): RouteMethods[Id] {
    const route = byId.get(id);
    if (!route) throw new Error(`the route catalogue has no ${id}`);
    const streaming = route.responses[200]?.contentType === CONTENT_TYPES.ndjson;
    const fn = streaming
      ? (...args: unknown[]) => this.stream(route, args)
      : (...args: unknown[]) => this.send(route, args);
    return fn as unknown as RouteMethods[Id];
  }

  private target(route: RouteSpec, args: unknown[]): { url: string; body: unknown; rest: unknown[] } {
    const names = pathParams(route.path);
    let i = 0;
    let path = route.path;
    for (const name of names) path = path.replace(`{${name}}`, encodeURIComponent(String(args[i++])));
    const body = route.request?.body ? args[i++] : undefined;
    let search = '';
    if (route.request?.query) {
      const query = (args[i++] ?? {}) as Record<string, string | undefined>;
      const pairs = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined);
      if (pairs.length) search = `?${new URLSearchParams(pairs)}`;
    }
    return { url: `${this.url}${path}${search}`, body, rest: args.slice(i) };
  }

  private headers(route: RouteSpec): Record<string, string> {
    const headers: Record<string, string> = {};
    if (route.auth !== 'public' && this.token) headers.authorization = `Bearer ${this.token}`;
    return headers;
  }

  private async send(route: RouteSpec, args: unknown[]): Promise<Result<OperationId>> {
    const { url, body } = this.target(route, args);
    const headers = this.headers(route);
    if (body !== undefined) headers['content-type'] = CONTENT_TYPES.json;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(url, {
        method: route.method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      return networkFailure(e);
    }
    const spec = route.responses[res.status];
    if (!spec || spec.contentType === CONTENT_TYPES.problem) return failureOf(res, text);
    let value: unknown;
    if (spec.contentType === CONTENT_TYPES.json) {
      try {
        value = JSON.parse(text);
      } catch {
        return failureOf(res, text);
      }
    } else if (spec.contentType) value = text;
    return { ok: true, status: res.status, value, headers: res.headers } as Success<OperationId>;
  }

  private stream(route: RouteSpec, args: unknown[]): EventStream<unknown> {
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
        headers: { ...this.headers(route), accept: CONTENT_TYPES.ndjson },
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
