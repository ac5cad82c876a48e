// What making an event takes besides a valid shape: a place under the host's cap on open events, and
// an invitation from the hourly budget of every bot it invites. Both are taken synchronously, before
// the event is stored, so concurrent creations cannot all pass; both are given back if it is not.
import type { TournamentPlayer } from '../../domain/tournaments.js';
import { rateLimited, type ServiceResult } from '../errors.js';
import type { TournamentFollowers } from './followers.js';

/** A per-bot budget of invitations (the edge's RateLimiter fits it). */
export interface InvitationBudget {
  readonly limit: number;
  take(botId: string): { ok: true } | { ok: false; retryAfterSeconds: number };
  /** Gives back the most recent one taken (the event was not made after all). */
  refund(botId: string): void;
}

/** How long a host refused for its open events is told to wait. */
const OPEN_RETRY_MS = 60_000;

export class TournamentPlaces {
  /** Ids of each host's events being stored now: counted with its open events until they are. */
  private readonly storing = new Map<string, Set<string>>();

  constructor(
    private readonly followers: TournamentFollowers,
    private readonly openPerHost: number,
    private readonly invitations: InvitationBudget | undefined,
  ) {}

  /** A 429 when the host has its cap of events pending or running (those being stored included). */
  checkOpen(host: string): ServiceResult<never> | null {
    // A cancelling event (its pairs still playing) no longer counts: it takes no new pair.
    const ids = new Set(this.followers.listing().filter((e) => e.host === host && e.state !== 'cancelling').map((e) => e.id));
    for (const id of this.storing.get(host) ?? []) ids.add(id);
    if (ids.size < this.openPerHost) return null;
    return rateLimited('too_many_events', `at most ${this.openPerHost} events pending or running per host`, OPEN_RETRY_MS);
  }

  /**
   * Takes one invitation from the budget of each bot invited, or none of them: a 429 naming the first
   * bot whose budget is spent (so no bot gets more invitations an hour than its budget, whoever hosts).
   */
  takeInvitations(invited: readonly TournamentPlayer[]): ServiceResult<never> | null {
    const budget = this.invitations;
    if (!budget) return null;
    for (const [i, p] of invited.entries()) {
      const v = budget.take(p.id);
      if (v.ok) continue;
      this.refundInvitations(invited.slice(0, i));
      return rateLimited('too_many_invitations', `${p.team}/${p.name} has had ${budget.limit} event invitations in the last hour`, v.retryAfterSeconds * 1000);
    }
    return null;
  }

  refundInvitations(invited: readonly TournamentPlayer[]): void {
    for (const p of invited) this.invitations?.refund(p.id);
  }

  /** Holds a place for the host's event while it is stored; call the result once it is (or failed). */
  hold(host: string, id: string): () => void {
    const storing = this.storing.get(host) ?? new Set<string>();
    this.storing.set(host, storing.add(id));
    return () => {
      storing.delete(id);
      if (storing.size === 0 && this.storing.get(host) === storing) this.storing.delete(host);
    };
  }
}
