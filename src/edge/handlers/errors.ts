// Service error values to problem replies: the one mapping from `kind` to HTTP status.
import type { ServiceError } from '../../services/errors.js';
import { problem, tooManyRequests, unauthorized, type Reply } from '../reply.js';

const STATUS: Record<ServiceError['kind'], number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
};

export function serviceProblem(e: ServiceError): Reply {
  if (e.kind === 'rate_limited') return tooManyRequests(e.retryAfterSeconds ?? 1, e.detail, e.code);
  if (e.kind === 'unavailable') return problem(503, e.code, e.detail, { 'retry-after': String(e.retryAfterSeconds ?? 1) });
  if (e.kind === 'unauthorized') return unauthorized(e.detail, e.code);
  return problem(STATUS[e.kind], e.code, e.detail);
}
