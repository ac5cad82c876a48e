// Short-lived tokens across the nodes of a cluster: anonymous identities (POST /bot/anon) and guest
// seat tokens live in the identity service's memory; this is the identity service's "shared" seam
// (SharedIdentities in services/identity.ts), so that such a token issued on one node authenticates on
// every node, and an anonymous bot can be challenged from any node.
//
// A replicated key-value bucket (`dc-tokens`) holds one key per token hash, whose value names the
// principal and when the token expires; the bucket's TTL is the longest token lifetime, so the server
// forgets each key in the end. Every node watches the bucket into an in-memory replica (reads stay
// synchronous), bounded by `maxEntries` (the oldest go first) and swept of expired entries. A token is
// known on the other nodes within milliseconds of being issued (the time the watch takes): a client
// that uses it on another node at once may, rarely, be refused once.
import type { KV, KvEntry } from '@nats-io/kv';
import type { Clock, TimerHandle } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import { silentLogger } from '../../domain/log.js';
import type { Principal } from '../../domain/types.js';
import { BucketFollower } from '../store/bucket-watch.js';
import { openBucket, type NatsConnection } from '../transport/nats.js';

export interface TokenBusOptions {
  replicas: number;
  clock: Clock;
  /** The longest lifetime of a token (the bucket's TTL; default 24 h). */
  ttlMs?: number;
  /** Tokens kept in the replica at most (default 300,000). */
  maxEntries?: number;
  bucket?: string;
  log?: Logger;
}

interface Held {
  principal: Principal;
  expiresAt: number;
}

const HASH_RE = /^[A-Za-z0-9_-]{1,128}$/;
const enc = new TextEncoder();
const dec = new TextDecoder();

export class TokenBus {
  /** Token hash → principal and expiry, in insertion order. */
  private readonly byHash = new Map<string, Held>();
  /** Anonymous external id → its token hash. */
  private readonly anonIds = new Map<string, string>();
  private readonly maxEntries: number;
  private readonly log: Logger;
  private stopWatch: (() => void) | undefined;
  private sweepTimer: TimerHandle | undefined;
  private closed = false;

  private constructor(
    private readonly kv: KV,
    private readonly o: TokenBusOptions,
  ) {
    this.maxEntries = o.maxEntries ?? 300_000;
    this.log = o.log ?? silentLogger;
  }

  static async open(nc: NatsConnection, o: TokenBusOptions): Promise<TokenBus> {
    const kv = await openBucket(nc, { bucket: o.bucket ?? 'dc-tokens', replicas: o.replicas, ttlMs: o.ttlMs ?? 24 * 3_600_000 });
    const bus = new TokenBus(kv, o);
    // A watch whose server died is replaced (BucketFollower), so the replica keeps following.
    const follower = await BucketFollower.start(kv, (e) => bus.apply(e), {
      clock: o.clock,
      onRestart: (why) => bus.log.warn({ why }, 'token watch started again'),
    });
    bus.stopWatch = () => follower.stop();
    bus.scheduleSweep();
    return bus;
  }

  put(hash: string, principal: Principal, expiresAt: number): void {
    if (this.closed || !HASH_RE.test(hash)) return;
    this.remember(hash, { principal, expiresAt });
    this.kv.put(hash, enc.encode(JSON.stringify({ p: principal, x: expiresAt }))).catch((err: unknown) => {
      this.log.warn({ err: String(err) }, 'token not shared with the other nodes (it works on this one)');
    });
  }

  get(hash: string, now: number): Principal | undefined {
    const h = this.byHash.get(hash);
    return h && h.expiresAt > now ? h.principal : undefined;
  }

  hasId(id: string, now: number): boolean {
    const hash = this.anonIds.get(id);
    return hash !== undefined && this.get(hash, now) !== undefined;
  }

  /** Tokens in the replica (tests, metrics). */
  size(): number {
    return this.byHash.size;
  }

  close(): void {
    this.closed = true;
    this.stopWatch?.();
    this.sweepTimer?.cancel();
  }

  private apply(e: Pick<KvEntry, 'key' | 'operation' | 'value'>): void {
    if (e.operation !== 'PUT') return this.forget(e.key);
    try {
      const v = JSON.parse(dec.decode(e.value)) as { p?: Principal; x?: unknown };
      if (v.p && typeof v.p.id === 'string' && typeof v.x === 'number') this.remember(e.key, { principal: v.p, expiresAt: v.x });
    } catch {
      // not a token entry
    }
  }

  private remember(hash: string, h: Held): void {
    if (h.expiresAt <= this.o.clock.now()) return;
    this.forget(hash);
    while (this.byHash.size >= this.maxEntries) {
      const oldest = this.byHash.keys().next();
      if (oldest.done) break;
      this.forget(oldest.value);
    }
    this.byHash.set(hash, h);
    if (h.principal.tier === 'anonymous') this.anonIds.set(h.principal.id, hash);
  }

  private forget(hash: string): void {
    const h = this.byHash.get(hash);
    if (!h) return;
    this.byHash.delete(hash);
    if (this.anonIds.get(h.principal.id) === hash) this.anonIds.delete(h.principal.id);
  }

  /** Drops expired tokens now and then (lifetimes differ, so the whole map is looked at). */
  private scheduleSweep(): void {
    this.sweepTimer = this.o.clock.schedule(60_000, () => {
      if (this.closed) return;
      const now = this.o.clock.now();
      for (const [hash, h] of this.byHash) if (h.expiresAt <= now) this.forget(hash);
      this.scheduleSweep();
    });
  }
}
