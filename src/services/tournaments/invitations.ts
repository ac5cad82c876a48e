// Invitations a bot has not answered yet, as the EventInvitation lines its account stream replays on
// connect (the same line the host's creation published).
import { faceOfId, type TournamentHead } from '../../domain/tournaments.js';
import type { AccountEvent } from '../../domain/types.js';

/** Pending events (newest first, as listed) in which `botId` is invited and has not answered. */
export function unansweredInvitations(heads: readonly TournamentHead[], botId: string): AccountEvent[] {
  const out: AccountEvent[] = [];
  for (const ev of heads) {
    if (ev.state !== 'pending' || ev.host === botId) continue;
    const me = ev.players.find((p) => p.id === botId);
    if (!me || (me.accepted ?? null) !== null) continue;
    out.push({
      EventInvitation: {
        eventId: ev.id, name: ev.name, format: ev.format, host: faceOfId(ev.host), rated: ev.rated, invitation: 'invited',
        timeControl: me.timeControl ?? ev.timeControl, timeOdds: ev.players.some((p) => p.timeControl !== undefined),
      },
    });
  }
  return out;
}
