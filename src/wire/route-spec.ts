// The vocabulary of the route catalogue, and the helpers that keep each entry short. The catalogue
// is data: the edge routes and authenticates from it, the OpenAPI document is generated from it,
// and the conformance checker judges responses against that document.
import type { z } from 'zod';
import { Problem } from './responses.js';

/** The version of the bot API contract this service implements (info.version of both documents). */
export const CONTRACT_VERSION = '1.0';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * `bearer`: a bot token. `seatOrBearer`: a bot token or a guest's seat token (docs/API.md: guests
 * play on the same game routes with their `seatToken` as Bearer).
 */
export type Auth = 'public' | 'bearer' | 'seatOrBearer';

export const CONTENT_TYPES = {
  json: 'application/json',
  problem: 'application/problem+json',
  ndjson: 'application/x-ndjson',
  pgn: 'application/x-chess-pgn',
  prometheus: 'text/plain; version=0.0.4; charset=utf-8',
} as const;

export interface ResponseSpec {
  description: string;
  /**
   * Body schema; for ndjson it is the schema of one line. Absent with a content type: a text body
   * (metrics). Absent without one: no body at all (204).
   */
  schema?: z.ZodType;
  contentType?: string;
  /**
   * A 2xx answer that is no verdict yet (a move whose verdict did not come in time): the typed client
   * hands it out as a pending result, not a success.
   */
  pending?: true;
}

export interface RequestSpec {
  /** JSON body schema. */
  body?: z.ZodType;
  /** False when a body-less request means `{}` (every field of the body is optional). */
  bodyRequired?: boolean;
  /**
   * True when a JSON body that fails `body` is still not refused: the route answers as usual and
   * the handler classifies the raw value itself (the seed route answers 202 to a malformed seed,
   * docs/API.md, "How a game runs"). `body` still documents the expected shape.
   */
  lenient?: boolean;
  /** Query parameters, all strings. */
  query?: z.ZodObject;
}

export interface RouteSpec {
  operationId: string;
  method: Method;
  /** OpenAPI-style template, e.g. `/bot/game/{id}/move`. */
  path: string;
  auth: Auth;
  tag: string;
  summary: string;
  description?: string;
  /** Descriptions of the path parameters, by name. */
  params?: Readonly<Record<string, string>>;
  request?: RequestSpec;
  /** Every status the route can answer, errors included (405 and unknown-route 404 are global). */
  responses: Readonly<Record<number, ResponseSpec>>;
  /**
   * The route reads or commands one game, named by its `id` parameter. Where a process keeps copies of
   * games run elsewhere (a cluster node), the edge's game gate brings the copy up to date first;
   * `'tree'` reads the pending roll's tree, which must be the one its owner has now.
   */
  game?: 'state' | 'tree';
  /**
   * A seated player's command to the game, by its name in the game's command table: the edge binds
   * such a route itself (the caller must be seated; the command's payload is made from the seat and
   * the body by the table) and answers 202 once the command is handed over. No handler is written.
   */
  command?: string;
}

/** The schema stays typed in the catalogue, so the typed client reads each route's answer type from it. */
export const json = <S extends z.ZodType>(
  schema: S,
  description: string,
): ResponseSpec & { schema: S; contentType: typeof CONTENT_TYPES.json } => ({
  description,
  schema,
  contentType: CONTENT_TYPES.json,
});

export const ndjson = <S extends z.ZodType>(
  lineSchema: S,
  description: string,
): ResponseSpec & { schema: S; contentType: typeof CONTENT_TYPES.ndjson } => ({
  description,
  schema: lineSchema,
  contentType: CONTENT_TYPES.ndjson,
});

export const problem = (description: string): ResponseSpec => ({
  description,
  schema: Problem,
  contentType: CONTENT_TYPES.problem,
});

export const noContent = (description: string): ResponseSpec => ({ description });

