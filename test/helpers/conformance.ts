// Judges real responses against the published OpenAPI document (the one buildOpenApi serves), so a
// handler that drifts from the contract fails a test instead of surprising a bot author. Checks:
// the route and method exist, the status is declared, the content type matches, and the body
// validates against the declared schema (each line of an ndjson stream, each on its own).
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { buildOpenApi } from '../../src/wire/openapi.js';
import type { Json, JsonObject } from '../../src/wire/jsonschema.js';
import { COMPONENT_PREFIX } from '../../src/wire/jsonschema.js';
import { toOpenApiPath } from '../../src/wire/routes.js';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

// ajv ships CommonJS; under NodeNext the default import is the module object, whose `default`
// is the class (and the plugin). Take whichever is callable.
type AjvClass = typeof import('ajv/dist/2020.js').default;
type FormatsPlugin = typeof import('ajv-formats').default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ?? Ajv2020Module) as AjvClass;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

export interface ResponseInfo {
  method: string;
  /** Route pattern, uWS (`/bot/game/:id/move`) or OpenAPI (`/bot/game/{id}/move`); a concrete path works too. */
  pattern: string;
  status: number;
  /** The Content-Type header as sent (parameters such as charset are ignored); absent when none. */
  contentType?: string | null;
  /** Raw text (or bytes), or an already-parsed value; for ndjson the raw text or an array of events. */
  body?: unknown;
}

export interface Conformance {
  /** Records every way this response departs from the document; never throws. */
  check(info: ResponseInfo): void;
  /** Everything recorded so far. */
  mismatches(): string[];
}

const DOC_ID = 'urn:dicechess:openapi';

type Doc = {
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject> };
  /** The problems of an unknown path (404), a method a path does not answer (405) and a bug (500). */
  'x-unmatched-responses': Record<string, JsonObject>;
};

/** Rewrites document refs to the standalone resource ajv knows, without touching the document. */
function rewrite(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] =
      k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_PREFIX)
        ? `${DOC_ID}#/$defs/${v.slice(COMPONENT_PREFIX.length)}`
        : rewrite(v);
  }
  return out;
}

// One compiler and one validator per schema for the whole test process: compiling is the slow part.
let shared: { doc: Doc; ajv: InstanceType<AjvClass>; validators: Map<string, ValidateFunction> } | undefined;

function setup(): NonNullable<typeof shared> {
  if (shared) return shared;
  const doc = buildOpenApi('conformance') as unknown as Doc;
  const ajv = new Ajv2020({ strict: true, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: DOC_ID, $defs: rewrite(doc.components.schemas as unknown as Json) } as object);
  shared = { doc, ajv, validators: new Map() };
  return shared;
}

// The validator of each schema object of the document, found without rewriting it again: every
// response of every server test is checked, and rewriting plus serialising its schema each time
// was a large part of a busy test's CPU.
const byObject = new WeakMap<JsonObject, ValidateFunction>();

function validator(schema: JsonObject): ValidateFunction {
  const known = byObject.get(schema);
  if (known) return known;
  const s = setup();
  const rewritten = rewrite(schema) as JsonObject;
  const key = JSON.stringify(rewritten);
  let v = s.validators.get(key);
  if (!v) {
    v = s.ajv.compile(rewritten);
    s.validators.set(key, v);
  }
  byObject.set(schema, v);
  return v;
}

const mediaType = (ct: string): string => ct.split(';')[0]!.trim().toLowerCase();
const isJson = (mt: string): boolean => mt === 'application/json' || mt.endsWith('+json');

/** The document's path template of each pattern or concrete path seen (bounded: a test sees finitely many). */
const templates = new Map<string, string | undefined>();
const TEMPLATE_CACHE_MAX = 50_000;

function templateFor(paths: Doc['paths'], pattern: string): string | undefined {
  const key = pattern.split('?')[0]!;
  if (templates.has(key)) return templates.get(key);
  const found = findTemplate(paths, key);
  if (templates.size >= TEMPLATE_CACHE_MAX) templates.clear();
  templates.set(key, found);
  return found;
}

function findTemplate(paths: Doc['paths'], pattern: string): string | undefined {
  const path = toOpenApiPath(pattern);
  if (paths[path]) return path;
  // A concrete path: match segment by segment, literal segments first.
  const segs = path.split('/');
  const candidates = Object.keys(paths).filter((tpl) => {
    const t = tpl.split('/');
    return t.length === segs.length && t.every((x, i) => (x.startsWith('{') ? segs[i] !== '' : x === segs[i]));
  });
  const params = (tpl: string): number => tpl.split('{').length - 1;
  candidates.sort((a, b) => params(a) - params(b));
  return candidates[0];
}

/**
 * A body of bytes as text; a compressed one (a kept large body sent to a client that accepts gzip or
 * brotli) decompressed. Brotli has no magic number: bytes that do not start like JSON are tried as brotli.
 */
