// Routes on top of uWS's own router. For each registered pattern it also answers the other methods
// with 405 + Allow and OPTIONS with CORS preflight, and every unknown path with a 404 problem. The
// handler gets a RequestContext read synchronously, may be async, and returns a Reply (or opens a
// stream). Whatever it throws becomes a logged 500: a bug, but never a crashed process.
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { bodyTooLarge, collectBody, DEFAULT_BODY_LIMIT } from './body.js';
import { AddressKeys, type TrustedProxies } from './client-ip.js';
import { RequestContext, type ContextEnv, type Method } from './context.js';
import { CorsRules, type CorsPolicy } from './cors.js';
import type { SendBudget } from './send-budget.js';
import type { NdjsonOptions } from './ndjson.js';
import { OpenCounts } from './open-counts.js';
import { internalError, problem, tooManyRequests, type Reply } from './reply.js';
import { Responder, type BugLog, type HeaderList } from './responder.js';
import type { AccessLog } from './access-log.js';

/**
 * Return a Reply, or nothing after opening a stream (ctx.ndjson()) or sending through ctx.res.
 * GET handlers also answer HEAD (ctx.res.head is true; the body is dropped for them).
 */
export type Handler = (ctx: RequestContext) => Reply | void | Promise<Reply | void>;

export interface RouteOptions {
  /** Default 'restricted' (configured origins only); 'public' for reads anyone may embed. */
  readonly cors?: CorsPolicy;
  /** Body cap in bytes for this route; default the router's. */
  readonly bodyLimit?: number;
  /** Extra request headers to capture (lower-case), found in ctx.headers.other. */
  readonly headers?: readonly string[];
  /** Refuse (403) a browser's request sent from another site that is not a configured origin. */
  readonly sameSiteOnly?: boolean;
  /** Headers added to every response of the route, from its path parameters. */
  readonly headersFor?: (params: Readonly<Record<string, string>>) => HeaderList;
}

export interface ObservedResponse {
  readonly method: string;
  /** The pattern that answered; '/*' for the 404 catch-all. */
  readonly pattern: string;
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: string;
}

export interface RouterOptions {
  readonly logger: BugLog;
  /** Origins allowed on 'restricted' routes, e.g. ['https://play.example.org']. */
  readonly corsOrigins?: readonly string[];
  /** From parseTrustedProxies(); without it the socket peer is the client. */
  readonly trustedProxies?: TrustedProxies;
  /** Default body cap in bytes (the server passes its configured one; DEFAULT_BODY_LIMIT without). */
  readonly bodyLimit?: number;
  /** Defaults for ctx.ndjson(): clock, keepAliveMs, maxBufferedBytes. */
  readonly stream?: Partial<NdjsonOptions>;
  /** Sees every non-stream response the toolkit sends (conformance tests). */
  readonly observe?: (info: ObservedResponse) => void;
  /**
   * Requests in flight and streams open per client address (rateLimitKey of ctx.ip); past it a new
   * request is answered 429 `too_many_connections` at once. uWS's HTTP API reports no connection
   * opening or closing, so this counts what a connection makes the server hold. Unlimited if unset.
   */
  readonly maxOpenPerIp?: number;
  /** Large bodies streamed with backpressure and counted per address (send-budget.ts); none without. */
  readonly sendBudget?: SendBudget;
  /** One line per request once its response is over (access-log.ts); none without. */
  readonly access?: AccessLog;
}

interface Route {
  readonly method: Method;
  readonly pattern: string;
  readonly handler: Handler;
  readonly cors: CorsPolicy;
  readonly bodyLimit: number;
  readonly hasBody: boolean;
  readonly paramNames: readonly string[];
  readonly headers: readonly string[] | undefined;
  readonly sameSiteOnly: boolean;
  readonly headersFor: RouteOptions['headersFor'];
}

interface PatternEntry {
  readonly methods: Map<string, CorsPolicy>;
  allow: string;
}

const UWS_METHOD = { GET: 'get', POST: 'post', PUT: 'put', PATCH: 'patch', DELETE: 'del' } as const;
/** The headers a sameSiteOnly route reads to tell a foreign page's request. */
const SITE_HEADERS = ['sec-fetch-site', 'host'] as const;
const BODY_METHODS: ReadonlySet<Method> = new Set<Method>(['POST', 'PUT', 'PATCH', 'DELETE']);