/** Statuses every route with a JSON body can answer before its handler runs. */
const BODY_ERRORS: Record<number, string> = {
  400: 'A body that is not valid JSON (whatever its Content-Type), or a field of the wrong type or out of range; `detail` names the field.',
  413: 'Body larger than 64 KiB.',
};
const LENIENT_400 = 'The body is not JSON at all (whatever its Content-Type) (a JSON body of the wrong shape is not refused).';
/** The body cap holds on every POST and DELETE, also where the route reads no body. */
const CAP_ERRORS: Record<number, string> = { 413: 'Body larger than 64 KiB.' };
const AUTH_ERRORS: Record<number, string> = {
  401: 'Missing, invalid or expired Bearer token.',
};
const GLOBAL_ERRORS: Record<number, string> = {
  429: '`too_many_connections`: the client address already holds as many requests and streams open as it may (1,024 by default); see Retry-After.',
  500: 'A bug: no request, however malformed, should ever get one.',
};

export interface RouteInput extends Omit<RouteSpec, 'responses'> {
  /** Success (and non-problem) responses. */
  ok: Readonly<Record<number, ResponseSpec>>;
  /** Route-specific problem responses: status to description. */
  errors?: Readonly<Record<number, string>>;
}

/** Type-only key (never present at run time) under which a catalogue entry keeps its `ok` table's literal type. */
export declare const OK_RESPONSES: unique symbol;

/**
 * A catalogue entry with the literal types of its input kept: the edge types each handler from them,
 * and the typed client (src/client/) types each call's arguments and answers. The `ok` table, whose
 * entries `responses` holds at run time with the same schemas, is typed under OK_RESPONSES.
 */
export type CatalogueEntry<I extends RouteInput> = RouteSpec &
  Pick<I, 'operationId' | 'method' | 'path' | 'auth' | 'request' | 'command'> & { readonly [OK_RESPONSES]?: I['ok'] };

/** Tokenless writes refuse browser requests from other sites (edge/cors.ts, CorsRules.foreignWrite). */
const CROSS_SITE_ERRORS: Readonly<Record<number, string>> = {
  403: '`cross_site_refused`: a browser sent this from a page of another site that is not a configured origin (`Sec-Fetch-Site`/`Origin`); clients that are not browsers are not affected.',
};

/**
 * Builds a catalogue entry: the route's own responses plus the problems implied by its shape
 * (a body brings 400/413, authentication brings 401, every route may 500). When a route has
 * its own reason for an implied status, both reasons are kept.
 */
export function route<const I extends RouteInput>(input: I): CatalogueEntry<I> {
  const { ok, errors = {}, ...spec } = input;
  const reasons = new Map<number, string[]>();
  const add = (table: Readonly<Record<number, string>>) => {
    for (const [status, text] of Object.entries(table)) {
      const list = reasons.get(Number(status)) ?? [];
      list.push(text);
      reasons.set(Number(status), list);
    }
  };
  if (spec.request?.body) add(spec.request.lenient ? { ...BODY_ERRORS, 400: LENIENT_400 } : BODY_ERRORS);
  else if (spec.method !== 'GET') add(CAP_ERRORS);
  if (spec.auth !== 'public') add(AUTH_ERRORS);
  else if (spec.method !== 'GET') add(CROSS_SITE_ERRORS);
  add(errors);
  add(GLOBAL_ERRORS);

  const responses: Record<number, ResponseSpec> = { ...ok };
  for (const [status, texts] of reasons) {
    if (responses[status]) throw new Error(`${spec.operationId}: status ${status} declared twice`);
    responses[status] = problem(texts.join(' Or: '));
  }
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
  return { ...spec, responses: sorted } as CatalogueEntry<I>;
}

/** `/bot/game/{id}/move` to uWS `/bot/game/:id/move`. */
export const toUwsPattern = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');

/** uWS `/bot/game/:id/move` (or an OpenAPI template, unchanged) to `/bot/game/{id}/move`. */
export const toOpenApiPath = (pattern: string): string => pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Names of the path parameters of a template, in order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
