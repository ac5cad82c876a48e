// Event invitations and the ladder's safeguard, as the bridge answers them.
//
// An EventInvitation on the account stream is accepted when it passes the `invitations` filter
// (format, rated, time odds, time control kinds), the `accept` filter its challenges pass (time
// control kinds and bounds, the kinds of opponent) and the allow and block lists (the host and every
// other player of the event); otherwise declined. Either way a line says which and why. One the
// server already counts as accepted (`invitation: accepted`, the bot's event-hosts setting) needs
// no answer and gets a line too.
//
// The ladder: a bot the server took off the ladder (LadderRemoved, e.g. after ladder games lost on
// time) stays off until its operator says otherwise: the bridge does not rejoin after the line, and
// at start it does not join when the bot's profile still names a reason the server took it off,
// unless started with `ladder.rejoin` (--rejoin-ladder).
import type { Client } from '../client/index.js';
import type { AccountEvent } from '../domain/types.js';
import { acceptVerdict, opponentVerdict, timeControlVerdict } from './admit.js';
import type { BridgeConfig } from './config.js';
import type { Reporter } from './report.js';

export type Invitation = Extract<AccountEvent, { EventInvitation: unknown }>['EventInvitation'];

/** What the event adds to its invitation: its players (each with a time control when odds differ). */
export interface InvitedEvent {
  players: { team: string; name: string; timeControl?: Invitation['timeControl'] }[];
}

/** Why the bridge declines this invitation, or null to accept it. `self`: the bot's `team/name`. */
export function invitationVerdict(config: BridgeConfig, inv: Invitation, event: InvitedEvent | null, self: string): string | null {
  const f = config.invitations;
  if (!f.formats.includes(inv.format as never)) return `${inv.format} events are not accepted`;
  if (inv.rated && !f.rated) return 'rated events are not accepted';
  if (inv.timeOdds && !f.timeOdds) return 'events with time odds are not accepted';
  const kind = Object.keys(inv.timeControl)[0]!;
  if (f.timeControls !== null && !f.timeControls.includes(kind as never)) return `${kind} is not accepted for events`;
  if (!config.accept.enabled) return 'this bridge accepts no challenges';
  const tcWhy = timeControlVerdict(config, inv.timeControl);
  if (tcWhy !== null) return tcWhy;
  const host = `${inv.host.team}/${inv.host.name}`;
  const byHost = opponentVerdict(config, host);
  if (byHost !== null) return `host: ${byHost}`;
  for (const p of event?.players ?? []) {
    const ref = `${p.team}/${p.name}`;
    if (ref === self) continue;
    const why = opponentVerdict(config, ref) ?? acceptVerdict(config, p.team === 'house' ? 'house' : 'registered', p.timeControl ?? inv.timeControl);
    if (why !== null) return `player ${ref}: ${why}`;
  }
  return null;
}

/** Answers an invitation (unless the server needs none) and says what was done. */
export async function answerInvitation(client: Client, config: BridgeConfig, report: Reporter, inv: Invitation, self: string, stopping: boolean): Promise<void> {
  const line = { eventId: inv.eventId, name: inv.name, host: `${inv.host.team}/${inv.host.name}` };
  if (inv.invitation === 'accepted') {
    report.emit({ event: 'invitationAccepted', ...line, why: 'accepted by the bot’s event-hosts setting' });
    return;
  }
  if (!config.invitations.enabled) return; // left for the operator to answer, as without the bridge
  const ev = await client.getEvent(inv.eventId);
  const why = stopping ? 'the bridge is stopping' : invitationVerdict(config, inv, ev.ok ? ev.value : null, self);
  if (why === null) {
    const r = await client.acceptEvent(inv.eventId);
    if (r.ok) report.emit({ event: 'invitationAccepted', ...line, why: 'it passes the invitation and accept filters' });
    else report.emit({ event: 'error', message: `accepting event ${inv.eventId}: ${r.problem.detail}` });
    return;
  }
  const r = await client.declineEvent(inv.eventId);
  if (r.ok) report.emit({ event: 'invitationDeclined', ...line, why });
  else report.emit({ event: 'error', message: `declining event ${inv.eventId} (${why}): ${r.problem.detail}` });
}

/** At start, with `ladder.join`: joins unless the server took the bot off and no rejoin was asked for. Whether it joined. */
export async function joinLadderAtStart(client: Client, config: BridgeConfig, report: Reporter, team: string, name: string): Promise<boolean> {
  if (!config.ladder.rejoin) {
    const profile = await client.getBotProfile(team, name);
    const reason = profile.ok ? profile.value.offLadderReason : null;
    if (reason) {
      report.emit({ event: 'ladderRemoved', reason, rejoin: 'the server took the bot off the ladder; start with --rejoin-ladder to join again' });
      return false;
    }
  }
  const cap = await client.setCapacity({ capacity: config.ladder.capacity });
  if (!cap.ok) throw new Error(`ladder capacity: ${cap.problem.detail}`);
  const joined = await client.joinLadder();
  if (!joined.ok) throw new Error(`ladder: ${joined.problem.detail}`);
  return true;
}
