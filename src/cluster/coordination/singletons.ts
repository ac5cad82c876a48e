// Work that must run once in the whole cluster (the ladder scheduler, the rating batch, the webhook
// deliverer, lobby and challenge expiry, the event scheduler): each named service runs on whichever
// node holds its lease (`singleton.<name>`, a LeaseCandidate per service on every node). A node starts
// the service when it gains the lease and stops it when it loses it; when the holder dies, its key
// expires and another node's candidate takes it and starts the service there.
//
// A lease is lost locally (¾ of its TTL after the last good renewal) before the key can expire for the
// others, so on a live node the old run is stopped before the next one can start. A process that was
// paused does not know until its timers run: a service whose writes matter asks holds(name) right
// before acting (and relies on its store's own checks, such as the rating batch's compare-and-set).
// Starts and stops of one service never overlap on a node: each waits for the one before.
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import { silentLogger } from '../../domain/log.js';
import { LeaseCandidate, type LeaseKv } from './lease.js';

export interface SingletonService {
  /** Letters, digits, - and _; the same on every node. */
  name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

export interface SingletonsOptions {
  /** The lease bucket (its TTL is `ttlMs`). */
  kv: LeaseKv;
  /** This node's name, written in the lease keys. */
  node: string;
  ttlMs: number;
  clock: Clock;
  log?: Logger;
  /** How often a node that does not hold a lease tries to take it (default TTL/3). */
  retryMs?: number;
}

const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

interface Slot {
  service: SingletonService;
  candidate: LeaseCandidate;
  running: boolean;
  /** The service's starts and stops, one after another. */
  tail: Promise<void>;
}

export class Singletons {
  private readonly slots = new Map<string, Slot>();
  private readonly log: Logger;
  private closed = false;

  constructor(
    private readonly o: SingletonsOptions,
    services: readonly SingletonService[],
  ) {
    this.log = o.log ?? silentLogger;
    for (const service of services) {
      if (!NAME_RE.test(service.name)) throw new Error(`singleton name ${JSON.stringify(service.name)}: letters, digits, - and _ only`);
      if (this.slots.has(service.name)) throw new Error(`singleton ${service.name} is named twice`);
      const slot: Slot = { service, running: false, tail: Promise.resolve(), candidate: undefined as unknown as LeaseCandidate };
      slot.candidate = new LeaseCandidate({
        kv: o.kv,
        key: `singleton.${service.name}`,
        holder: o.node,
        ttlMs: o.ttlMs,
        clock: o.clock,
        retryMs: o.retryMs,
        onGained: () => this.then(slot, () => this.run(slot)),
        onLost: (why) => {
          this.log.warn({ singleton: service.name, why }, 'singleton lease lost: stopping it here');
          this.then(slot, () => this.halt(slot));
        },
      });
      this.slots.set(service.name, slot);
    }
  }

  /** Starts competing for every service's lease. */
  start(): void {
    if (this.closed) return;
    for (const slot of this.slots.values()) slot.candidate.start();
  }

  /** Names of the services running on this node now. */
  running(): string[] {
    return [...this.slots.values()].filter((s) => s.running).map((s) => s.service.name).sort();
  }

  /** Whether this node may act for the service right now (its lease is certain). */
  holds(name: string): boolean {
    const slot = this.slots.get(name);
    return slot !== undefined && slot.running && slot.candidate.lease.held();
  }

  /** Stops every service running here, then releases its lease so another node takes it at once. */
  async stop(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.slots.values()].map(async (slot) => {
        await this.then(slot, () => this.halt(slot));
        await slot.candidate.stop().catch((e: unknown) => {
          this.log.warn({ singleton: slot.service.name, err: String(e) }, 'singleton lease not released (it expires)');
        });
      }),
    );
  }

  private then(slot: Slot, fn: () => Promise<void>): Promise<void> {
    slot.tail = slot.tail.then(fn).catch((e: unknown) => {
      this.log.error({ singleton: slot.service.name, err: String(e) }, 'singleton step failed');
    });
    return slot.tail;
  }

  private async run(slot: Slot): Promise<void> {
    if (this.closed || slot.running || !slot.candidate.lease.held()) return;
    slot.running = true;
    this.log.info({ singleton: slot.service.name, node: this.o.node }, 'singleton started here');
    try {
      await slot.service.start();
    } catch (e) {
      // Give it back, so that this node or another tries again after a while.
      this.log.error({ singleton: slot.service.name, err: String(e) }, 'singleton failed to start');
      await this.halt(slot);
      await slot.candidate.stop().catch(() => {});
      if (!this.closed) this.o.clock.schedule(this.o.retryMs ?? this.o.ttlMs / 3, () => !this.closed && slot.candidate.start());
    }
  }

  private async halt(slot: Slot): Promise<void> {
    if (!slot.running) return;
    slot.running = false;
    try {
      await slot.service.stop();
    } catch (e) {
      this.log.error({ singleton: slot.service.name, err: String(e) }, 'singleton failed to stop');
    }
  }
}
