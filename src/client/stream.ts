// An ndjson stream that outlives its connections: it reads one JSON object a line, skips the blank
// keep-alive lines, and when the connection drops (a server restart, a reset, a silent peer) waits
// and opens it again, the wait doubling up to a cap and starting over after a good connection.
// Answers that will not change by waiting (401, 403, 404...) end the iteration with an ApiError.
//
// What a server sends is not trusted to be sane: a line longer than `maxLineBytes` (a server that
// never sends a newline) ends the stream with a StreamError instead of filling memory. A finite
// answer (the export of an event) that breaks off is fetched again, and the lines already handed
// out are checked against the new answer and skipped, so the caller never sees a line twice; if
// the new answer differs in those lines (the event moved on in between), the stream ends with a
// StreamError rather than hand out a mixture of two exports.
import type { EventStream, Failure, StreamOptions } from './results.js';

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
  /** A finite answer (an export): complete when the server ends it; after a break, fetched again and resumed. */
  finite?: boolean;
  /** The longest line accepted, in bytes (newline excluded). */
  maxLineBytes: number;
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

/** Thrown out of a stream whose answer cannot be used: a line over the length limit, an export that changed. */
export class StreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamError';
  }
}

/**
 * Fingerprint of a line of a finite answer, to recognise it in a second copy. Web Crypto (global in
 * Node 20, Deno and browsers) rather than node:crypto, so the client runs wherever fetch does.
 */
async function fingerprint(line: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(line)));
  let text = '';
  for (const byte of digest) text += String.fromCharCode(byte);
  return btoa(text);
}

/** Worth trying again later: no answer, a limit (429) or a server error. */
export const isTransient = (f: Failure): boolean => f.status === 0 || f.status === 429 || f.status >= 500;

/**
 * Splits a byte stream at newlines, holding at most `maxLineBytes` of an unfinished line: one byte
 * more and it throws a StreamError (the bytes are never all kept, whatever the server sends).
 */
export class LineReader {
  private parts: Uint8Array[] = [];
  private held = 0;
  private readonly decoder = new TextDecoder();

  constructor(private readonly maxLineBytes: number) {}

  /** The lines this chunk completes, without their newlines. */
  push(chunk: Uint8Array): string[] {
    const out: string[] = [];
    let from = 0;
    while (from <= chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl < 0 ? chunk.length : nl;
      this.held += end - from;
      if (this.held > this.maxLineBytes) {
        this.parts = [];
        throw new StreamError(`the server sent a line longer than ${this.maxLineBytes} bytes; stream closed`);
      }
      if (end > from) this.parts.push(chunk.subarray(from, end));
      if (nl < 0) break;
      // A newline never falls inside a UTF-8 sequence, so each line decodes on its own.
      out.push(this.decoder.decode(this.parts.length === 1 ? this.parts[0] : concat(this.parts, this.held)));
      this.parts = [];
      this.held = 0;
      from = nl + 1;
    }
    return out;
  }
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const all = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

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

  /** Of a finite answer: fingerprints of the lines handed out, in order. */
  const delivered: string[] = [];

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
      let idle: ReturnType<typeof setTimeout> | undefined;
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
        const reader = new LineReader(plan.maxLineBytes);
        /** Lines of this answer so far (a finite answer's position, to skip what was handed out). */
        let index = 0;
        let last = false;
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            watch();
            for (const text of reader.push(chunk)) {
              const line = text.trim();
              if (!line) continue;
              if (plan.finite) {
                const mark = await fingerprint(line);
                const at = index++;
                if (at < delivered.length) {
                  if (delivered[at] !== mark) throw new StreamError(`the export changed between two attempts (line ${at + 1} differs); stopped rather than mix them`);
                  continue; // handed out before the break
                }
                delivered.push(mark);
              }
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
          if (e instanceof StreamError) throw e;
          if (closing.signal.aborted) return;
          await retry(plan.network(e));
          continue;
        }
        if (closing.signal.aborted) return;
        if (plan.finite) {
          if (index < delivered.length) throw new StreamError(`the export ended after ${index} lines on a second attempt, shorter than the ${delivered.length} already read`);
          return;
        }
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
