// Pending events do not wait forever: one not started within its lifetime (events.pendingTtlMs, a day
// by default) is cancelled by the server, and its invitations go with it (an answer to them is then
// refused as for any event that is over). The scheduler looks at each tick, from the store's index
// of open events, so nothing else is read.
import type { TournamentRecord } from '../../domain/tournaments.js';
import type { TournamentFollowers } from './followers.js';

/** Cancels every pending event created `ttlMs` or longer before `now`; `ended` is told of each. */
export async function expirePending(followers: TournamentFollowers, now: number, ttlMs: number, ended: (ev: TournamentRecord) => void): Promise<void> {
  for (const e of followers.listing()) {
    if (e.state !== 'pending' || now - e.createdAt < ttlMs) continue;
    const r = await followers.modify(e.id, (ev) => {
      if (ev.state !== 'pending') return { next: null, value: false };
      const note = `expired: not started within ${Math.round(ttlMs / 1000)} s of its creation`;
      return { next: { ...ev, state: 'cancelled' as const, finishedAt: now, queue: [], note }, value: true };
    });
    if (r.value && r.ev) ended(r.ev);
  }
}
