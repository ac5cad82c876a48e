// A reply message larger than the servers take in one message (NATS max_payload, 1 MiB by default),
// sent in parts. A game's legal-move tree travels inside the owner's replies (`update`, `synced`,
// `resumed`) and can pass 14 MB: published whole, it was refused by the client, so a node that does
// not own the game never had the tree, and GET /games/{id}/moves failed there (503 tree_unavailable)
// or showed the previous turn's tree.
//
// Why parts over NATS rather than reading the tree from the owner over HTTP: the owner's replies
// already carry it on the subject the node follows, in the host's order with the rest of the game's
// updates; a node has no address of another node's HTTP edge (nor a way to authenticate to it); and
// the shard protocol already copes with a reply that never arrives (a gap in `seq` makes the node
// resync), so a lost part costs the same as a lost message today.
//
// On the wire: each part is a message on the same subject with the header `Dc-Part: <id> <index>
// <count> <bytes>` (the id unique to the publishing connection and message). Parts of one message
// are published one after another from one connection, and core NATS keeps a publisher's order on a
// subject, so they arrive in order and contiguous; the assembler does not rely on it (it files each
// part by index). Bounds on the receiving side: a message may declare at most `maxBytes`; all the
// messages being assembled together hold at most `maxPendingBytes` (the oldest is dropped to make
// room); a message not complete `timeoutMs` after its first part is dropped. Anything malformed is
// dropped, which the protocol treats as a lost message.
import { headers, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';

export const PART_HEADER = 'Dc-Part';

/** Room left in each part for the headers and the protocol line. */
const HEADROOM = 8 * 1024;

/** The largest body of one part on this connection (the server's max_payload less headroom). */
export function partBytes(nc: NatsConnection): number {
  const max = nc.info?.max_payload ?? 1024 * 1024;
  return Math.max(64 * 1024, max - HEADROOM);
}

let sent = 0;
const prefix = `${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** Publishes `bytes` on `subject` in parts of at most `part` bytes each. */
export function publishInParts(nc: NatsConnection, subject: string, bytes: Uint8Array, part = partBytes(nc)): number {
  const id = `${prefix}-${(sent++).toString(36)}`;
  const count = Math.ceil(bytes.byteLength / part);
  for (let i = 0; i < count; i++) {
    const h = headers();
    h.set(PART_HEADER, `${id} ${i} ${count} ${bytes.byteLength}`);
    nc.publish(subject, bytes.subarray(i * part, Math.min(bytes.byteLength, (i + 1) * part)), { headers: h });
  }
  return count;
}

export interface AssemblerOptions {
  /** The largest whole message accepted (declared size), default 64 MiB. */
  maxBytes?: number;
  /** Bytes of all the messages being assembled at once, default 128 MiB. */
  maxPendingBytes?: number;
  /** A message not complete this long after its first part is dropped, default 30 s. */
  timeoutMs?: number;
  /** Milliseconds on a monotonic clock. */
  now?: () => number;
  /** Told of each message dropped, with why (for the log). */
  onDrop?: (why: string) => void;
}

interface Pending {
  parts: (Uint8Array | undefined)[];
  have: number;
  bytes: number;
  got: number;
  startedAt: number;
}

/** Puts parted messages back together; whole messages pass straight through. */
export class PartsAssembler {
  private readonly pending = new Map<string, Pending>();
  private pendingBytes = 0;
  private readonly maxBytes: number;
  private readonly maxPendingBytes: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(private readonly o: AssemblerOptions = {}) {
    this.maxBytes = o.maxBytes ?? 64 * 1024 * 1024;
    this.maxPendingBytes = o.maxPendingBytes ?? 128 * 1024 * 1024;
    this.timeoutMs = o.timeoutMs ?? 30_000;
    this.now = o.now ?? (() => performance.now());
  }

  /** Messages being assembled now (for tests). */
  get assembling(): number {
    return this.pending.size;
  }

  /**
   * One message as received on the subscription `tag` (parts of the same message delivered to two
   * subscriptions are assembled apart, as each would deliver a whole message). Returns the whole
   * message once complete, the message itself when it is not a part, undefined otherwise.
   */
  take(tag: string, data: Uint8Array, hdrs: MsgHdrs | undefined): Uint8Array | undefined {
    const header = hdrs?.get(PART_HEADER);
    if (!header) return data;
    this.expire();
    const [id, index, count, total] = header.split(' ').map((x, i) => (i === 0 ? x : Number(x))) as [string, number, number, number];
    const key = `${tag}|${id}`;
    const valid = Number.isInteger(index) && Number.isInteger(count) && Number.isInteger(total) && index >= 0 && index < count && total > 0;
    if (!valid) return this.drop(key, 'a malformed part header');
    if (total > this.maxBytes) return this.drop(key, `a message of ${total} bytes, over ${this.maxBytes}`);
    let p = this.pending.get(key);
    if (p === undefined) {
      if (total > this.maxPendingBytes) return this.drop(key, 'a message larger than the assembly budget');
      // Room for this one: the oldest messages still being assembled go first.
      for (const [k, old] of this.pending) {
        if (this.pendingBytes + total <= this.maxPendingBytes) break;
        this.remove(k, old);
        this.o.onDrop?.('the assembly budget was full');
      }
      p = { parts: new Array<Uint8Array | undefined>(count), have: 0, bytes: total, got: 0, startedAt: this.now() };
      this.pending.set(key, p);
      this.pendingBytes += total;
    }
    if (p.parts.length !== count || p.bytes !== total) return this.drop(key, 'parts disagree on the message');
    if (p.parts[index] !== undefined) return undefined; // a duplicate
    if (p.got + data.byteLength > total) return this.drop(key, 'parts longer than the message');
    p.parts[index] = data;
    p.have++;
    p.got += data.byteLength;
    if (p.have < count) return undefined;
    this.remove(key, p);
    if (p.got !== total) return this.drop(key, 'parts shorter than the message');
    const whole = new Uint8Array(total);
    let at = 0;
    for (const part of p.parts as Uint8Array[]) {
      whole.set(part, at);
      at += part.byteLength;
    }
    return whole;
  }

  private expire(): void {
    const now = this.now();
    for (const [k, p] of this.pending) {
      if (now - p.startedAt < this.timeoutMs) continue;
      this.remove(k, p);
      this.o.onDrop?.('a message whose parts did not all come in time');
    }
  }

  private remove(key: string, p: Pending): void {
    if (this.pending.get(key) !== p) return;
    this.pending.delete(key);
    this.pendingBytes -= p.bytes;
  }

  private drop(key: string, why: string): undefined {
    const p = this.pending.get(key);
    if (p) this.remove(key, p);
    this.o.onDrop?.(why);
    return undefined;
  }
}
