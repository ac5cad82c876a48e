// One registry holds every named wire shape. The OpenAPI and AsyncAPI documents are generated from
// it, so a schema that validates a request is, byte for byte, the schema the documents publish.
// It is our own registry rather than zod's global one: other layers (config) use zod too, and their
// schemas must not leak into the public contract.
import { z } from 'zod';

export interface WireMeta {
  /** Component name in the documents; only schemas with an id become components. */
  id?: string;
  title?: string;
  description?: string;
}

export const wireRegistry = z.registry<WireMeta>();

/** Registers a schema as a named component and returns it unchanged. */
export function named<S extends z.ZodType>(id: string, schema: S, description: string): S {
  wireRegistry.add(schema, { id, description });
  return schema;
}

/**
 * Attaches a field description. The schema instance must be private to that field: metadata is
 * keyed by instance, so describing a shared schema would describe it everywhere.
 */
export function described<S extends z.ZodType>(schema: S, description: string): S {
  wireRegistry.add(schema, { description });
  return schema;
}

/** Component id of a registered schema, or undefined. */
export function componentId(schema: z.ZodType): string | undefined {
  return wireRegistry.get(schema)?.id;
}
