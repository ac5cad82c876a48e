// JSON Schema of the named wire shapes, converted once per dialect from the registry. Both documents
// put them under `components.schemas` and point at them with `$ref`, so the recursive legal-move
// tree is a reference to itself rather than an endless expansion.
import { z } from 'zod';
import { componentId, wireRegistry } from './schema-registry.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const COMPONENT_PREFIX = '#/components/schemas/';

/** OpenAPI 3.1 speaks 2020-12; AsyncAPI 3's default schema format is a draft-07 superset. */
export type Dialect = 'draft-2020-12' | 'draft-07';

const cache = new Map<Dialect, Readonly<Record<string, JsonObject>>>();

/** zod states the safe-integer bounds of every integer; they are noise in a published contract. */
function dropSafeIntegerBounds(ctx: { jsonSchema: { minimum?: number; maximum?: number } }): void {
  const js = ctx.jsonSchema;
  if (js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
  if (js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
}

/**
 * `io: 'input'` describes what a parser accepts. Request objects are non-strict, so they come out
 * open (unknown fields allowed, as the server ignores them); response objects are strict, so they
 * come out closed.
 */
function convert(dialect: Dialect): Record<string, JsonObject> {
  const out = z.toJSONSchema(wireRegistry, {
    target: dialect,
    io: 'input',
    metadata: wireRegistry,
    unrepresentable: 'throw',
    override: dropSafeIntegerBounds,
    uri: (id) => `${COMPONENT_PREFIX}${id}`,
  }).schemas as Record<string, JsonObject>;
  const sorted: Record<string, JsonObject> = {};
  for (const id of Object.keys(out).sort()) {
    // The per-schema `$schema`/`$id` make sense standalone, not inside a document's components.
    const { $schema: _s, $id: _i, ...rest } = out[id]!;
    sorted[id] = rest;
  }
  return sorted;
}

/** Every named schema, by component id, for one dialect. Cached; treat as read-only. */
export function componentSchemas(dialect: Dialect): Readonly<Record<string, JsonObject>> {
  let found = cache.get(dialect);
  if (!found) {
    found = deepFreeze(convert(dialect));
    cache.set(dialect, found);
  }
  return found;
}

/** `{$ref}` to the component of a named schema; a catalogued schema without a name is a bug. */
export function refTo(schema: z.ZodType, where: string): JsonObject {
  const id = componentId(schema);
  if (!id) throw new Error(`${where}: schema is not a named wire component`);
  return { $ref: `${COMPONENT_PREFIX}${id}` };
}

/** Inline JSON Schema of a small unnamed schema (query and header parameters). */
export function inlineSchema(schema: z.ZodType): JsonObject {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    metadata: wireRegistry,
    override: dropSafeIntegerBounds,
  }) as JsonObject;
  return rest;
}

/** Component ids referenced anywhere inside a JSON value. */
export function refsIn(node: Json, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const x of node) refsIn(x, into);
  } else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_PREFIX)) {
        into.add(v.slice(COMPONENT_PREFIX.length));
      } else {
        refsIn(v, into);
      }
    }
  }
  return into;
}

/** The components reachable from `roots`, following references between components. */
export function reachable(roots: Iterable<string>, schemas: Readonly<Record<string, JsonObject>>): string[] {
  const seen = new Set<string>();
  const todo = [...roots];
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (seen.has(id) || !schemas[id]) continue;
    seen.add(id);
    for (const next of refsIn(schemas[id])) todo.push(next);
  }
  return [...seen].sort();
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * A document built once per server version, frozen, and serialised once: the API documents are
 * served as the same text on every request.
 */
export function documentCache(build: (version: string) => JsonObject): (version: string) => { doc: JsonObject; json: string } {
  const documents = new Map<string, { doc: JsonObject; json: string }>();
  return (version) => {
    let found = documents.get(version);
    if (!found) {
      const doc = deepFreeze(build(version));
      found = { doc, json: JSON.stringify(doc) };
      documents.set(version, found);
    }
    return found;
  };
}
