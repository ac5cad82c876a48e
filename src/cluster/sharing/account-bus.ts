// Account streams across the nodes of a cluster: the AccountRemote of each node's transport-free
// AccountHub. Events go on core NATS on the identity's subject (`dc.acct.<token>`), heard by the nodes
// holding a stream of it; presence is a key per identity and node in a bucket that ages keys out.
// Invariant: live only, as on one machine: nothing is replayed, and a node skips the events it sent
// itself (its hub delivered them already). A dead node's identities show online for at most one TTL.
// Costs and limits: (docs/CLUSTER.md, "Account streams across nodes").
import { createHash, randomBytes } from 'node:crypto';
import { headers, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { KV, KvEntry } from '@nats-io/kv';
import type { Clock, TimerHandle } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import { silentLogger } from '../../domain/log.js';
import { BucketFollower } from '../store/bucket-watch.js';
import { openBucket } from '../transport/nats.js';

export interface AccountBusOptions {
  /** This node's name (letters, digits, - and _). */
  node: string;
  /** Copies of the presence bucket (3 in a three-server cluster). */
  replicas: number;
  clock: Clock;
  log?: Logger;
  /** How long a node's presence key lives without a rewrite (default 30 s). */
  presenceTtlMs?: number;
  /** Subject prefix of the events (default `dc.acct`). */
  prefix?: string;
  /** Presence bucket (default `dc-online`). */
  bucket?: string;
}

/** Where events that come in from the other nodes go: the node's AccountHub. */
export interface LocalAccounts {
  deliver(principalId: string, line: string): void;
}

const FROM = 'Dc-From';
const PRINCIPAL = 'Dc-Principal';
const NODE_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** Key writes in flight at once during a renewal round. */
const RENEW_PARALLEL = 64;

/** One subject token for an identity id (ids hold ':' and other characters a subject cannot). */
export function accountToken(principalId: string): string {
  return createHash('sha256').update(principalId, 'utf8').digest('base64url').slice(0, 24);
}

interface Seen {
  principalId: string;
  at: number;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

export class AccountBus {
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly log: Logger;
  /** Tells this bus's own messages from the others' (a node restarted under its name is another bus). */
  private readonly self = randomBytes(9).toString('base64url');
  /** Identities with a stream on this node, and their subscriptions. */
  private readonly here = new Map<string, Subscription>();
  /** The other nodes' presence keys as last seen written. */
  private readonly seen = new Map<string, Seen>();
  /** Identity id → its keys in `seen`. */
  private readonly byPrincipal = new Map<string, Set<string>>();
  private local: LocalAccounts | undefined;
  private renewTimer: TimerHandle | undefined;
  private stopWatch: (() => void) | undefined;
  private closed = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly o: AccountBusOptions,
  ) {
    this.prefix = o.prefix ?? 'dc.acct';
    this.ttlMs = o.presenceTtlMs ?? 30_000;
    this.log = o.log ?? silentLogger;
  }

  /** Opens the presence bucket (creating it on first use) and starts watching it. */
  static async open(nc: NatsConnection, o: AccountBusOptions): Promise<AccountBus> {
    if (!NODE_RE.test(o.node)) throw new Error(`node name ${JSON.stringify(o.node)}: letters, digits, - and _ only`);
    const ttlMs = o.presenceTtlMs ?? 30_000;
    const kv = await openBucket(nc, { bucket: o.bucket ?? 'dc-online', replicas: o.replicas, ttlMs });
    const bus = new AccountBus(nc, kv, o);
    // A watch whose server died is replaced (BucketFollower), so the replica keeps following.
    const follower = await BucketFollower.start(kv, (e) => bus.applyEntry(e), {
      clock: o.clock,
      onRestart: (why) => bus.log.warn({ why }, 'presence watch started again'),
    });
    bus.stopWatch = () => follower.stop();
    bus.scheduleRenew();
    return bus;
  }

  /** Where events from the other nodes go (call once, with the node's hub). */
  bind(local: LocalAccounts): void {
    this.local = local;
  }

  publish(principalId: string, line: string): void {
    if (this.closed) return;
    const h = headers();
    h.set(FROM, this.self);
    h.set(PRINCIPAL, principalId);
    try {
      this.nc.publish(this.subject(principalId), enc.encode(line), { headers: h });
    } catch (err) {
      this.log.warn({ err: String(err) }, 'account event not sent to the other nodes');
    }
  }

  attached(principalId: string): void {
    if (this.closed || this.here.has(principalId)) return;
    const sub = this.nc.subscribe(this.subject(principalId), {
      callback: (err, m) => {
        if (err === null) this.received(principalId, m);
      },
    });
    this.here.set(principalId, sub);
    // Presence is written once this node's server holds the subscription (a flush answered): a node
    // that sees the identity online publishes to a subscription that exists. (The other servers learn
    // of it over their routes a moment later; an event published before that reaches no stream.)
    const write = (): void => {
      if (this.here.get(principalId) === sub) void this.writeKey(principalId);
    };
    this.nc.flush().then(write, write);
  }

  detached(principalId: string): void {
    const sub = this.here.get(principalId);
    if (!sub) return;
    this.here.delete(principalId);
    sub.unsubscribe();
    if (this.closed) return;
    this.kv.delete(this.key(principalId)).catch((err: unknown) => {
      this.log.warn({ err: String(err) }, 'presence key not deleted (it ages out)');
    });
  }

  /** Whether another node holds a stream of the identity (as last seen, at most one TTL old). */
  isOnline(principalId: string): boolean {
    const keys = this.byPrincipal.get(principalId);
    if (!keys) return false;
    const now = this.o.clock.monotonic();
    for (const k of keys) {
      const s = this.seen.get(k);
      if (s && s.at + this.ttlMs > now) return true;
    }
    return false;
  }

  /** Identities this node holds streams of (tests, metrics). */
  attachedHere(): number {
    return this.here.size;
  }

  /** Stops: unsubscribes, deletes this node's presence keys, stops the watch. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.renewTimer?.cancel();
    this.stopWatch?.();
    const mine = [...this.here.keys()];
    for (const sub of this.here.values()) sub.unsubscribe();
    this.here.clear();
    await runLimited(mine, RENEW_PARALLEL, (id) => this.kv.delete(this.key(id)).catch(() => {}));
  }

  private subject(principalId: string): string {
    return `${this.prefix}.${accountToken(principalId)}`;
  }

  private key(principalId: string): string {
    return `${accountToken(principalId)}.${this.o.node}`;
  }

  private received(principalId: string, m: Msg): void {
    if (m.headers?.get(FROM) === this.self) return; // delivered here when it was published
    if (m.headers?.get(PRINCIPAL) !== principalId) return; // another identity with the same token
    this.local?.deliver(principalId, dec.decode(m.data));
  }

  private async writeKey(principalId: string): Promise<void> {
    try {
      await this.kv.put(this.key(principalId), enc.encode(JSON.stringify({ id: principalId, node: this.o.node })));
    } catch (err) {
      this.log.warn({ err: String(err) }, 'presence key not written (retried at the next renewal)');
    }
  }

  private scheduleRenew(): void {
    this.renewTimer = this.o.clock.schedule(this.ttlMs / 3, () => {
      if (this.closed) return;
      this.sweep();
      void runLimited([...this.here.keys()], RENEW_PARALLEL, (id) => (this.here.has(id) ? this.writeKey(id) : Promise.resolve())).finally(
        () => !this.closed && this.scheduleRenew(),
      );
    });
  }

  /** Applies one bucket entry seen by the watch; this node's own keys are not kept (the hub knows). */
  private applyEntry(e: Pick<KvEntry, 'key' | 'operation' | 'value'>): void {
    const dot = e.key.indexOf('.');
    if (dot < 0 || e.key.slice(dot + 1) === this.o.node) return;
    if (e.operation !== 'PUT') return this.forget(e.key);
    let id: unknown;
    try {
      id = (JSON.parse(dec.decode(e.value)) as { id?: unknown }).id;
    } catch {
      return;
    }
    if (typeof id !== 'string') return;
    this.seen.set(e.key, { principalId: id, at: this.o.clock.monotonic() });
    let keys = this.byPrincipal.get(id);
    if (!keys) this.byPrincipal.set(id, (keys = new Set()));
    keys.add(e.key);
  }

  private forget(key: string): void {
    const s = this.seen.get(key);
    if (!s) return;
    this.seen.delete(key);
    const keys = this.byPrincipal.get(s.principalId);
    keys?.delete(key);
    if (keys && keys.size === 0) this.byPrincipal.delete(s.principalId);
  }

  /** Drops entries not rewritten for a TTL (their node stopped renewing: the server aged them out). */
  private sweep(): void {
    const now = this.o.clock.monotonic();
    for (const [k, s] of this.seen) if (s.at + this.ttlMs <= now) this.forget(k);
  }
}

/** Runs fn over items with at most `parallel` in flight. */
async function runLimited<T>(items: T[], parallel: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
}
