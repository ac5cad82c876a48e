// An in-memory copy of a whole key-value bucket, so that reads stay synchronous: loaded at open, fed
// by a watch that is replaced when it stalls, and updated at once by this node's own writes.
// Invariant: each key keeps the revision it was applied at, and nothing older is applied (nor a late
// delivery of a deleted key's old value). Every change to a shared key goes through `ticketedModify`
// (a ticket create, then the update): nats-server 2.9 may store two updates naming one revision.
// (docs/CLUSTER.md, "The rest of the store across nodes": reads, following the buckets, failures).
import { randomBytes } from 'node:crypto';
import type { KV, KvEntry } from '@nats-io/kv';
import { RequestError, TimeoutError } from '@nats-io/transport-node';
import { JetStreamApiError } from '@nats-io/jetstream';
import type { Clock } from '../../domain/clock.js';
import { isRevisionConflict } from '../coordination/lease.js';
import { BucketFollower, type BucketFollowerOptions } from './bucket-watch.js';

/** The tickets bucket's key lifetime (ms); it must be opened with this TTL. */
export const TICKET_TTL_MS = 60_000;

/** How long past a ticket's life a writer still waits for a key another writer's ticket holds. */
const TICKET_GRACE_MS = 10_000;

/** How long a write caught by a leader election (unanswered, or no responders) is sent again. */
export const WRITE_RETRY_MS = 15_000;

/**
 * A request the cluster left unanswered or answered "no responders" / 503: a stream electing a new
 * leader (a server died), or the client reconnecting. It may have landed; it may be sent again.
 */
export function isTransient(e: unknown): boolean {
  if (e instanceof TimeoutError) return true;
  if (e instanceof RequestError && e.isNoResponders()) return true;
  if (e instanceof JetStreamApiError) return e.status === 503;
  return e instanceof Error && /no responders|timeout/i.test(e.message);
}

