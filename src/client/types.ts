// The typed client's types, all read from the route catalogue (src/wire/routes.ts): the arguments
// of a call come from the route's path template and request schemas, its answers from the schemas
// of its success statuses. A route added to the catalogue is a new key of `RouteMethods`, and the
// Client class must implement every key, so tsc refuses a client that misses a route.
import type { z } from 'zod';
import type { CatalogueRoute } from '../wire/routes.js';
import type { OK_RESPONSES } from '../wire/route-spec.js';
import type { Problem as ProblemSchema } from '../wire/schemas.js';

/** An RFC 9457 problem body, as every error answer of the server carries. */
export type Problem = z.output<typeof ProblemSchema>;

/** The operationIds of the catalogue; each is the name of a Client method. */
export type OperationId = CatalogueRoute['operationId'];

export type RouteOf<Id extends OperationId> = Extract<CatalogueRoute, { operationId: Id }>;

/** One string argument per `{…}` of the path template, in order. */
type ParamArgs<P extends string> = P extends `${string}{${string}}${infer Rest}` ? [string, ...ParamArgs<Rest>] : [];

type BodyArgs<Id extends OperationId, R> = R extends { request: { body: infer S extends z.ZodType } }
  ? R extends { request: { bodyRequired: false } }
    ? [body?: z.input<S>]
    : [body: z.input<S>]
  : [];

type QueryArgs<R> = R extends { request: { query: infer S extends z.ZodType } }
  ? {} extends z.input<S>
    ? [query?: z.input<S>]
    : [query: z.input<S>]
  : [];

/** The arguments of a call: path parameters, then the body, then the query (as the route has them). */
export type Args<Id extends OperationId> = [
  ...ParamArgs<RouteOf<Id>['path']>,
  ...BodyArgs<Id, RouteOf<Id>>,
  ...QueryArgs<RouteOf<Id>>,
];

/** The success statuses of a route with their response specs, as the catalogue wrote them. */
type Ok<Id extends OperationId> = NonNullable<RouteOf<Id>[typeof OK_RESPONSES]>;
type OkStatus<Id extends OperationId> = keyof Ok<Id> & number;

type ValueOf<Spec> = Spec extends { schema: infer S extends z.ZodType }
  ? z.output<S>
  : Spec extends { contentType: string }
    ? string
    : undefined;

/** A success (or a non-problem answer such as a refused move's verdict), by status. */
export type Success<Id extends OperationId> = {
  [K in OkStatus<Id>]: { ok: true; status: K; value: ValueOf<Ok<Id>[K]>; headers: Headers };
}[OkStatus<Id>];

/**
 * A problem answer. `status` 0 with code `network_error` when no answer came at all (refused
 * connection, reset, abort). `retryAfter` in seconds when the server sent Retry-After.
 */
export interface Failure {
  ok: false;
  status: number;
  problem: Problem;
  retryAfter: number | null;
}

export type Result<Id extends OperationId> = Success<Id> | Failure;

/** Routes whose success is an ndjson stream. */
export type StreamId = {
  [Id in OperationId]: 200 extends OkStatus<Id>
    ? Ok<Id>[200 & OkStatus<Id>] extends { contentType: 'application/x-ndjson' }
      ? Id
      : never
    : never;
}[OperationId];

/** One line of a stream route. */
export type StreamLine<Id extends StreamId> = Ok<Id>[200 & OkStatus<Id>] extends { schema: infer S extends z.ZodType }
  ? z.output<S>
  : never;

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

/** A method for every route of the catalogue. */
export type RouteMethods = {
  [Id in OperationId]: Id extends StreamId
    ? (...args: [...Args<Id>, options?: StreamOptions]) => EventStream<StreamLine<Id>>
    : (...args: Args<Id>) => Promise<Result<Id>>;
};
