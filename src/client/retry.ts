// When the typed client sends a call again by itself. A 429 or 5xx answer, or none at all, may mend
// with waiting; but a second copy of a request is only harmless when the request is idempotent (GET,
// PUT, DELETE: the same request twice leaves the server as once) or the contract makes it so:
// - a move that carries the roll's `version` (docs/API.md, "Retrying a turn safely": a copy of a turn
//   already played gets the original verdict, and is never applied to a later roll);
// - a seed (a second seed of a seat is ignored) and a resignation (ignored once the game is over).
// Any other POST (register, mint, challenge, seek...) is sent once: a copy of one the server did apply
// would make a second challenge, or find the name it just registered taken.

export interface RetryOptions {
  /** Tries in all, the first included (1: no retries). */
  attempts?: number;
  /** The first wait, doubled after each try up to `maxMs`; a Retry-After longer than the wait is waited instead. */
  initialMs?: number;
  maxMs?: number;
  /** A Retry-After longer than this is not waited for: the answer is handed back at once. */
  maxRetryAfterMs?: number;
}

export const RETRY_DEFAULTS: Required<RetryOptions> = { attempts: 3, initialMs: 250, maxMs: 5_000, maxRetryAfterMs: 10_000 };

const SAFE_POSTS = new Set(['submitSeed', 'resign']);

/** Whether a second copy of this call cannot do what the first did not. */
export function retryable(route: { method: string; operationId: string }, body: unknown): boolean {
  if (route.method !== 'POST') return true;
  if (SAFE_POSTS.has(route.operationId)) return true;
  if (route.operationId === 'submitMove') {
    return typeof body === 'object' && body !== null && typeof (body as { version?: unknown }).version === 'number';
  }
  return false;
}

/** Waits `ms`, or less when `signal` aborts first. */
export function abortable(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}
