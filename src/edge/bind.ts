// Binds the route catalogue to handlers. Everything a route's catalogue entry says — webhooks
// switched off, authentication, body and query shapes — is enforced here, once, so handlers only
// see valid input and every route answers its declared statuses.
import { parseBody, parseQuery } from '../wire/schemas.js';
import { ROUTES, toUwsPattern, type RouteSpec } from '../wire/routes.js';
import { bearerToken, readJson, type RequestContext } from './context.js';
import type { Principal } from '../domain/types.js';
import type { EdgeDeps, HandlerTable, OperationId } from './deps.js';
import { json, problem, unauthorized, type Reply } from './reply.js';
import type { Router } from './router.js';
import { GAME_ROUTES } from './placement.js';

/**
 * The parse of an empty query, remembered per route: most public reads come without one, and a zod
 * parse costs about a microsecond each time. (Only the empty query: other queries carry names and
 * secrets that are not worth holding on to.) Handlers only read the parsed value, so it is shared.
 */
const emptyQueries = new WeakMap<RouteSpec, ReturnType<typeof parseQuery>>();

function parsedQuery(spec: RouteSpec, schema: NonNullable<NonNullable<RouteSpec['request']>['query']>, ctx: RequestContext) {
  if (ctx.rawQuery !== '') return parseQuery(schema, ctx.query);
  let parsed = emptyQueries.get(spec);
  if (parsed === undefined) emptyQueries.set(spec, (parsed = parseQuery(schema, ctx.query)));
  return parsed;
}

/** Longest path parameter that can name anything: ids are 16 characters, slugs at most 32. */
const MAX_PARAM_CHARS = 128;

/** A call as the binder builds it for any route, before the route's own types are applied. */
interface BoundCall {
  ctx: RequestContext;
  principal: Principal | null;
  body: unknown;
  query: Record<string, string | undefined>;
  params: Readonly<Record<string, string>>;
}
type BoundHandler = (call: BoundCall) => Reply | void | Promise<Reply | void>;

/**
 * The one place the table's per-route types are erased: `run` applies exactly the catalogue entry
 * of the route (its auth, its body and query schemas), which is what those types promise.
 */
const handlerOf = (table: HandlerTable, operationId: string): BoundHandler | undefined =>
  (table as unknown as Record<string, BoundHandler | undefined>)[operationId as OperationId];

/** Binds every catalogued route to its handler; routes whose catalogue auth says public may be read from any origin. */
export function bindRoutes(router: Router, deps: EdgeDeps, table: HandlerTable): void {
  const missing = ROUTES.filter((r) => !r.command && !handlerOf(table, r.operationId)).map((r) => r.operationId);
  const extra = Object.keys(table).filter((id) => !ROUTES.some((r) => r.operationId === id));
  if (missing.length || extra.length) {
    throw new Error(`route table mismatch: missing ${missing.join(',') || '-'}; unknown ${extra.join(',') || '-'}`);
  }
  for (const spec of ROUTES) {
    const handler = spec.command ? commandHandler(deps, spec.command) : handlerOf(table, spec.operationId)!;
    const route = `${spec.method} ${spec.path}`;
    const counted = async (ctx: RequestContext): Promise<Reply | void> => {
      const reply = await run(spec, ctx, deps, handler);
      if (reply?.status === 429) {
        deps.meter.refused(route);
        deps.log.debug?.({ route, ip: ctx.ip, identity: ctx.identity, code: problemCode(reply) }, 'refused by a limit');
      }
      return reply;
    };
    // Only public reads are open to every origin. The public writes (mints, guest seeks and games)
    // answer the configured origins only and refuse other sites' pages outright (see CorsRules.foreignWrite).
    const publicRead = spec.auth === 'public' && spec.method === 'GET';
    router.route(spec.method, toUwsPattern(spec.path), counted, {
      cors: publicRead ? 'public' : 'restricted',
      sameSiteOnly: spec.auth === 'public' && !publicRead,
      // The legal-move tree can be large: it goes out gzipped to clients that accept it.
      headers: spec.operationId === 'getLegalMoves' ? ['accept-encoding'] : undefined,
      // Cluster mode: which node answered and which owns the game (placement.ts).
      headersFor: deps.placement && GAME_ROUTES.has(spec.operationId) ? (p) => deps.placement!.headers(p.id ?? '') : undefined,
    });
  }
}

