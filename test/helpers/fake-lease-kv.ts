// An in-memory bucket that behaves like a NATS KV with a max age, for lease and ownership tests on a
// ManualClock: revision checks, keys expiring TTL after their last write, and switches to make writes
// hang, lose their answers, or hold key listings until the test lets them go. The bucket ages keys on
// the ManualClock's monotonic reading: the server's own time, which a test stepping a node's wall
// clock (stepWall) does not move.
import { JetStreamApiError } from '@nats-io/jetstream';
import type { ManualClock } from '../../src/domain/clock.js';
import type { OwnershipKv } from '../../src/cluster/coordination/ownership.js';

export const conflict = () => new JetStreamApiError({ code: 400, err_code: 10071, description: 'wrong last sequence' });

export class FakeKv implements OwnershipKv {
  seq = 0;
  entries = new Map<string, { revision: number; value: Uint8Array; writtenAt: number; operation: string }>();
  /** While set, writes hang (their answers never come back). */
  silent = false;
  /** While set, writes land but their answers are lost (the caller sees a timeout). */
  dropAnswers = false;
  /** While set, removals are refused (a server answering "JetStream system temporarily unavailable"). */
  refuseRemove = false;
  /** While set, a key listing waits for it before answering (a listing in flight). */
  listingGate: Promise<void> | undefined;
  /** Listings started and not yet answered. */
  listing = 0;
  constructor(
    private clock: ManualClock,
    private ttlMs: number,
  ) {}
  private live(key: string) {
    const e = this.entries.get(key);
    if (e && this.clock.monotonic() >= e.writtenAt + this.ttlMs) this.entries.delete(key);
    return this.entries.get(key);
  }
  private write(key: string, value: Uint8Array, expect: number, operation = 'PUT'): Promise<number> {
    if (this.silent) return new Promise(() => {});
    const cur = this.live(key);
    if ((cur?.revision ?? 0) !== expect) return Promise.reject(conflict());
    const revision = ++this.seq;
    this.entries.set(key, { revision, value, writtenAt: this.clock.monotonic(), operation });
    return this.dropAnswers ? Promise.reject(new Error('timeout')) : Promise.resolve(revision);
  }
  create(key: string, value: Uint8Array) {
    const cur = this.live(key);
    return this.write(key, value, cur && cur.operation !== 'PUT' ? cur.revision : 0);
  }
  update(key: string, value: Uint8Array, revision: number) {
    return this.write(key, value, revision);
  }
  async remove(key: string) {
    if (this.silent) return new Promise<void>(() => {});
    if (this.refuseRemove) throw new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' });
    this.entries.delete(key);
  }
  async get(key: string) {
    return this.live(key) ?? null;
  }
  async keys(filter = '>'): Promise<AsyncIterable<string>> {
    this.listing++;
    try {
      if (this.listingGate) await this.listingGate;
    } finally {
      this.listing--;
    }
    // Only the `prefix.*` and `>` filters the callers use.
    const prefix = filter.endsWith('*') ? filter.slice(0, -1) : '';
    const keys = [...this.entries.keys()].filter((k) => k.startsWith(prefix) && this.live(k) !== undefined);
    return (async function* () {
      yield* keys;
    })();
  }
}
