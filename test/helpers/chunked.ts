// A raw HTTP GET over a socket, for tests that look at how an answer is written: the chunks of a
// chunked response (one per write the server made) as they arrive, or a reader that takes nothing.
import { connect, type Socket } from 'node:net';
import type { Teardown } from './http.js';

export interface RawGet {
  sock: Socket;
  /** Every byte received so far, head included. */
  bytes(): Buffer;
  /** Resolves when the connection closes. */
  closed: Promise<void>;
}

/** Sends GET `path`; `paused`: the socket reads nothing until resumed. */
export function rawGet(t: Teardown, port: number, path: string, paused = false): RawGet {
  const chunks: Buffer[] = [];
  const sock = connect({ host: '127.0.0.1', port });
  t.teardown(() => void sock.destroy());
  if (paused) sock.pause();
  sock.on('data', (c: Buffer) => chunks.push(c));
  sock.on('error', () => {});
  sock.write(`GET ${path} HTTP/1.1\r\nHost: test\r\n\r\n`);
  const closed = new Promise<void>((r) => sock.once('close', () => r()));
  return { sock, bytes: () => Buffer.concat(chunks), closed };
}

/** The chunks of a chunked HTTP response received so far, and whether its last chunk has come. */
export function chunksOf(raw: Buffer): { chunks: Buffer[]; complete: boolean } {
  let at = raw.indexOf('\r\n\r\n') + 4;
  const chunks: Buffer[] = [];
  if (at < 4) return { chunks, complete: false };
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) return { chunks, complete: false };
    const size = parseInt(raw.subarray(at, eol).toString(), 16);
    if (size === 0) return { chunks, complete: true };
    if (eol + 2 + size > raw.length) return { chunks, complete: false };
    chunks.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 4 + size;
  }
}
