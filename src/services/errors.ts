// Expected failures of the services, as values. The code names the failure and the catalogue
// (src/wire/problems.ts) gives its status and default detail; the edge turns the value into a problem
// reply. `kind` is the status said without HTTP, for the services and their tests to read.
import type { Result } from '../domain/result.js';
import { PROBLEMS, type ProblemCodeWith } from '../wire/problems.js';

export type ServiceErrorKind =
  | 'bad_request' // 400
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'unprocessable' // 422
  | 'rate_limited' // 429
  | 'unavailable'; // 503 (the server is at a capacity cap)

const KIND = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  422: 'unprocessable',
  429: 'rate_limited',
  503: 'unavailable',
} as const satisfies Record<number, ServiceErrorKind>;

/** The codes a service may raise: those whose status has a kind (not 405, 413 or 500, which only the edge sends). */
export type ServiceProblemCode = ProblemCodeWith<keyof typeof KIND>;

export interface ServiceError {
  kind: ServiceErrorKind;
  /** Stable snake_case machine code, from the catalogue. */
  code: ServiceProblemCode;
  /** Human-readable explanation. */
  detail: string;
  /** With rate_limited and unavailable: whole seconds, at least 1 (the edge sends it as Retry-After). */
  retryAfterSeconds?: number;
}

export type ServiceResult<T> = Result<T, ServiceError>;

/** A refusal with the code's status; without a detail, the catalogue's default one. */
export const fail = (code: ServiceProblemCode, detail?: string): { ok: false; error: ServiceError } => {
  const spec = PROBLEMS[code];
  return { ok: false, error: { kind: KIND[spec.status], code, detail: detail ?? spec.detail } };
};

/** A 429 value; the wait is rounded up to whole seconds and never below 1 (a Retry-After is at least 1). */
export const rateLimited = (code: ProblemCodeWith<429>, detail: string, waitMs: number): { ok: false; error: ServiceError } => ({
  ok: false,
  error: { kind: 'rate_limited', code, detail, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) },
});
