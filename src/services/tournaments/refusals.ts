// Moves the server refused in event games (not your turn, an illegal turn), counted per player of the
// event. A bot can send refused moves as fast as it likes, so a refusal is only counted here, in
// memory; the counts reach the record with the next write the scheduler makes anyway (a game's
// result), or at the latest once they are a second old: an event is written for refusals at most
// once a second, and a record holds one number per player however many there were. Refusals of an
// event that is no longer running are not counted (games of a cancelled event may play on).
import type { TournamentRecord } from '../../domain/tournaments.js';
import type { TournamentFollowers } from './followers.js';

/** How long counted refusals may wait for a write of their own. */
export const REFUSALS_FLUSH_MS = 1000;

interface Waiting {
  /** Refusals counted per player index, not yet in the record. */
  counts: Map<number, number>;
  /** When the first of them was counted. */
  since: number;
}

export class RefusalCounts {
  private readonly waiting = new Map<string, Waiting>();

  /** Writes the refusals that have waited a second for a write of their event. */
  async flush(followers: Pick<TournamentFollowers, 'modify'>, now: number): Promise<void> {
    for (const id of this.due(now)) {
      await followers.modify(id, (ev) => {
        const next = this.fold(ev);
        return { next: next === ev ? null : next, value: null };
      });
    }
  }

  /** Counts one refusal of `player` in the event. */
  count(eventId: string, player: number, now: number): void {
    let w = this.waiting.get(eventId);
    if (!w) this.waiting.set(eventId, (w = { counts: new Map(), since: now }));
    w.counts.set(player, (w.counts.get(player) ?? 0) + 1);
  }

  /** Events whose counts have waited REFUSALS_FLUSH_MS or longer. */
  due(now: number): string[] {
    return [...this.waiting].filter(([, w]) => now - w.since >= REFUSALS_FLUSH_MS).map(([id]) => id);
  }

  /**
   * The event with the counts waiting for it added (and no longer waiting); the same record when
   * none wait. Counts waiting for an event that has stopped running are dropped.
   */
  fold(ev: TournamentRecord): TournamentRecord {
    const w = this.waiting.get(ev.id);
    if (!w) return ev;
    this.waiting.delete(ev.id);
    if (ev.state !== 'running' && ev.state !== 'paused') return ev;
    const refused = ev.players.map((_, i) => (ev.refused?.[i] ?? 0) + (w.counts.get(i) ?? 0));
    return { ...ev, refused };
  }

  /** Counts waiting for this event are given up (it is over). */
  forget(eventId: string): void {
    this.waiting.delete(eventId);
  }
}
