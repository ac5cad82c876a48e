// Service error values to problem replies. The status is the code's, from the catalogue; a refusal
// at a limit (429, or 503 at a capacity cap) says when to come back.
import type { ServiceError } from '../../services/errors.js';
import { problemStatus } from '../../wire/problems.js';
import { problem, type Reply } from '../reply.js';

export function serviceProblem(e: ServiceError): Reply {
  const status = problemStatus(e.code);
  if (status === 429 || status === 503) return problem(e.code, e.detail, { 'retry-after': String(e.retryAfterSeconds ?? 1) });
  return problem(e.code, e.detail);
}
