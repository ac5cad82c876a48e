// The outbound HTTP client of webhook deliveries (undici). Connections are pooled per bot (per owner
// and origin), never shared between bots, so bots whose receivers are slow cannot hold the connections
// another bot on the same origin needs. Each call re-checks the URL policy; a pool resolves its host through a lookup pinned to the address the policy
// checked, so no second DNS answer can move the connection (DNS rebinding), while TLS still verifies
// the certificate against the host name (undici sets the server name from the URL's host). Redirects
// are never followed (undici's request does not follow them); the answer body is read up to a cap.
import type { LookupFunction } from 'node:net';
import { Pool } from 'undici';
import type { Clock } from '../../domain/clock.js';
import { checkUrl, type CheckedTarget, type PolicyOptions } from './policy.js';

/** Answers past this many bytes are cut off and count as malformed. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export type PostResult =
  | { kind: 'answer'; status: number; body: string; ms: number }
  | { kind: 'tooLarge'; status: number; ms: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'unreachable'; detail: string; ms: number }
  | { kind: 'blocked'; detail: string; ms: number }
  /** The client was closed (server stopping) while the call was in flight. */
  | { kind: 'closed'; ms: number };

export interface WebhookClient {
  /**
   * One signed POST, waiting at most `waitMs` (injected clock) for the whole answer. `owner` (a bot id)
   * picks the connection pool: each owner has its own; calls without one share a pool per origin.
   */
  post(url: string, body: string, headers: Record<string, string>, waitMs: number, owner?: string): Promise<PostResult>;
  /** Aborts calls in flight and closes every pooled connection. */
  close(): Promise<void>;
}

export interface ClientOptions {
  policy: PolicyOptions;
  clock: Clock;
  /** Pools kept, one per owner and origin (least recently used closed first, once its calls end). */
  maxPools: number;
  /** Connections per pool. */
  connectionsPerPool: number;
  /** How long a checked address is reused before the policy check runs again. */
  recheckMs: number;
  userAgent: string;
  /** Tests observe which address each pinned lookup hands to the socket. */
  onPinnedLookup?: (host: string, address: string) => void;
}

interface PooledOrigin {
  target: CheckedTarget;
  pool: Pool;
  checkedAt: number;
}

/** A lookup that answers every query with the one checked address and never asks DNS. */
function pinnedLookup(target: CheckedTarget, observe?: (host: string, address: string) => void): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    observe?.(hostname, target.address);
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

export class UndiciWebhookClient implements WebhookClient {
  private readonly pools = new Map<string, PooledOrigin>();
  private readonly inFlight = new Set<AbortController>();
  private closed = false;

  constructor(private readonly o: ClientOptions) {}

  async post(url: string, body: string, headers: Record<string, string>, waitMs: number, owner = ''): Promise<PostResult> {
    const started = this.o.clock.now();
    const ms = (): number => this.o.clock.now() - started;
    if (this.closed) return { kind: 'closed', ms: 0 };
    const ac = new AbortController();
    let timedOut = false;
    const timer = this.o.clock.schedule(waitMs, () => {
      timedOut = true;
      ac.abort();
    });
    this.inFlight.add(ac);
    try {
      const origin = await this.poolFor(url, owner);
      if (!origin.ok) return { ...origin.error, ms: ms() };
      if (timedOut) return { kind: 'timeout', ms: ms() };
      const u = new URL(url);
      const res = await origin.value.pool.request({
        path: `${u.pathname}${u.search}`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': this.o.userAgent },
        body,
        signal: ac.signal,
      });
      let size = 0;
      const chunks: Buffer[] = [];
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          res.body.destroy();
          return { kind: 'tooLarge', status: res.statusCode, ms: ms() };
        }
        chunks.push(chunk);
      }
      return { kind: 'answer', status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), ms: ms() };
    } catch (e) {
      if (timedOut) return { kind: 'timeout', ms: ms() };
      if (ac.signal.aborted || this.closed) return { kind: 'closed', ms: ms() };
      const code = (e as { code?: string }).code;
      return { kind: 'unreachable', detail: code ?? (e as Error).message ?? 'connection failed', ms: ms() };
    } finally {
      timer.cancel();
      this.inFlight.delete(ac);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const ac of this.inFlight) ac.abort();
    const pools = [...this.pools.values()].map((o) => o.pool);
    this.pools.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }

  /** The owner's pool for a URL's origin, checked against the policy at most every `recheckMs`. */
  private async poolFor(url: string, owner: string): Promise<
    { ok: true; value: PooledOrigin } | { ok: false; error: { kind: 'blocked' | 'unreachable'; detail: string } }
  > {
    const origin = new URL(url).origin;
    const key = `${owner} ${origin}`;
    const now = this.o.clock.now();
    const cached = this.pools.get(key);
    if (cached && now - cached.checkedAt < this.o.recheckMs) {
      this.pools.delete(key); // re-inserted: most recently used last
      this.pools.set(key, cached);
      return { ok: true, value: cached };
    }
    const checked = await checkUrl(url, this.o.policy);
    if (!checked.ok) {
      // A host that no longer resolves cannot be reached; any other refusal is the policy's.
      const kind = checked.error.rule === 'resolve' ? 'unreachable' : 'blocked';
      return { ok: false, error: { kind, detail: checked.error.detail } };
    }
    const current = this.pools.get(key);
    if (current && current.target.address === checked.value.address) {
      current.checkedAt = now;
      return { ok: true, value: current };
    }
    if (current) void current.pool.close().catch(() => undefined);
    const pool = new Pool(origin, {
      connections: this.o.connectionsPerPool,
      connect: { lookup: pinnedLookup(checked.value, this.o.onPinnedLookup) },
      keepAliveTimeout: 30_000,
      // The injected clock bounds each call; these only stop a socket the clock forgot.
      headersTimeout: 600_000,
      bodyTimeout: 600_000,
    });
    const entry: PooledOrigin = { target: checked.value, pool, checkedAt: now };
    this.pools.delete(key);
    this.pools.set(key, entry);
    while (this.pools.size > this.o.maxPools) {
      const [oldKey, old] = this.pools.entries().next().value as [string, PooledOrigin];
      this.pools.delete(oldKey);
      void old.pool.close().catch(() => undefined);
    }
    return { ok: true, value: entry };
  }
}
