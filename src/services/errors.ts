// Expected failures of the services, as values. The edge maps `kind` to an HTTP status and copies
// `code`/`detail` into the problem body; nothing here knows about HTTP.
import type { Result } from '../domain/result.js';

export type ServiceErrorKind =
  | 'bad_request' // 400
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'unprocessable' // 422
  | 'rate_limited' // 429
  | 'unavailable'; // 503 (the server is at a capacity cap)

export interface ServiceError {
  kind: ServiceErrorKind;
  /** Stable snake_case machine code. */
  code: string;
  /** Human-readable explanation. */
  detail: string;
  /** With rate_limited and unavailable: whole seconds, at least 1 (the edge sends it as Retry-After). */
  retryAfterSeconds?: number;
}

export type ServiceResult<T> = Result<T, ServiceError>;

export const fail = (kind: ServiceErrorKind, code: string, detail: string): { ok: false; error: ServiceError } => ({
  ok: false,
  error: { kind, code, detail },
});

/** A 429 value; the wait is rounded up to whole seconds and never below 1 (a Retry-After is at least 1). */
export const rateLimited = (code: string, detail: string, waitMs: number): { ok: false; error: ServiceError } => ({
  ok: false,
  error: { kind: 'rate_limited', code, detail, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) },
});
