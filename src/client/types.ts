// The typed client's types as the route catalogue (src/wire/routes.ts) defines them: the arguments
// of a call come from the route's path template and request schemas, its answers from the schemas
// of its success statuses. The client itself does not import this file: scripts/client-catalogue.mjs
// writes these types out without zod into generated/types.ts (api.ts reads them from there), so the
// client installs and type-checks without the server's packages; test/client/catalogue.test.ts
// fails when that copy is stale. The web page takes its route types from here.
import type { z } from 'zod';
import type { CatalogueRoute } from '../wire/routes.js';
import type { OK_RESPONSES } from '../wire/route-spec.js';
import type { Problem as ProblemSchema } from '../wire/schemas.js';
import type { CallOptions, EventStream, Failure, Pending, StreamOptions } from './results.js';

export type { CallOptions, EventStream, Failure, Pending, StreamOptions } from './results.js';

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
/** Every status a route answers with a body of its own (its `ok` table: successes, a refusal with its verdict, "pending"). */
export type OkStatus<Id extends OperationId> = keyof Ok<Id> & number;

type ValueOf<Spec> = Spec extends { schema: infer S extends z.ZodType }
  ? z.output<S>
  : Spec extends { contentType: string }
    ? string
    : undefined;

/** The statuses of a route's `ok` table that are successes: 2xx, less the one that means "no verdict yet". */
type DoneStatus<Id extends OperationId> = {
  [K in OkStatus<Id>]: K extends 200 | 201 | 202 | 203 | 204 ? (Ok<Id>[K] extends { pending: true } ? never : K) : never;
}[OkStatus<Id>];

/** A success, by status. */
export type Success<Id extends OperationId> = {
  [K in DoneStatus<Id>]: { ok: true; status: K; value: ValueOf<Ok<Id>[K]>; headers: Headers };
}[DoneStatus<Id>];

/** Routes with a "no verdict yet" answer. */
type PendingId = {
  [Id in OperationId]: { [K in OkStatus<Id>]: Ok<Id>[K] extends { pending: true } ? K : never }[OkStatus<Id>] extends never ? never : Id;
}[OperationId];

export type Result<Id extends OperationId> = Success<Id> | Failure | (Id extends PendingId ? Pending : never);

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

/** A method for every route of the catalogue. */
export type RouteMethods = {
  [Id in OperationId]: Id extends StreamId
    ? (...args: [...Args<Id>, options?: StreamOptions]) => EventStream<StreamLine<Id>>
    : (...args: [...Args<Id>, options?: CallOptions]) => Promise<Result<Id>>;
};
