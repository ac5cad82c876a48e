// Request bodies: JSON, capped (docs/API.md, "Errors and limits"). The Content-Type header is not consulted: bots
// send bodies labelled text/plain, form-encoded or not at all, and the contract's answer for a body it
// cannot use is 400. A body that parses as JSON is JSON. uWS hands the body over in chunks through
// onData, which must be attached before the handler's first await or the chunks are lost; so the
// router starts collecting synchronously and readJson() only picks up the result.
import { err, ok, type Result } from '../domain/result.js';
import { problem, type Reply } from './reply.js';
import type { Responder } from './responder.js';

export const DEFAULT_BODY_LIMIT = 64 * 1024;

/** The parsed body (undefined when empty), or the problem to answer with. */
export type BodyResult = Result<unknown, Reply>;

export function bodyTooLarge(limit: number): Reply {
  return problem('body_too_large', `request bodies are limited to ${limit} bytes`);
}

/**
 * Starts reading the body of the current request. Call synchronously in the uWS handler. Past the
 * limit it answers 413 at once and closes the connection instead of swallowing the rest. The promise
 * never rejects; an aborted upload resolves to a problem nobody will receive.
 */
export function collectBody(res: Responder, limit: number): Promise<BodyResult> {
  return new Promise<BodyResult>((resolve) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (r: BodyResult): void => {
      if (settled) return;
      settled = true;
      chunks = [];
      resolve(r);
    };
    res.onAbort(() => settle(err(problem('aborted'))));
    res.raw.onData((chunk, isLast) => {
      if (settled) return;
      size += chunk.byteLength;
      if (size > limit) {
        const tooLarge = bodyTooLarge(limit);
        res.reply(tooLarge, true);
        settle(err(tooLarge));
        return;
      }
      if (isLast && chunks.length === 0) {
        // Common case, the whole body in one chunk: parse it in place before uWS reclaims it.
        settle(parseJsonBody(new Uint8Array(chunk)));
        return;
      }
      // uWS neuters the chunk when this callback returns, so keep a copy.
      if (chunk.byteLength > 0) chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) settle(parseJsonBody(Buffer.concat(chunks, size)));
    });
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Empty → undefined; otherwise the bytes must be valid UTF-8 JSON, whatever the content type. */
export function parseJsonBody(bytes: Uint8Array): BodyResult {
  if (bytes.byteLength === 0) return ok(undefined);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return err(problem('malformed_json', 'the request body is not valid UTF-8'));
  }
  try {
    return ok(JSON.parse(text) as unknown);
  } catch {
    return err(problem('malformed_json'));
  }
}