/** Runs `send` again while it fails transiently (100 ms doubling to 1 s apart), for up to `forMs`. */
export async function retryTransient<T>(send: () => Promise<T>, forMs = WRITE_RETRY_MS): Promise<T> {
  const giveUpAt = performance.now() + forMs; // a local deadline: the monotonic clock
  for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
    try {
      return await send();
    } catch (e) {
      if (!isTransient(e) || performance.now() + wait > giveUpAt) throw e;
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Removed keys remembered before the memory of them is swept (see `watched`). */
const SWEEP_AT = 1024;

export type Change = { key: string; before: Uint8Array | undefined; after: Uint8Array | undefined };

interface Held {
  revision: number;
  value: Uint8Array;
}

export class BucketCopy {
  private readonly held = new Map<string, Held>();
  /** Revision a key was removed at (by a delete seen or made here), against late deliveries. */
  private readonly gone = new Map<string, number>();
  /** Follows the bucket, replacing a watch that stalls or fails (bucket-watch.ts); set once opened. */
  private follower: BucketFollower | undefined;
  private closed = false;

  /** Keys held, by their first token, for the kinds asked for at open (the others are not listed). */
  private readonly byKind = new Map<string, Set<string>>();

  private constructor(
    readonly kv: KV,
    /** Called after every change the copy applies, in order, with the value before and after. */
    private readonly onChange: (c: Change) => void,
    listed: readonly string[],
  ) {
    for (const kind of listed) this.byKind.set(kind, new Set());
  }

  /**
   * Resolves once every key the bucket held when called has been applied. `listed`: first tokens of
   * the keys `keysOf` lists (kept as they change, so listing costs nothing per key held).
   * `checkEveryMs` (default 2 s, on `clock`): how often the copy makes sure its watch still follows.
   */
  static async open(
    kv: KV,
    onChange: (c: Change) => void,
    listed: readonly string[] = [],
    o: BucketFollowerOptions = {},
    /** Handed the copy before it loads (an onChange that calls `forget` needs it during the load). */
    made?: (copy: BucketCopy) => void,
  ): Promise<BucketCopy> {
    const r = new BucketCopy(kv, onChange, listed);
    made?.(r);
    const lastSeq = (await kv.status()).streamInfo.state.last_seq;
    await new Promise<void>((loaded, failed) => {
      const watched = (e: KvEntry): void => {
        r.watched(e);
        if (e.revision >= lastSeq) loaded();
      };
      BucketFollower.start(kv, watched, o, failed).then((f) => {
        r.follower = f;
        if (r.closed) f.stop(); // the load failed before the follower was handed over
        if (lastSeq === 0) loaded();
      }, failed);
    }).catch((e: unknown) => {
      r.close(); // nothing of a copy that failed to open goes on following
      throw e;
    });
    return r;
  }

  /**
   * An entry the watch delivered (in revision order, each once). A removal at or below its revision
   * can no longer be undone by a late delivery, so the memory of such removals may be swept.
   */
  private watched(e: KvEntry): void {
    this.apply(e);
    if (this.gone.size > SWEEP_AT) {
      for (const [key, revision] of this.gone) if (revision <= e.revision) this.gone.delete(key);
    }
  }

  /** Highest revision the watch has delivered (for tests). */
  private get lastRevision(): number {
    return this.follower?.lastRevision ?? 0;
  }

  /** Watches started again after a stall or a failure (for tests and logs). */
  get restarts(): number {
    return this.follower?.restarts ?? 0;
  }

  /** The watch followed now: what a dead server silences (a test stops it to play one). */
  private get watch(): { stop(): void } | undefined {
    return this.follower?.current;
  }

  /** Applies one bucket entry unless the copy already holds this revision or a newer one. */
  apply(e: Pick<KvEntry, 'key' | 'revision' | 'operation' | 'value'>): void {
    const cur = this.held.get(e.key);
    if ((cur && cur.revision >= e.revision) || (this.gone.get(e.key) ?? 0) >= e.revision) return;
    if (e.operation === 'PUT') {
      this.held.set(e.key, { revision: e.revision, value: e.value });
      this.gone.delete(e.key);
      this.kindOf(e.key)?.add(e.key);
      this.onChange({ key: e.key, before: cur?.value, after: e.value });
    } else {
      this.held.delete(e.key);
      this.gone.set(e.key, e.revision);
      this.kindOf(e.key)?.delete(e.key);
      if (cur) this.onChange({ key: e.key, before: cur.value, after: undefined });
    }
  }

  private kindOf(key: string): Set<string> | undefined {
    return this.byKind.get(key.slice(0, key.indexOf('.')));
  }

  get(key: string): Uint8Array | undefined {
    return this.held.get(key)?.value;
  }

  /**
   * Drops the key's value from this copy only (the bucket keeps it): for values read on demand
   * instead (ClusterStore's finished games). Like a delete, the revision dropped is remembered, so a
   * late delivery of an older value cannot bring it back; a newer write is applied as usual.
   */
  forget(key: string): void {
    const cur = this.held.get(key);
    if (!cur) return;
    this.held.delete(key);
    this.kindOf(key)?.delete(key);
    this.gone.set(key, Math.max(cur.revision, this.gone.get(key) ?? 0));
  }

  /** Keys held and the bytes of their values (for tests and memory checks). */
  heldUse(): { keys: number; bytes: number } {
    let bytes = 0;
    for (const v of this.held.values()) bytes += v.value.length;
    return { keys: this.held.size, bytes };
  }

  has(key: string): boolean {
    return this.held.has(key);
  }

  revisionOf(key: string): number | undefined {
    return this.held.get(key)?.revision;
  }

  /** Keys held whose first token is `kind` (one of those listed at open), in no particular order. */
  keysOf(kind: string): string[] {
    const set = this.byKind.get(kind);
    if (!set) throw new Error(`keys of kind ${kind} are not listed`);
    return [...set];
  }

  /** Writes the key (last writer wins) and applies it here once stored (sent again through an election). */
  async put(key: string, value: Uint8Array): Promise<number> {
    const revision = await retryTransient(() => this.kv.put(key, value));
    this.apply({ key, revision, operation: 'PUT', value });
    return revision;
  }

  /**
   * Creates the key only if absent; false (nothing written) when it exists. A refusal is checked by
   * reading the key (from the stream's leader): what refused it must be stored, and is then applied
   * here at once; a refusal by nothing readable (a write lost in a leader change) is tried again. A
   * create caught by an election is sent again; if the first one landed, the key then holds exactly
   * these bytes, which is taken as this create's own.
   */
  async create(key: string, value: Uint8Array): Promise<boolean> {
    let mayHaveLanded = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const revision = await retryTransient(async () => {
          try {
            return await this.kv.create(key, value);
          } catch (e) {
            if (isTransient(e)) mayHaveLanded = true;
            throw e;
          }
        });
        this.apply({ key, revision, operation: 'PUT', value });
        return true;
      } catch (e) {
        if (!isRevisionConflict(e)) throw e;
        const found = await retryTransient(() => this.kv.get(key));
        if (found && found.operation === 'PUT') {
          this.apply(found);
          return mayHaveLanded && sameBytes(found.value, value);
        }
        if (attempt >= 5) throw e;
      }
    }
  }

  /** Deletes the key and drops it here at once (sent again through an election). */
  async delete(key: string): Promise<void> {
    const cur = this.held.get(key);
    await retryTransient(() => this.kv.delete(key));
    if (cur && this.held.get(key) === cur) {
      this.held.delete(key);
      this.kindOf(key)?.delete(key);
      this.gone.set(key, cur.revision);
      this.onChange({ key, before: cur.value, after: undefined });
    }
  }

  /**
   * Read-modify-write of one key, serialised across nodes (see the top of the file): `change` sees
   * the value as last stored (undefined when absent) and returns the replacement, or null to leave
   * it. Resolves with the value stored afterwards.
   */
  async ticketedModify(
    tickets: KV,
    clock: Clock,
    key: string,
    change: (cur: Uint8Array | undefined) => Uint8Array | null,
    maxAttempts = 200,
  ): Promise<Uint8Array | undefined> {
    // A writer that died between its ticket and its update (kill -9 mid-batch) leaves the ticket
    // held until the bucket expires it: the others wait that out (a few polls a second) rather than
    // give up, so the writer gives up only after `maxAttempts` tries AND more than a ticket's life.
    const since = clock.monotonic();
    let blocked = false;
    for (let attempt = 0; attempt < maxAttempts || clock.monotonic() - since <= TICKET_TTL_MS + TICKET_GRACE_MS; attempt++) {
      if (attempt > 0) await new Promise<void>((r) => clock.schedule(Math.min(blocked ? 250 : 50, attempt * 2), () => r()));
      blocked = false;
      const e = await retryTransient(() => this.kv.get(key));
      const live = e && e.operation === 'PUT' ? e : null;
      if (e) this.apply(e);
      const next = change(live?.value);
      if (next === null) return live?.value;
      if (!live) {
        if (await this.create(key, next)) return next;
        continue; // created by someone else meanwhile: read again
      }
      const ticketAt = clock.monotonic();
      const ticket = `${key}.${live.revision}`;
      const mark = new Uint8Array(randomBytes(8));
      try {
        await retryTransient(() => tickets.create(ticket, mark));
      } catch (err) {
        if (!isRevisionConflict(err)) throw err;
        // Refused: another writer's ticket, or our own (a try answered late, then sent again).
        const held = await retryTransient(() => tickets.get(ticket));
        if (!held || held.operation !== 'PUT' || !sameBytes(held.value, mark)) {
          blocked = true;
          continue;
        }
      }
      if (clock.monotonic() - ticketAt > TICKET_TTL_MS / 2) continue;
      let mayHaveLanded = false;
      try {
        const revision = await retryTransient(async () => {
          try {
            return await this.kv.update(key, next, live.revision);
          } catch (e) {
            if (isTransient(e)) mayHaveLanded = true;
            throw e;
          }
        });
        this.apply({ key, revision, operation: 'PUT', value: next });
        return next;
      } catch (err) {
        if (!isRevisionConflict(err)) throw err;
        if (!mayHaveLanded) continue;
        // Our update may have landed unanswered before this refusal. Only the ticket's holder
        // updates from live.revision, so the key holding `next` after it is our update; anything
        // else cannot be told apart from a change made on top of ours: the caller is told.
        const now = await retryTransient(() => this.kv.get(key));
        if (now && now.operation === 'PUT' && now.revision > live.revision && sameBytes(now.value, next)) {
          this.apply(now);
          return next;
        }
        throw err;
      }
    }
    throw new Error(`modify ${key}: still conflicting after ${maxAttempts} attempts and ${clock.monotonic() - since} ms`);
  }

  close(): void {
    this.closed = true;
    this.follower?.stop();
  }
}

/** Runs `fn` over `items` with at most `limit` calls in flight; rejects with the first failure. */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
