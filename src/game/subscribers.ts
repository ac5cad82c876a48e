// The subscribers of one game (streams, webhook deliveries, house players), wherever the game is
// shown: the actor in its thread, main's mirror of it. A subscriber that throws is cut off and
// closed; it never takes the game or the other subscribers down with it.
import type { Logger } from '../domain/log.js';
import type { EventFrame, GameSubscriber } from './types.js';

export class Subscribers {
  private readonly set = new Set<GameSubscriber>();

  constructor(
    private readonly gameId: string,
    private readonly log: Logger,
  ) {}

  get size(): number {
    return this.set.size;
  }

  add(sub: GameSubscriber): () => void {
    this.set.add(sub);
    return () => void this.set.delete(sub);
  }

  /** The frames of one version, in order: together to those that take them together. */
  publish(frames: readonly EventFrame[]): void {
    for (const sub of [...this.set]) {
      try {
        if (sub.deliverAll !== undefined && frames.length > 1) sub.deliverAll(frames);
        else for (const f of frames) sub.deliver(f);
      } catch (e) {
        this.set.delete(sub);
        this.log.warn({ gameId: this.gameId, err: String(e) }, 'subscriber threw; dropped');
        this.closeOne(sub);
      }
    }
  }

  /** Ends every subscription (the game ended, the server stops, or the game's shard was lost). */
  closeAll(): void {
    const subs = [...this.set];
    this.set.clear();
    for (const s of subs) this.closeOne(s);
  }

  private closeOne(sub: GameSubscriber): void {
    try {
      sub.close?.();
    } catch (e) {
      this.log.warn({ gameId: this.gameId, err: String(e) }, 'subscriber close threw');
    }
  }
}