export class Router {
  private readonly patterns = new Map<string, PatternEntry>();
  private readonly cors: CorsRules;
  private readonly env: ContextEnv;
  private readonly logger: BugLog;
  private readonly bodyLimit: number;
  private readonly observe: ((info: ObservedResponse) => void) | undefined;
  /** Responses not yet complete: requests in flight and open streams, cut by closeConnections(). */
  private readonly inFlight = new Set<Responder>();
  private closed = false;
  private readonly perIp: OpenCounts | undefined;
  /** Unsent bytes of large answers and the per-address body budget (undefined: bodies go out whole). */
  readonly sendBudget: SendBudget | undefined;
  private readonly access: AccessLog | undefined;

  constructor(
    readonly app: TemplatedApp,
    opts: RouterOptions,
  ) {
    this.logger = opts.logger;
    this.cors = new CorsRules(opts.corsOrigins);
    this.bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.observe = opts.observe;
    this.perIp = opts.maxOpenPerIp === undefined ? undefined : new OpenCounts(opts.maxOpenPerIp);
    this.sendBudget = opts.sendBudget;
    this.access = opts.access;
    this.env = {
      logger: opts.logger,
      trustedProxies: opts.trustedProxies,
      stream: opts.stream ?? {},
      addressKeys: new AddressKeys(opts.trustedProxies),
    };
    // uWS tries method-specific routes, then `any` on the same pattern, then less specific patterns,
    // so this catch-all only sees paths no pattern matches.
    app.any('/*', (raw, req) => {
      if (this.refused(raw)) return;
      const res = this.responder(raw, req.getCaseSensitiveMethod(), '/*');
      res.reply(problem('not_found'));
    });
  }

  get(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.route('GET', pattern, handler, options);
  }
  post(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.route('POST', pattern, handler, options);
  }
  put(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.route('PUT', pattern, handler, options);
  }
  patch(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.route('PATCH', pattern, handler, options);
  }
  delete(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.route('DELETE', pattern, handler, options);
  }

