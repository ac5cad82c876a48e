// An ndjson stream that outlives its connections: it reads one JSON object a line, skips the blank
// keep-alive lines, and when the connection drops (a server restart, a reset, a silent peer) waits
// and opens it again, the wait doubling up to a cap and starting over after a good connection.
// Answers that will not change by waiting (401, 403, 404...) end the iteration with an ApiError.
import type { EventStream, Failure, StreamOptions } from './types.js';

export interface StreamPlan {
  url: string;
  headers: Record<string, string>;
  fetch: typeof globalThis.fetch;
  initialMs: number;
  maxMs: number;
  /** Silence longer than this reopens the connection (the server writes a keep-alive every 25 s). */
  idleMs: number;
  /** A line after which the stream is complete (the game stream's GameEnded, an event's EventEnded). */
  isLast: (line: unknown) => boolean;
  /** A finite answer (an export): complete when the server ends it, never reopened. */
  finite?: boolean;
  /** Turns a non-200 answer into a Failure. */
  failure: (res: Response, text: string) => Failure;
  network: (error: unknown) => Failure;
}

/** Thrown out of a stream (and by `unwrap`) with the problem the server answered. */
export class ApiError extends Error {
  constructor(readonly failure: Failure) {
    super(`${failure.status} ${failure.problem.code}: ${failure.problem.detail}`);
    this.name = 'ApiError';
  }
}

/** Worth trying again later: no answer, a limit (429) or a server error. */
export const isTransient = (f: Failure): boolean => f.status === 0 || f.status === 429 || f.status >= 500;

export function openStream<T>(plan: StreamPlan, options: StreamOptions = {}): EventStream<T> {
  const closing = new AbortController();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (closing.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        closing.signal.removeEventListener('abort', done);
        resolve();
      }
      closing.signal.addEventListener('abort', done, { once: true });
    });

  async function* lines(): AsyncGenerator<T> {
    let wait = plan.initialMs;
    const retry = async (failure: Failure) => {
      const ms = failure.retryAfter !== null ? Math.max(wait, failure.retryAfter * 1000) : wait;
      options.onRetry?.(failure, ms);
      await pause(ms);
      wait = Math.min(wait * 2, plan.maxMs);
    };
    while (!closing.signal.aborted) {
      const conn = new AbortController();
      const stop = () => conn.abort();
      closing.signal.addEventListener('abort', stop, { once: true });
      let idle: NodeJS.Timeout | undefined;
      const watch = () => {
        clearTimeout(idle);
        idle = setTimeout(() => conn.abort(new Error('stream silent too long')), plan.idleMs);
      };
      try {
        let res: Response;
        try {
          watch();
          res = await plan.fetch(plan.url, { headers: plan.headers, signal: conn.signal });
        } catch (e) {
          if (closing.signal.aborted) return;
          await retry(plan.network(e));
          continue;
        }
        if (res.status !== 200 || !res.body) {
          const failure = plan.failure(res, await res.text().catch(() => ''));
          if (!isTransient(failure)) throw new ApiError(failure);
          await retry(failure);
          continue;
        }
        wait = plan.initialMs;
        options.onConnect?.();
        let buffered = '';
        const decoder = new TextDecoder();
        let last = false;
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            watch();
            buffered += decoder.decode(chunk, { stream: true });
            let nl: number;
            while ((nl = buffered.indexOf('\n')) >= 0) {
              const line = buffered.slice(0, nl).trim();
              buffered = buffered.slice(nl + 1);
              if (!line) continue;
              let value: unknown;
              try {
                value = JSON.parse(line);
              } catch {
                continue; // a torn line of a dying connection; the next Snapshot makes up for it
              }
              yield value as T;
              if (plan.isLast(value)) last = true;
            }
            if (last) return;
          }
        } catch (e) {
          if (closing.signal.aborted) return;
          await retry(plan.network(e));
          continue;
        }
        if (closing.signal.aborted || plan.finite) return;
        await retry(plan.network(new Error('stream ended')));
      } finally {
        clearTimeout(idle);
        closing.signal.removeEventListener('abort', stop);
        conn.abort();
      }
    }
  }

  const iterator = lines();
  return {
    close: () => closing.abort(),
    [Symbol.asyncIterator]: () => iterator,
  };
}
