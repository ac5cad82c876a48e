// What the client needs of a route at run time, without its schemas: generated/routes.ts holds one
// of these for every route of the catalogue, written by scripts/client-catalogue.mjs.

/**
 * How the client reads an answer of a status the route answers with a body of its own: JSON, text,
 * nothing (204), ndjson lines, or JSON that means "no verdict yet". Any status not listed is read as
 * a problem.
 */
export type AnswerKind = 'json' | 'text' | 'empty' | 'ndjson' | 'pending';

export interface RouteEntry {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path template, e.g. `/bot/game/{id}/move`. */
  path: string;
  auth: 'public' | 'bearer' | 'seatOrBearer';
  /** Whether the call takes a JSON body (after the path parameters). */
  body: boolean;
  /** Whether the call takes query parameters (after the body). */
  query: boolean;
  ok: Readonly<Record<number, AnswerKind>>;
}

/** Names of the path parameters of a template, in order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
