// THE ROUTE CATALOGUE: every route of the service, its authentication, request shapes and every
// status it can answer (docs/API.md says the same for
// people). The edge routes from it; the OpenAPI document is made from it. The routes themselves are
// written by area in routes/ (identity, lobby, games, competition); this file puts them in document
// order and holds the operations routes.
import * as R from './responses.js';
import type { Method, RouteSpec } from './route-spec.js';
import { CONTENT_TYPES, json, route, toOpenApiPath } from './route-spec.js';
import { identity, webhooks } from './routes/identity.js';
import { challenges, lobby, seeks } from './routes/lobby.js';
import { discovery, gameplay, streams } from './routes/games.js';
import { events, leaderboard } from './routes/competition.js';

export type { Auth, Method, RequestSpec, ResponseSpec, RouteSpec } from './route-spec.js';
export { CONTENT_TYPES, pathParams, toOpenApiPath, toUwsPattern } from './route-spec.js';

const operations = [
  route({
    operationId: 'health', method: 'GET', path: '/health', auth: 'public', tag: 'Operations',
    summary: 'Liveness and server version.',
    ok: { 200: json(R.Health, 'Alive.') },
    errors: { 503: 'Cluster mode: the node is starting and waits for its cluster (`node_starting`); every other route answers the same meanwhile. Retry after `Retry-After`.' },
  }),
  route({
    operationId: 'ready', method: 'GET', path: '/ready', auth: 'public', tag: 'Operations',
    summary: 'Readiness: whether this server should be sent traffic now.',
    description:
      'Unlike /health (alive), 200 only while the store, the game shards and, in a cluster, NATS and the shards ' +
      'this node owns are serving; 503 otherwise, also from the moment the server is told to stop, so a load ' +
      'balancer takes it out before it closes its port.',
    ok: {
      200: json(R.Readiness, 'Every part is serving.'),
      503: json(R.Readiness, 'Some part is not serving (`parts` says which), or the server is shutting down.'),
    },
  }),
  route({
    operationId: 'metrics', method: 'GET', path: '/metrics', auth: 'public', tag: 'Operations',
    summary: 'Prometheus metrics.',
    ok: { 200: { description: 'Prometheus text exposition format.', contentType: CONTENT_TYPES.prometheus } },
    errors: { 404: '`not_found`: the metrics are served on their own port (`metrics.port`), not on this one.' },
  }),
  route({
    operationId: 'getOpenApi', method: 'GET', path: '/openapi.json', auth: 'public', tag: 'Operations',
    summary: 'This document: OpenAPI 3.1 of the REST routes.',
    ok: { 200: json(R.JsonDocument, 'The OpenAPI document.') },
  }),
  route({
    operationId: 'getAsyncApi', method: 'GET', path: '/asyncapi.json', auth: 'public', tag: 'Operations',
    summary: 'AsyncAPI 3 of the ndjson streams.',
    ok: { 200: json(R.JsonDocument, 'The AsyncAPI document.') },
  }),
];

/**
 * Every route as the catalogue wrote it: its operationId, path, auth and request schemas keep their
 * literal types, so the edge derives what each handler receives from here (src/edge/deps.ts).
 */
export type CatalogueRoute =
  | (typeof identity)[number] | (typeof challenges)[number] | (typeof seeks)[number] | (typeof lobby)[number]
  | (typeof gameplay)[number] | (typeof discovery)[number] | (typeof leaderboard)[number]
  | (typeof streams)[number] | (typeof webhooks)[number] | (typeof events)[number] | (typeof operations)[number];

/** Every route of the service, grouped as docs/API.md groups them. */
export const ROUTES: readonly RouteSpec[] = Object.freeze([
  ...identity, ...challenges, ...seeks, ...lobby, ...gameplay, ...discovery, ...leaderboard, ...streams,
  ...webhooks, ...events, ...operations,
]);

/** Tags in document order, with a line each. */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'Identity', description: 'Tokens, accounts and ladder membership.' },
  { name: 'Challenges', description: 'Bot-to-bot challenges.' },
  { name: 'Seeks', description: 'Public offers made and taken by bots.' },
  { name: 'Lobby', description: 'The public lobby shared with human guests; seeks held by their secret.' },
  { name: 'Gameplay', description: 'Seeds, turns and resignations.' },
  { name: 'Discovery', description: 'Public reads of games.' },
  { name: 'Leaderboard', description: 'Ratings; only on a server with persistence.' },
  { name: 'Streams', description: 'Long-lived ndjson event streams.' },
  { name: 'Webhooks', description: 'Turn deliveries by HTTPS, registered bots only.' },
  { name: 'Events', description: 'Matches, gauntlets, round-robins, Swiss and SPRT tests for tournament hosts.' },
  { name: 'Operations', description: 'Health, readiness, metrics and the machine-readable contract.' },
];

const byKey = new Map(ROUTES.map((r) => [`${r.method} ${r.path}`, r]));

/** The route for a method and a template (OpenAPI `{id}` or uWS `:id` syntax), or undefined. */
export function findRoute(method: string, pattern: string): RouteSpec | undefined {
  return byKey.get(`${method.toUpperCase()} ${toOpenApiPath(pattern)}`);
}

/** Methods a path template answers (for the `Allow` header of a 405). */
export function allowedMethods(pattern: string): Method[] {
  const path = toOpenApiPath(pattern);
  return ROUTES.filter((r) => r.path === path).map((r) => r.method);
}
