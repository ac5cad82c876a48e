// Turning untrusted input into typed values. A failure is a value carrying one short, human detail
// that names the offending field (docs/API.md, "Conventions": "wrong types are 400 with a `detail` naming the
// field"); the edge copies it into the problem body. Nothing here throws on bad input.
import { z } from 'zod';

export type Parsed<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      /** e.g. `timeControl.Fischer.incrementSeconds: must be an integer 0..600`. */
      detail: string;
      /** Dotted path of the first offending field; '' for the whole body. */
      path: string;
    };

/** Hostile keys end up in messages; a detail never grows past this. */
const MAX_DETAIL = 200;

const ARTICLE: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  null: 'null',
};

const units = (n: number | bigint, one: string, many: string): string => `${String(n)} ${Number(n) === 1 ? one : many}`;

const clip = (s: string, n = 40): string => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * Per-parse messages for every issue a schema did not word itself. Zod calls this with the input
 * still attached, which is the only way to tell a missing field from a wrong one.
 */
function message(iss: z.core.$ZodRawIssue): string {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return 'is required';
      return `must be ${ARTICLE[iss.expected] ?? iss.expected}`;
    case 'too_big':
      if (iss.origin === 'string') return `must be at most ${units(iss.maximum, 'character', 'characters')}`;
      if (iss.origin === 'array') return `must have at most ${units(iss.maximum, 'entry', 'entries')}`;
      return `must be at most ${String(iss.maximum)}`;
    case 'too_small':
      if (iss.origin === 'string') return `must be at least ${units(iss.minimum, 'character', 'characters')}`;
      if (iss.origin === 'array') return `must have at least ${units(iss.minimum, 'entry', 'entries')}`;
      return `must be at least ${String(iss.minimum)}`;
    case 'invalid_format':
      return iss.format === 'url' ? 'must be a URL' : `must be a valid ${iss.format}`;
    case 'invalid_value':
      return `must be one of ${iss.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown key ${iss.keys.map((k) => JSON.stringify(clip(k))).join(', ')}`;
    case 'invalid_union':
      return 'matches none of the allowed shapes';
    default:
      return 'is invalid';
  }
}

type Issue = z.core.$ZodIssue;

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let cur = value;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/**
 * A failed union of single-key objects reports every branch. The useful one is the branch whose
 * key the caller actually sent (`{Fischer: {incrementSeconds: 9999}}` should talk about Fischer,
 * not complain that `Unlimited` is missing). Null when no branch was aimed at.
 */
function aimedBranch(iss: Issue & { code: 'invalid_union' }, root: unknown): Issue[] | null {
  const input = at(root, iss.path);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return null;
  for (const branch of iss.errors) {
    const aimed =
      branch.length > 0 &&
      branch.every((b) => b.code !== 'unrecognized_keys' && b.path.length > 0 && Object.hasOwn(input, b.path[0]!));
    if (aimed) return branch.map((b) => ({ ...b, path: [...iss.path, ...b.path] }));
  }
  return null;
}

function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? clip(String(key)) : `.${clip(String(key))}`;
  }
  return out;
}

function describeIssue(iss: Issue, root: unknown): { path: string; text: string } {
  if (iss.code === 'invalid_union') {
    const branch = aimedBranch(iss, root);
    if (branch) return describeIssue(branch[0]!, root);
  }
  return { path: pathText(iss.path), text: iss.message };
}

function fail(error: z.ZodError, root: unknown, rootLabel: string): Parsed<never> {
  const first = error.issues[0];
  if (!first) return { ok: false, detail: `${rootLabel}: is invalid`, path: '' };
  const { path, text } = describeIssue(first, root);
  const detail = `${path === '' ? rootLabel : path}: ${text}`;
  return { ok: false, detail: clip(detail, MAX_DETAIL), path };
}

/** Validates a parsed JSON body. Unknown fields are dropped, never refused. */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): Parsed<z.output<S>> {
  return judged(schema, value, 'body');
}

/**
 * Parses without the message hook first: zod takes a much slower path whenever a custom error map
 * is passed (about 3 µs more per call, measured), and only a refused value needs the wording.
 */
function judged<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query'): Parsed<z.output<S>> {
  const fast = schema.safeParse(value);
  if (fast.success) return { ok: true, value: fast.data };
  const r = schema.safeParse(value, { error: message });
  return r.success ? { ok: true, value: r.data } : fail(r.error, value, where);
}

/**
 * Validates query parameters. Accepts the raw query string (as uWS hands it over, without '?'),
 * URLSearchParams, or a plain record; a repeated key keeps its first value.
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  query: string | URLSearchParams | Record<string, string | undefined>,
): Parsed<z.output<S>> {
  const params = typeof query === 'string' || query instanceof URLSearchParams ? new URLSearchParams(query) : null;
  let value: Record<string, string | undefined>;
  if (params) {
    // A Map then fromEntries: a key such as `__proto__` becomes a plain own property, never a prototype.
    const first = new Map<string, string>();
    for (const [k, v] of params) if (!first.has(k)) first.set(k, v);
    value = Object.fromEntries(first);
  } else {
    value = query as Record<string, string | undefined>;
  }
  return judged(schema, value, 'query');
}

/**
 * Parses raw body bytes as JSON and validates them, so every route words a broken body the same
 * way. An empty body is `{}` where the route allows it (RequestSpec.bodyRequired false) and a
 * missing body otherwise.
 */
export function parseJsonBody<S extends z.ZodType>(
  schema: S,
  raw: string | Uint8Array | undefined,
  bodyRequired = true,
): Parsed<z.output<S>> {
  const text = raw === undefined ? '' : typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
  if (text.trim() === '') {
    return bodyRequired ? { ok: false, detail: 'body: is required', path: '' } : parseBody(schema, {});
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, detail: 'body: is not valid JSON', path: '' };
  }
  return parseBody(schema, value);
}
