// The typed client's types, read from generated/types.ts: the catalogue's types written out without
// zod (scripts/client-catalogue.mjs prints what src/client/types.ts derives from the schemas), so
// the client's declarations stand alone. `RouteMethods` has a key per route; the Client has every
// one (the flat names, and the same functions by area), so tsc refuses a client that misses one.
import type { Operations } from './generated/types.js';
import type { CallOptions, EventStream, Failure, Pending, StreamOptions } from './results.js';

/** The operationIds of the catalogue; each is the name of a Client method. */
export type OperationId = keyof Operations;

/** The arguments of a call: path parameters, then the body, then the query (as the route has them). */
export type Args<Id extends OperationId> = Operations[Id]['args'];

/** A success, by status. */
export type Success<Id extends OperationId> = Operations[Id]['success'];

/** Routes with a "no verdict yet" answer. */
type PendingId = { [Id in OperationId]: Operations[Id]['pending'] extends true ? Id : never }[OperationId];

export type Result<Id extends OperationId> = Success<Id> | Failure | (Id extends PendingId ? Pending : never);

/** Routes whose success is an ndjson stream. */
export type StreamId = { [Id in OperationId]: [Operations[Id]['line']] extends [never] ? never : Id }[OperationId];

/** One line of a stream route. */
export type StreamLine<Id extends StreamId> = Operations[Id]['line'];

/** A method for every route of the catalogue. */
export type RouteMethods = {
  [Id in OperationId]: Id extends StreamId
    ? (...args: [...Args<Id>, options?: StreamOptions]) => EventStream<StreamLine<Id>>
    : (...args: [...Args<Id>, options?: CallOptions]) => Promise<Result<Id>>;
};
