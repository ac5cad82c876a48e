// Replies are values: a handler builds one and the router sends it, so a handler never touches the
// socket and "expected failure" stays a return value (problem(...)) rather than a throw.
import { STATUS_CODES } from 'node:http';
import { PROBLEMS, type ProblemCode, type ProblemCodeWith, type ProblemSpec } from '../wire/problems.js';

/** Response headers, lower-case names. */
export type Headers = Readonly<Record<string, string>>;

/** A complete, already-serialised response. */
export interface Reply {
  readonly status: number;
  /**
   * The body as text, or as bytes already encoded (a cached answer sent as is, without the UTF-8
   * conversion a string costs on every send); undefined means no body (204, or a body-less 202).
   */
  readonly body: string | Uint8Array | undefined;
  readonly contentType: string | undefined;
  readonly headers: Headers | undefined;
}

/** A reply built from text (everything but a pre-encoded body). */
export type TextReply = Reply & { readonly body: string };

export const JSON_TYPE = 'application/json';
export const PROBLEM_TYPE = 'application/problem+json';

/** The header a 401 always carries (docs/API.md, "Errors and limits"). */
export const BEARER_CHALLENGE = 'Bearer realm="dicechess"';

const statusLines = new Map<number, string>();

/** "404 Not Found": cached because uWS wants the whole status line on every response. */
export function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${reasonPhrase(status)}`;
    statusLines.set(status, line);
  }
  return line;
}

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown';
}

/**
 * A JSON reply. A string is taken as JSON that is already serialised (wire encoders serialise an
 * object once and reuse the bytes), anything else goes through JSON.stringify.
 */
export function json(status: number, value: unknown, headers?: Headers): TextReply {
  const body = typeof value === 'string' ? value : JSON.stringify(value);
  // undefined, a function or a symbol serialise to nothing: that would be an empty body, which the
  // contract forbids, so it is a programming error.
  if (body === undefined) throw new TypeError(`json(${status}): value is not serialisable`);
  return { status, body, contentType: JSON_TYPE, headers };
}

/** A JSON reply from UTF-8 bytes serialised earlier (and usually cached by their owner). */
export function jsonBytes(status: number, body: Uint8Array, headers?: Headers): Reply {
  return { status, body, contentType: JSON_TYPE, headers };
}

/** 204 No Content. */
export function noContent(headers?: Headers): Reply {
  return { status: 204, body: undefined, contentType: undefined, headers };
}

/**
 * An RFC 9457 problem with the code's status from the catalogue (src/wire/problems.ts) and, without a
 * detail, its default one. 401 always gets the Bearer challenge; 429 always gets Retry-After in whole
 * seconds, at least 1 (the caller may pass its own value, which is rounded up and clamped).
 */
export function problem(code: ProblemCode, detail?: string, headers?: Headers): TextReply {
  const spec: ProblemSpec = PROBLEMS[code];
  const status = spec.status;
  const body = JSON.stringify({ type: 'about:blank', title: reasonPhrase(status), status, detail: detail ?? spec.detail, code });
  let out: Record<string, string> | undefined;
  if (headers !== undefined) {
    out = {};
    for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  }
  if (status === 401 && out?.['www-authenticate'] === undefined) {
    out = { ...out, 'www-authenticate': BEARER_CHALLENGE };
  }
  if (status === 429) {
    out = { ...out, 'retry-after': String(wholeSeconds(Number(out?.['retry-after']))) };
  }
  return { status, body, contentType: PROBLEM_TYPE, headers: out };
}

/** 401 with the Bearer challenge. */
export function unauthorized(code: ProblemCodeWith<401>, detail?: string): TextReply {
  return problem(code, detail);
}

/** 429 with Retry-After. */
export function tooManyRequests(code: ProblemCodeWith<429>, retryAfterSeconds: number, detail?: string): TextReply {
  return problem(code, detail, { 'retry-after': String(retryAfterSeconds) });
}

/** The body of every 500: a bug on our side, and none of its details are the client's business. */
export function internalError(): TextReply {
  return problem('internal');
}

function wholeSeconds(n: number): number {
  return Number.isFinite(n) && n > 1 ? Math.ceil(n) : 1;
}
