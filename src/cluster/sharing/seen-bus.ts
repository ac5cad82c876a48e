// When registered bots were last seen, across the nodes of a cluster: the ladder (one node runs it)
// pairs a polling bot only if it made a request lately, and that request may have gone to any node.
// This is the Presence's "shared" seam (SharedPresence in services/presence.ts).
//
// Each node tells the others on core NATS (`dc.seen`) that it saw a bot, at most once per bot every
// `throttleMs` (default 15 s, a quarter of the ladder's one-minute window), and keeps what the others
// told it in a bounded map (the least recently told go first). A lost message only makes a bot look
// absent a little sooner; a node that starts learns of the bots that make requests from then on.
import { randomBytes } from 'node:crypto';
import { headers, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { LRUCache } from 'lru-cache';

export interface SeenBusOptions {
  /** At most one message per bot per this many ms from this node (default 15 s). */
  throttleMs?: number;
  /** Bots remembered at most, of those seen here and of those told by the others (default 100,000 each). */
  maxEntries?: number;
  subject?: string;
}

const FROM = 'Dc-From';
const enc = new TextEncoder();
const dec = new TextDecoder();

export class SeenBus {
  private readonly self = randomBytes(9).toString('base64url');
  private readonly subject: string;
  private readonly throttleMs: number;
  /** When this node last told the others of each bot. */
  private readonly told: LRUCache<string, number>;
  /** When another node last saw each bot, as it told. */
  private readonly elsewhere: LRUCache<string, number>;
  private readonly sub: Subscription;

  constructor(
    private readonly nc: NatsConnection,
    o: SeenBusOptions = {},
  ) {
    this.subject = o.subject ?? 'dc.seen';
    this.throttleMs = o.throttleMs ?? 15_000;
    this.told = new LRUCache({ max: o.maxEntries ?? 100_000 });
    this.elsewhere = new LRUCache({ max: o.maxEntries ?? 100_000 });
    this.sub = nc.subscribe(this.subject, {
      callback: (err, m) => {
        if (err !== null || m.headers?.get(FROM) === this.self) return;
        try {
          const v = JSON.parse(dec.decode(m.data)) as { id?: unknown; at?: unknown };
          if (typeof v.id !== 'string' || typeof v.at !== 'number') return;
          if ((this.elsewhere.get(v.id) ?? -Infinity) < v.at) this.elsewhere.set(v.id, v.at);
        } catch {
          // not a presence message
        }
      },
    });
  }

  touched(id: string, at: number): void {
    const last = this.told.get(id);
    if (last !== undefined && at - last < this.throttleMs) return;
    this.told.set(id, at);
    const h = headers();
    h.set(FROM, this.self);
    try {
      this.nc.publish(this.subject, enc.encode(JSON.stringify({ id, at })), { headers: h });
    } catch {
      // The connection is closing: the others see the bot at its next request.
    }
  }

  lastSeen(id: string): number | undefined {
    return this.elsewhere.get(id);
  }

  close(): void {
    this.sub.unsubscribe();
  }
}
