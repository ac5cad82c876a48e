// When each registered bot last made an authenticated request, so the ladder can pair a polling bot
// (no stream, no webhook) that is around right now and leave alone one that would lose on time.
// Bounded twice: entries older than the window are dropped as new ones arrive, and at most
// `maxEntries` are kept (the least recently seen go first).
import type { Clock } from '../domain/clock.js';

/**
 * The other nodes of a cluster (src/cluster/sharing/seen-bus.ts): a bot polling node A is around for the
 * ladder running on node B too.
 */
export interface SharedPresence {
  /** This node saw the bot now (fire-and-forget; the remote decides how often to tell the others). */
  touched(id: string, at: number): void;
  /** When another node last told of the bot, if it did lately. */
  lastSeen(id: string): number | undefined;
}

export class Presence {
  /** Bot id → last seen (epoch ms); insertion order is last-seen order (oldest first). */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
    private readonly maxEntries = 100_000,
    private readonly shared?: SharedPresence,
  ) {}

  /** Called by the edge on every authenticated request of a registered bot. */
  touch(id: string): void {
    const now = this.clock.now();
    this.seen.delete(id);
    this.seen.set(id, now);
    for (const [oldest, at] of this.seen) {
      if (this.seen.size <= this.maxEntries && at >= now - this.windowMs) break;
      this.seen.delete(oldest);
    }
    this.shared?.touched(id, now);
  }

  /** Whether the bot made an authenticated request within the window. */
  recent(id: string): boolean {
    const since = this.clock.now() - this.windowMs;
    const at = this.seen.get(id);
    if (at !== undefined && at >= since) return true;
    const elsewhere = this.shared?.lastSeen(id);
    return elsewhere !== undefined && elsewhere >= since;
  }

  size(): number {
    return this.seen.size;
  }
}
