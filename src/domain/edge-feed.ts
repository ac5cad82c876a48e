// What crosses between a game shard and an edge thread (docs/ARCHITECTURE.md, "Edge threads"): one
// MessagePort per (edge thread, shard) pair, set up by main. The edge asks for the games its streams
// follow; the shard sends each game's event lines only to the edges that asked, as the bytes that go
// on the wire, made once per version. Both ways a turn's messages go as one packed, transferred batch.
import { codec } from './codec.js';

/** Edge → shard. */
export const ASK = {
  /** [FOLLOW, game id, seq]: send this game's updates after `seq` (those the shard still has, then every new one). */
  FOLLOW: 1,
  /** [UNFOLLOW, game id]: no stream of this edge follows the game any more. */
  UNFOLLOW: 2,
} as const;

export type FeedAsk = [typeof ASK.FOLLOW, string, number] | [typeof ASK.UNFOLLOW, string];

/** Shard → edge. */
export const FEED = {
  /** [UPDATE, game id, seq, bytes]: the ndjson lines of the game's update `seq`, UTF-8. */
  UPDATE: 1,
  /** [GAP, game id, seq]: the updates the edge asked for begin before `seq`, which the shard no longer keeps. */
  GAP: 2,
} as const;

export type FeedMessage = [typeof FEED.UPDATE, string, number, Uint8Array] | [typeof FEED.GAP, string, number];

/** The part of a MessagePort both sides use (node's, in a worker or on main). */
export interface FeedPort {
  postMessage(value: unknown, transfer?: ArrayBuffer[]): void;
  on(event: 'message', cb: (value: unknown) => void): unknown;
  close(): void;
}

/** One buffer for a batch, owning its ArrayBuffer, so that it can be transferred. */
export function packFeed(msgs: readonly unknown[]): ArrayBuffer {
  return codec.batches.encode(msgs).buffer;
}

/** The messages of a buffer made by packFeed. */
export function unpackFeed<T>(data: unknown): T[] {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : (data as Uint8Array);
  const out: unknown = codec.batches.decode(bytes);
  if (!Array.isArray(out)) throw new TypeError('edge feed batch: not an array');
  return out as T[];
}

/** Posts a batch, transferring its buffer. */
export function postFeed(port: Pick<FeedPort, 'postMessage'>, msgs: readonly unknown[]): void {
  const buf = packFeed(msgs);
  port.postMessage(buf, [buf]);
}