function asText(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) {
    let bytes: Uint8Array = body;
    if (body[0] === 0x1f && body[1] === 0x8b) bytes = gunzipSync(body);
    else if (body.length > 0 && body[0] !== 0x7b && body[0] !== 0x5b) {
      try {
        bytes = brotliDecompressSync(body);
      } catch {
        // not brotli either: checked as it is
      }
    }
    return Buffer.from(bytes).toString('utf8');
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString('utf8');
  return undefined;
}

const isEmpty = (body: unknown): boolean =>
  body === undefined || body === null || (asText(body) ?? 'x') === '';

export function createConformance(): Conformance {
  const found: string[] = [];

  function check(info: ResponseInfo): void {
    const { doc } = setup();
    const method = info.method.toLowerCase();
    const at = `${info.method.toUpperCase()} ${info.pattern} ${info.status}`;
    const miss = (why: string): void => void found.push(`${at}: ${why}`);

    const template = templateFor(doc.paths, info.pattern);
    let response: JsonObject | undefined;
    if (!template) {
      if (info.status !== 404) return miss('no such route in the OpenAPI document');
      response = doc['x-unmatched-responses']['404'];
    } else if (method === 'options') {
      // CORS preflight: 204 on every known path, never a body (the document says so globally).
      if (info.status !== 204) return miss('a preflight answers 204');
      if (!isEmpty(info.body)) miss('a preflight has no body');
      return;
    } else {
      // HEAD is the GET operation without its body.
      const op = doc.paths[template]![method === 'head' ? 'get' : method];
      if (!op) {
        if (info.status !== 405) return miss(`method not declared for ${template}`);
        response = doc['x-unmatched-responses']['405'];
      } else {
        response = (op.responses as Record<string, JsonObject>)[String(info.status)];
        if (!response) return miss(`status not declared (declared: ${Object.keys(op.responses as object).join(', ')})`);
      }
    }

    const content = response!.content as Record<string, { schema: JsonObject }> | undefined;
    if (!content) {
      if (!isEmpty(info.body)) miss('declared without a body, but a body was sent');
      return;
    }
    const head = method === 'head';
    if (!info.contentType) return miss(`no content type (declared: ${Object.keys(content).join(', ')})`);
    const sent = mediaType(info.contentType);
    const declared = Object.keys(content).find((ct) => mediaType(ct) === sent);
    if (!declared) return miss(`content type ${sent} not declared (declared: ${Object.keys(content).join(', ')})`);
    const schema = content[declared]!.schema;
    if (head && isEmpty(info.body)) return;

    const validate = (value: unknown, where: string): void => {
      const v = validator(schema);
      if (v(value)) return;
      miss(`${where} does not match the schema: ${setup().ajv.errorsText(v.errors, { dataVar: where })}`);
    };

    if (sent === 'application/x-ndjson') {
      // Blank keep-alive lines are skipped, so "line N" counts event lines only.
      const text = asText(info.body);
      const lines = Array.isArray(info.body)
        ? info.body.map((x) => JSON.stringify(x))
        : text !== undefined
          ? text.split('\n').filter((l) => l.trim() !== '')
          : null;
      if (!lines) return miss('ndjson body must be text or an array of events');
      lines.forEach((line, i) => {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          return miss(`line ${i + 1} is not JSON`);
        }
        validate(value, `line ${i + 1}`);
      });
      return;
    }

    if (!isJson(sent)) {
      if (asText(info.body) === undefined) miss(`a ${sent} body must be text`);
      return;
    }

    let value: unknown;
    const text = asText(info.body);
    if (text !== undefined) {
      try {
        value = JSON.parse(text);
      } catch {
        return miss('body is not JSON');
      }
    } else if (info.body === undefined) {
      return miss('no body');
    } else {
      // What the wire would carry: undefined fields vanish, dates become strings.
      value = JSON.parse(JSON.stringify(info.body));
    }
    validate(value, 'body');
    if (sent === 'application/problem+json' && (value as { status?: unknown })?.status !== info.status) {
      miss(`problem status ${String((value as { status?: unknown })?.status)} differs from the HTTP status`);
    }
  }

  return { check, mismatches: () => [...found] };
}

/**
 * Problems of a webhook delivery body against the document's `webhooks` entry (`verification` or
 * `yourTurn`): what a bot author's validator would say. Empty when it conforms.
 */
export function webhookPayloadProblems(kind: 'verification' | 'yourTurn', body: unknown): string[] {
  const doc = setup().doc as Doc & { webhooks?: Record<string, { post: JsonObject }> };
  const post = doc.webhooks?.[kind]?.post as { requestBody?: { content?: Record<string, { schema: JsonObject }> } } | undefined;
  const schema = post?.requestBody?.content?.['application/json']?.schema;
  if (!schema) return [`the document has no webhooks.${kind} body schema`];
  const v = validator(schema);
  return v(body) ? [] : (v.errors ?? []).map((e) => `${kind}${e.instancePath}: ${e.message}`);
}
