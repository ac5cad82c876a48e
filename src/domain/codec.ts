// Every MessagePack encoding the server makes of its own, in one place, each under the name of what
// it carries. The options of each are part of a contract with bytes made earlier or elsewhere: stored
// records (NATS KV buckets, the game log, the in-memory store's copies), a shard worker's batches, a
// peer node's messages. Changing the options of one changes bytes someone else must still read, so
// a new use picks the codec whose contract it shares rather than making a Packr of its own.
// (The LMDB store is not here: its values are lmdb-js's own encoding, chosen by the lmdb package.)
import { Packr } from 'msgpackr';

/** A MessagePack encoding. `encode` copies its bytes out of msgpackr's shared, growing scratch
 * buffer, so a kept or transferred result owns exactly its own ArrayBuffer and holds no chunk of
 * that buffer alive. */
export interface Codec {
  encode(value: unknown): Uint8Array<ArrayBuffer>;
  /** The value of bytes made by `encode`, typed as the caller knows it to be (nothing is checked). */
  decode<T>(bytes: Uint8Array): T;
}

function codecOf(packr: Packr): Codec {
  return {
    encode: (value) => new Uint8Array(packr.pack(value)),
    decode: <T>(bytes: Uint8Array) => packr.unpack(bytes) as T,
  };
}

export const codec = {
  /**
   * Stored records and cached entries: plain MessagePack maps, the same bytes as msgpackr's plain
   * `pack`. No record extension: a record must decode alone, years later, by a reader that never
   * saw the one before it, and structures shared between values would tie each to that state.
   */
  records: codecOf(new Packr({ useRecords: false })),
  /**
   * A batch of messages between the main thread and a shard worker (shard/protocol/codec.ts). A batch
   * holds many messages of a few shapes, so the record extension pays: each shape's keys are written
   * once per buffer, not once per message. Records are defined inside each buffer, never remembered
   * from an earlier one, so every buffer still reads alone (a restarted worker, a dropped or reordered
   * batch). `structuredClone: false`: batches are plain data (no cycles, Maps or class instances).
   */
  batches: codecOf(new Packr({ structuredClone: false, useRecords: true })),
  /**
   * Command and reply batches between nodes over NATS (cluster/transport/nats-transport.ts). Today
   * the same bytes as `records` (plain maps; `structuredClone: false` is msgpackr's default, said
   * outright because these are plain data), but a different contract: nodes of two versions talk
   * during a rolling upgrade, so it changes only together with the transport, never with storage.
   */
  wire: codecOf(new Packr({ structuredClone: false, useRecords: false })),
} as const;
