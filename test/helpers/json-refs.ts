// Walking the `$ref`s of a generated API document (both the OpenAPI and the AsyncAPI tests check
// that every reference resolves).
import type { Json } from '../../src/wire/jsonschema.js';

/** Resolves a local JSON pointer such as `#/components/schemas/Seat` (with ~1 and ~0 escapes). */
export function resolve(root: Json, ref: string): Json | undefined {
  let cur: Json | undefined = root;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? cur[key] : undefined;
  }
  return cur;
}

/** Every `$ref` value in a document, in document order. */
export function refs(node: Json, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((x) => refs(x, out));
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}
