// Followers of an event's stream (GET /events/{id}/stream) across the nodes of a cluster: the event
// scheduler runs on one node, the followers may be on any. This is the TournamentFollowers's "remote" seam
// (TournamentFollowersRemote in services/tournaments/followers.ts): each line the followers get goes out on core
// NATS on the event's subject (`dc.evt.<token>`), and a node subscribes to it while it has followers
// of that event, handing what arrives to its own followers (its own lines are recognised and skipped).
// Like the account streams, these streams are live only, so core NATS is enough.
import { createHash, randomBytes } from 'node:crypto';
import { headers, type NatsConnection, type Subscription } from '@nats-io/transport-node';

/** Where lines from the other nodes go: the node's TournamentFollowers. */
export interface LocalFollowers {
  deliver(id: string, line: string, last: boolean): void;
}

const FROM = 'Dc-From';
const EVENT = 'Dc-Event';
const LAST = 'Dc-Last';
const enc = new TextEncoder();
const dec = new TextDecoder();

export class TournamentBus {
  private readonly self = randomBytes(9).toString('base64url');
  private readonly subs = new Map<string, Subscription>();
  private local: LocalFollowers | undefined;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix = 'dc.evt',
  ) {}

  /** Where lines from the other nodes go (call once, with the node's TournamentFollowers). */
  bind(local: LocalFollowers): void {
    this.local = local;
  }

  publish(id: string, line: string, last: boolean): void {
    if (this.closed) return;
    const h = headers();
    h.set(FROM, this.self);
    h.set(EVENT, id);
    if (last) h.set(LAST, '1');
    try {
      this.nc.publish(this.subject(id), enc.encode(line), { headers: h });
    } catch {
      // The connection is closing: the followers elsewhere reconnect and read the event again.
    }
  }

  attached(id: string): void {
    if (this.closed || this.subs.has(id)) return;
    this.subs.set(
      id,
      this.nc.subscribe(this.subject(id), {
        callback: (err, m) => {
          if (err !== null || m.headers?.get(FROM) === this.self || m.headers?.get(EVENT) !== id) return;
          this.local?.deliver(id, dec.decode(m.data), m.headers?.get(LAST) === '1');
        },
      }),
    );
  }

  detached(id: string): void {
    const sub = this.subs.get(id);
    this.subs.delete(id);
    sub?.unsubscribe();
  }

  /** Events this node follows (tests). */
  following(): number {
    return this.subs.size;
  }

  close(): void {
    this.closed = true;
    for (const sub of this.subs.values()) sub.unsubscribe();
    this.subs.clear();
  }

  private subject(id: string): string {
    return `${this.prefix}.${createHash('sha256').update(id, 'utf8').digest('base64url').slice(0, 24)}`;
  }
}