  /** Registers a handler; a pattern uses uWS syntax, e.g. '/bot/game/:id/move'. */
  route(method: Method, pattern: string, handler: Handler, options: RouteOptions = {}): this {
    const entry = this.entry(pattern);
    if (entry.methods.has(method)) throw new Error(`route ${method} ${pattern} registered twice`);
    const route: Route = {
      method,
      pattern,
      handler,
      cors: options.cors ?? 'restricted',
      bodyLimit: options.bodyLimit ?? this.bodyLimit,
      hasBody: BODY_METHODS.has(method),
      paramNames: paramNames(pattern),
      headers: [...(options.headers ?? []), ...(options.sameSiteOnly ? SITE_HEADERS : [])].map((h) => h.toLowerCase()),
      sameSiteOnly: options.sameSiteOnly ?? false,
      headersFor: options.headersFor,
    };
    entry.methods.set(method, route.cors);
    const methods = [...entry.methods.keys()];
    if (entry.methods.has('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
    entry.allow = [...methods, 'OPTIONS'].join(', ');
    this.app[UWS_METHOD[method]](pattern, (raw, req) => this.handle(raw, req, route, false));
    // HEAD runs the GET handler; the responder drops the body (uWS itself would send it).
    if (method === 'GET') this.app.head(pattern, (raw, req) => this.handle(raw, req, route, true));
    return this;
  }

  private entry(pattern: string): PatternEntry {
    let entry = this.patterns.get(pattern);
    if (entry !== undefined) return entry;
    const e: PatternEntry = { methods: new Map(), allow: 'OPTIONS' };
    this.patterns.set(pattern, e);
    this.app.options(pattern, (raw, req) => {
      if (this.refused(raw)) return;
      const res = this.responder(raw, 'OPTIONS', pattern);
      const origin = req.getHeader('origin') || undefined;
      const requested = req.getHeader('access-control-request-method') || undefined;
      res.reply(this.cors.preflight(e.methods, e.allow, origin, requested));
    });
    this.app.any(pattern, (raw, req) => {
      if (this.refused(raw)) return;
      const method = req.getCaseSensitiveMethod();
      const res = this.responder(raw, method, pattern);
      res.reply(problem('method_not_allowed', `${method} is not allowed here; allowed: ${e.allow}`, { allow: e.allow }));
    });
    entry = e;
    return entry;
  }

  /**
   * Stops serving: every tracked connection is closed (streams see their client leave), and so is any
   * idle keep-alive connection that brings another request later. This uWS build has no app.close(),
   * and the connections it holds idle are out of reach until they speak or time out.
   */
  closeConnections(): void {
    this.closed = true;
    for (const res of [...this.inFlight]) res.close();
    this.inFlight.clear();
  }

  /** After closeConnections(), a request is answered by closing its connection, as if it had been. */
  private refused(raw: HttpResponse): boolean {
    if (!this.closed) return false;
    raw.close();
    return true;
  }

  private responder(raw: HttpResponse, method: string, pattern: string): Responder {
    const res = new Responder(raw, this.logger, method === 'HEAD');
    const inFlight = this.inFlight;
    inFlight.add(res);
    const access = this.access;
    if (access === undefined) res.onSettled = () => inFlight.delete(res);
    else {
      const start = performance.now();
      res.onSettled = () => {
        inFlight.delete(res);
        access(method, pattern, res, start);
      };
    }
    const observe = this.observe;
    if (observe !== undefined) {
      res.observer = (status, contentType, body) => observe({ method, pattern, status, contentType, body });
    }
    return res;
  }

  // Synchronous up to the handler call: the request is read and the body reader attached before
  // anything can await.
  private handle(raw: HttpResponse, req: HttpRequest, route: Route, head: boolean): void {
    if (this.refused(raw)) return;
    const res = this.responder(raw, head ? 'HEAD' : route.method, route.pattern);
    const ctx = new RequestContext(raw, req, route.method, route.pattern, route.paramNames, route.headers, res, this.env);
    res.subject = ctx;
    res.baseHeaders = this.cors.headers(route.cors, ctx.headers.origin);
    if (route.headersFor !== undefined) res.baseHeaders = [...res.baseHeaders, ...route.headersFor(ctx.params)];
    if (this.sendBudget !== undefined) res.sendGate = { budget: this.sendBudget, address: ctx.addressKey };
    if (this.perIp !== undefined && !this.admit(this.perIp, ctx, route)) return;
    const other = ctx.headers.other;
    if (route.sameSiteOnly && this.cors.foreignWrite(ctx.headers.origin, other.get('sec-fetch-site'), other.get('host'))) {
      const detail = 'this route does not take requests sent by pages of other sites';
      res.reply(problem('cross_site_refused', detail), route.hasBody);
      return;
    }
    if (route.hasBody) {
      const declared = ctx.headers.contentLength;
      if (declared !== undefined && declared > route.bodyLimit) {
        res.reply(bodyTooLarge(route.bodyLimit), true);
        return;
      }
      ctx.body = collectBody(res, route.bodyLimit);
    }
    let out: Reply | void | Promise<Reply | void>;
    try {
      out = route.handler(ctx);
    } catch (err) {
      this.failed(ctx, err);
      return;
    }
    if (out instanceof Promise) {
      out.then(
        (r) => this.settle(ctx, r),
        (err: unknown) => this.failed(ctx, err),
      );
    } else {
      this.settle(ctx, out);
    }
  }

  /** Counts the request under its address until it finishes; answers 429 when the address is full. */
  private admit(perIp: OpenCounts, ctx: RequestContext, route: Route): boolean {
    const key = ctx.addressKey;
    if (!perIp.tryOpen(key)) {
      this.logger.debug?.({ ip: ctx.ip, route: route.pattern, code: 'too_many_connections' }, 'refused by a limit');
      const detail = `this address already holds ${perIp.limit} requests and streams open; close some first`;
      // An unread body would stay on the connection: close it, as for a body that is too large.
      ctx.res.reply(tooManyRequests('too_many_connections', 1, detail), route.hasBody);
      return false;
    }
    ctx.res.onFinish(() => perIp.close(key));
    return true;
  }

  private settle(ctx: RequestContext, reply: Reply | void): void {
    try {
      if (reply !== undefined) {
        if (ctx.res.streaming) this.logger.error({ method: ctx.method, path: ctx.path }, 'handler returned a reply after opening a stream');
        else ctx.res.reply(reply);
      } else if (ctx.res.open) {
        this.logger.error({ method: ctx.method, path: ctx.path }, 'handler finished without a reply');
        ctx.res.reply(internalError());
      }
    } catch (err) {
      this.failed(ctx, err);
    }
  }

  private failed(ctx: RequestContext, err: unknown): void {
    this.logger.error({ err, method: ctx.method, path: ctx.path }, 'request handler failed');
    try {
      ctx.res.fail();
    } catch (again) {
      this.logger.error({ err: again }, 'could not answer 500');
    }
  }
}

export function createRouter(app: TemplatedApp, opts: RouterOptions): Router {
  return new Router(app, opts);
}

/** ':id' segments of a uWS pattern, in order (uWS hands parameters over by position). */
export function paramNames(pattern: string): string[] {
  const names: string[] = [];
  for (const seg of pattern.split('/')) if (seg.startsWith(':')) names.push(seg.slice(1));
  return names;
}
