// Services that may run on another node of a cluster (pending challenges, the lobby: see
// docs/CLUSTER.md): what a caller holds is either the service itself or a stand-in whose methods send
// the call to the node holding it. `Remote` is the type both fit; a stand-in that got no answer
// resolves with an `Unavailable` value (a 503 at the edge) rather than throwing.
import { fail, type ServiceError } from './errors.js';

export type Unavailable = { ok: false; error: ServiceError };

/** The listed methods of T, each answering now or later, with its own result or `Unavailable`. */
export type Remote<T, K extends keyof T> = {
  [M in K]: T[M] extends (...args: infer A) => infer R
    ? (...args: A) => Awaited<R> | Unavailable | Promise<Awaited<R> | Unavailable>
    : never;
};

/** The value a call resolves with when the service could not be reached (503, retry after a second). */
export function serviceUnavailable(detail: string): Unavailable {
  const f = fail('service_unavailable', detail);
  f.error.retryAfterSeconds = 1;
  return f;
}

/** True for an `Unavailable` value (for methods whose own results are not ServiceResults). */
export function isUnavailable(v: unknown): v is Unavailable {
  return typeof v === 'object' && v !== null && (v as { ok?: unknown }).ok === false && typeof (v as { error?: unknown }).error === 'object';
}
