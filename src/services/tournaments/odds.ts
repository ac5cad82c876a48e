// Time odds in events: a player may bring its own time control (as cutechess-cli's per-engine `tc=`),
// so a bot can be tried against a stronger one handicapped on time. The rules at creation, and the
// controls each pair's games give their two players. Rules: docs/API.md "Events".
import { sameControl } from '../../domain/records.js';
import type { TournamentPlayer, TournamentRecord } from '../../domain/tournaments.js';
import type { SeatControls, TimeControl } from '../../domain/types.js';
import { fail, type ServiceResult } from '../errors.js';
import { ok } from '../../domain/result.js';

/**
 * Each player's own control as the event keeps it: only where it differs from the event's (a
 * control equal to the event's is no odds, and such a player is stored as any other).
 */
export function ownControls(
  event: TimeControl,
  players: readonly { timeControl?: TimeControl }[],
  rated: boolean,
): ServiceResult<(TimeControl | undefined)[]> {
  const own = players.map((p) => (p.timeControl && !sameControl(p.timeControl, event) ? p.timeControl : undefined));
  if (own.every((c) => c === undefined)) return ok(own);
  // Ratings read a result as evidence of strength; a game one side played on a handicap is not.
  if (rated) return fail('rated_odds', 'an event with time odds (a player with its own timeControl) cannot be rated');
  // A clock against no clock has no meaning: Unlimited games have no banks at all (docs/API.md "Clocks").
  const all = [event, ...own.filter((c): c is TimeControl => c !== undefined)];
  if (all.some((c) => 'Unlimited' in c)) return fail('invalid_event', 'time odds need timed controls: Unlimited cannot be mixed with a timed control');
  return ok(own);
}

/** The control a player plays on in its event's games: its own, or the event's. */
export const controlOf = (ev: Pick<TournamentRecord, 'timeControl'>, p: TournamentPlayer): TimeControl => p.timeControl ?? ev.timeControl;

/**
 * What a pair's first game (player `a` White) is made with: the event's control, and each seat's own
 * when either player has odds. The registry gives the mirror game the same players' controls swapped.
 */
export function pairControls(ev: Pick<TournamentRecord, 'timeControl' | 'players'>, a: number, b: number): { timeControl: TimeControl; timeControls?: SeatControls } {
  const pa = ev.players[a];
  const pb = ev.players[b];
  if (pa.timeControl === undefined && pb.timeControl === undefined) return { timeControl: ev.timeControl };
  return { timeControl: ev.timeControl, timeControls: { white: controlOf(ev, pa), black: controlOf(ev, pb) } };
}

/** The player row's `timeControl` in the event view: present only for a player with its own. */
export const playerControlView = (p: TournamentPlayer): { timeControl?: TimeControl } =>
  p.timeControl !== undefined ? { timeControl: p.timeControl } : {};
