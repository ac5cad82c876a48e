// What a handler knows about its request. uWS's HttpRequest lives on the stack and is gone after the
// first await, so everything a handler may need is copied out here, synchronously, up front.
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { ok } from '../domain/result.js';
import type { BodyResult } from './body.js';
import { normalizeIp, resolveClientIp, type AddressKeys, type TrustedProxies } from './client-ip.js';
import { openNdjson, type NdjsonOptions, type NdjsonStream } from './ndjson.js';
import type { BugLog, Responder } from './responder.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestHeaders {
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  /** Undefined when absent or not a number (a chunked upload has none). */
  readonly contentLength: number | undefined;
  readonly origin: string | undefined;
  readonly forwardedFor: string | undefined;
  readonly accept: string | undefined;
  /** Further headers a route asked for (RouteOptions.headers), by lower-case name. */
  readonly other: ReadonlyMap<string, string>;
}

/** Per-router settings every context shares. */
export interface ContextEnv {
  readonly logger: BugLog;
  readonly trustedProxies: TrustedProxies | undefined;
  readonly stream: Partial<NdjsonOptions>;
  /** The router's memo of address keys (same trusted proxies). */
  readonly addressKeys: AddressKeys;
}

const decoder = new TextDecoder();
const NO_OTHER: ReadonlyMap<string, string> = new Map();
const EMPTY_BODY: Promise<BodyResult> = Promise.resolve(ok(undefined));

export class RequestContext {
  readonly method: Method;
  /** The URL path, still percent-encoded. */
  readonly path: string;
  /** The route pattern that matched, in uWS syntax. */
  readonly pattern: string;
  /** Path parameters by name, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly headers: RequestHeaders;
  /** Set by the router for methods that carry a body; see readJson. */
  body: Promise<BodyResult> = EMPTY_BODY;
  /** The query string as sent, without '?' ('' when there is none). */
  readonly rawQuery: string;
  /** The authenticated caller's id (set by the route binding), for the access log. */
  identity: string | undefined = undefined;
  private readonly peerText: string;
  private parsedQuery: URLSearchParams | undefined;
  private clientIp: string | undefined;

  /** Reads the request; must run synchronously inside the uWS handler. */
  constructor(
    raw: HttpResponse,
    req: HttpRequest,
    method: Method,
    pattern: string,
    paramNames: readonly string[],
    extraHeaders: readonly string[] | undefined,
    readonly res: Responder,
    private readonly env: ContextEnv,
  ) {
    this.method = method;
    this.pattern = pattern;
    this.path = req.getUrl();
    this.rawQuery = req.getQuery() ?? '';
    const params: Record<string, string> = {};
    for (let i = 0; i < paramNames.length; i++) params[paramNames[i]] = decodeParam(req.getParameter(i));
    this.params = params;
    let other = NO_OTHER;
    if (extraHeaders !== undefined && extraHeaders.length > 0) {
      const m = new Map<string, string>();
      for (const name of extraHeaders) {
        const v = req.getHeader(name);
        if (v !== '') m.set(name, v);
      }
      other = m;
    }
    const cl = req.getHeader('content-length');
    this.headers = {
      authorization: req.getHeader('authorization') || undefined,
      contentType: req.getHeader('content-type') || undefined,
      contentLength: cl === '' || !/^\d+$/.test(cl) ? undefined : Number(cl),
      origin: req.getHeader('origin') || undefined,
      forwardedFor: req.getHeader('x-forwarded-for') || undefined,
      accept: req.getHeader('accept') || undefined,
      other,
    };
    this.peerText = decoder.decode(raw.getRemoteAddressAsText());
  }

  /** The query string, parsed on first use. */
  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }

  /** The socket peer, normalised (IPv4-mapped IPv6 becomes IPv4). */
  get peer(): string {
    return normalizeIp(this.peerText) ?? this.peerText;
  }

  /** The client address: the peer, or the X-Forwarded-For hop behind the trusted proxies. */
  get ip(): string {
    return (this.clientIp ??= resolveClientIp(this.peerText, this.headers.forwardedFor, this.env.trustedProxies));
  }

  /** rateLimitKey(ip), from the router's memo (the per-address count needs it on every request). */
  get addressKey(): string {
    return this.env.addressKeys.keyOf(this.peerText, this.headers.forwardedFor);
  }

  /** Opens an ndjson stream on this response with the router's stream settings. */
  ndjson(opts?: Partial<NdjsonOptions>): NdjsonStream {
    return openNdjson(this.res, { logger: this.env.logger, ...this.env.stream, ...opts });
  }
}

/**
 * The parsed JSON body: undefined when the body is empty, otherwise the value; or the problem reply
 * (413, 400 malformed_json) to return as is. Never rejects.
 */
export function readJson(ctx: RequestContext): Promise<BodyResult> {
  return ctx.body;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(ctx: RequestContext): string | undefined {
  const h = ctx.headers.authorization;
  if (h === undefined || h.length < 8 || h.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = h.slice(7).trim();
  return token === '' || /\s/.test(token) ? undefined : token;
}

function decodeParam(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // malformed escapes: the raw text simply won't match any id
  }
}
