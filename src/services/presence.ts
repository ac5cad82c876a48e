// When each registered bot last made an authenticated request, so the ladder can pair a polling bot
// (no stream, no webhook) that is around right now and leave alone one that would lose on time.
// Bounded twice: entries older than the window are dropped as new ones arrive, and at most
// `maxEntries` are kept (the least recently seen go first).
import type { Clock } from '../domain/clock.js';

export class Presence {
  /** Bot id → last seen (epoch ms); insertion order is last-seen order (oldest first). */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
    private readonly maxEntries = 100_000,
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
  }

  /** Whether the bot made an authenticated request within the window. */
  recent(id: string): boolean {
    const at = this.seen.get(id);
    return at !== undefined && at >= this.clock.now() - this.windowMs;
  }

  size(): number {
    return this.seen.size;
  }
}
