// The bytes of a batch of messages between the main thread and a shard worker: one MessagePack
// buffer per batch (msgpackr), moved by transfer instead of cloned object by object.
//
// Both sides must use this module (the same Packr options): a buffer packed with other options
// (records off, bundled strings, shared structures) does not read back the same. The options keep
// every buffer self-describing: records are defined inside each buffer, never remembered from an
// earlier one, so a restarted worker, a dropped batch or a reordered port cannot make a buffer
// unreadable. `structuredClone: false` because batches hold plain data (no cycles, Maps or
// class instances), which is what makes packing cheaper than V8's structured clone.
import { Packr } from 'msgpackr';

const packr = new Packr({ structuredClone: false, useRecords: true });

/** One buffer for a batch. It owns its ArrayBuffer exactly (msgpackr packs into a shared scratch
 * buffer, so this copies out of it): `postMessage(buf, [buf.buffer])` may transfer it safely. */
export function encodeBatch(msgs: unknown[]): Uint8Array<ArrayBuffer> {
  return new Uint8Array(packr.pack(msgs));
}

/** The messages of a buffer made by `encodeBatch`. Binary fields come back as Uint8Array (a Node
 * Buffer); `undefined` fields stay present and undefined. A buffer that is not a batch is a bug
 * in the sender, so it throws rather than returning a value. */
export function decodeBatch(buf: Uint8Array): unknown[] {
  const out: unknown = packr.unpack(buf);
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
