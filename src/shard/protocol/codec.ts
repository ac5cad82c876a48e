// The bytes of a batch of messages between the main thread and a shard worker: one MessagePack
// buffer per batch (msgpackr), moved by transfer instead of cloned object by object.
//
// Both sides must use this module, whose bytes are `codec.batches` (domain/codec.ts, where its
// options and why they keep every buffer readable alone are said): a buffer packed with other
// options (records off, bundled strings, shared structures) does not read back the same.
import { codec } from '../../domain/codec.js';

/** One buffer for a batch. It owns its ArrayBuffer exactly (msgpackr packs into a shared scratch
 * buffer, so this copies out of it): `postMessage(buf, [buf.buffer])` may transfer it safely. */
export function encodeBatch(msgs: unknown[]): Uint8Array<ArrayBuffer> {
  return codec.batches.encode(msgs);
}

/** The messages of a buffer made by `encodeBatch`. Binary fields come back as Uint8Array (a Node
 * Buffer); `undefined` fields stay present and undefined. A buffer that is not a batch is a bug
 * in the sender, so it throws rather than returning a value. */
export function decodeBatch(buf: Uint8Array): unknown[] {
  const out: unknown = codec.batches.decode(buf);
  if (!Array.isArray(out)) throw new TypeError('shard codec: the buffer does not hold a batch (an array)');
  return out;
}

/**
 * Below this many messages a batch crosses as plain objects (structured clone is cheaper for one or
 * two); from it on, as one packed buffer (docs/DECISIONS.md, "Shard channel").
 */
export const PACK_FROM = 4;

/** What to post for a batch, and what to transfer with it. */
export function wireOf(batch: unknown[]): { data: unknown[] | Uint8Array; transfer: ArrayBuffer[] } {
  if (batch.length < PACK_FROM) return { data: batch, transfer: [] };
  const buf = encodeBatch(batch);
  return { data: buf, transfer: [buf.buffer] };
}

/** The batch a posted message carries, whichever way it crossed. */
export function batchOf(data: unknown): unknown[] {
  return data instanceof Uint8Array ? decodeBatch(data) : (data as unknown[]);
}