/** The `code` of a problem reply (read only for a debug line). */
function problemCode(reply: Reply): string | undefined {
  try {
    return typeof reply.body === 'string' ? (JSON.parse(reply.body) as { code?: string }).code : undefined;
  } catch {
    return undefined;
  }
}

async function run(spec: RouteSpec, ctx: RequestContext, deps: EdgeDeps, handler: BoundHandler): Promise<Reply | void> {
  // With webhooks disabled every webhook route is 503, checked before authentication (docs/DECISIONS.md, "Webhooks").
  if (spec.tag === 'Webhooks' && !deps.webhooksEnabled) {
    return problem('webhooks_disabled');
  }
  let principal: Principal | null = null;
  if (spec.auth !== 'public') {
    const token = bearerToken(ctx);
    if (token === undefined) return unauthorized('missing_token');
    principal = deps.identity.authenticate(token);
    if (principal === null) return unauthorized('invalid_token');
    ctx.identity = principal.id;
    if (principal.tier === 'registered') deps.presence?.touch(principal.id);
    if (principal.tier === 'guest' && spec.auth !== 'seatOrBearer') {
      return unauthorized('seat_token_not_allowed');
    }
  }
  // Real ids are 16 characters; a huge one names nothing (and must not reach a store key encoder).
  for (const value of Object.values(ctx.params)) {
    if (value.length > MAX_PARAM_CHARS) return problem('not_found', 'no such resource');
  }
  let body: unknown = undefined;
  if (spec.method !== 'GET') {
    const read = await readJson(ctx);
    if (spec.request?.body) {
      if (!read.ok) return read.error;
      let value = read.value;
      if (value === undefined) {
        if (spec.request.bodyRequired !== false) return problem('missing_body');
        value = {};
      }
      if (spec.request.lenient) {
        // The route judges the value itself (a malformed seed is ignored with 202, not refused).
        body = value;
      } else {
        const parsed = parseBody(spec.request.body, value);
        if (!parsed.ok) return problem('invalid_body', parsed.detail);
        body = parsed.value;
      }
    }
    // Routes without a body ignore whatever was sent (a POST without a body is fine).
  }
  let query: Record<string, string | undefined> = {};
  if (spec.request?.query) {
    const parsed = parsedQuery(spec, spec.request.query, ctx);
    if (!parsed.ok) return problem('invalid_query', parsed.detail);
    query = parsed.value as Record<string, string | undefined>;
  }
  // A route of one game, where this process keeps copies of games run elsewhere: the copy is brought
  // up to date first, or the game is unavailable for now (its shard between owners: retry, not 404).
  if (spec.game && deps.gameGate && ctx.params.id !== undefined) {
    if ((await deps.gameGate.game(ctx.params.id, spec.game)) === 'unavailable') {
      return problem('game_unavailable', undefined, { 'retry-after': '1' });
    }
  }
  return handler({ ctx, principal, body, query, params: ctx.params });
}

/**
 * The handler of a route that carries a player's game command (`command` in the catalogue): the
 * caller must be seated in the game; the command table makes the payload from the seat and the body,
 * and the route answers 202 once the command is handed to the game (its owner runs it in turn).
 */
function commandHandler(deps: EdgeDeps, name: string): BoundHandler {
  return (call) => {
    const game = deps.games.find(call.params.id ?? '');
    if (!game || call.principal === null) return problem('unknown_game');
    const seat = game.seatOf(call.principal.id);
    if (seat === null) return problem('not_seated');
    if (!game.playerCommand(name, seat, call.body)) throw new Error(`route of game command ${name}: the command table sends no such command from a request`);
    return json(202, {});
  };
}
