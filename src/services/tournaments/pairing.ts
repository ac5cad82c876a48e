// Who meets whom in an event. Match, SPRT, gauntlet and round-robin have a fixed list of encounters;
// a Swiss pairs one round at a time from the standings (docs/DECISIONS.md "Event pairing").
import type { TournamentFormat, TournamentRecord } from '../../domain/tournaments.js';

/** Two players (indexes into the event's player list) who meet in one encounter. */
export type Encounter = [a: number, b: number];

/**
 * The encounters of a fixed-format event among the players taking part, each to be played
 * `pairsPerEncounter` times. A match and an SPRT: the two players; a gauntlet: the first against
 * each other; a round-robin: every two players once, in the order of the circle method so that
 * consecutive encounters share as few players as possible. Swiss: none (paired by round).
 */
export function fixedEncounters(format: TournamentFormat, playing: readonly number[]): Encounter[] {
  if (format === 'match' || format === 'sprt') return [[playing[0], playing[1]]];
  if (format === 'gauntlet') return playing.slice(1).map((p) => [playing[0], p]);
  if (format === 'roundRobin') return circleRounds(playing).flat();
  return [];
}

/** Rounds of the circle method: each player meets every other once; with an odd count one sits out a round. */
export function circleRounds(playing: readonly number[]): Encounter[][] {
  const ring: (number | null)[] = [...playing];
  if (ring.length % 2 === 1) ring.push(null);
  const n = ring.length;
  const rounds: Encounter[][] = [];
  for (let r = 0; r < n - 1; r++) {
    const round: Encounter[] = [];
    for (let i = 0; i < n / 2; i++) {
      const x = ring[i];
      const y = ring[n - 1 - i];
      if (x !== null && y !== null) round.push(x < y ? [x, y] : [y, x]);
    }
    rounds.push(round);
    // Keep the first in place and turn the others one step.
    ring.splice(1, 0, ring.pop()!);
  }
  return rounds;
}

export const meetingKey = (a: number, b: number): string => (a < b ? `${a}-${b}` : `${b}-${a}`);

export interface SwissInput {
  /** Players taking part, with their points so far; ties keep this order (the entry order). */
  standings: readonly { player: number; points: number }[];
  /** meetingKey of every two players who have met. */
  met: ReadonlySet<string>;
  /** Players who already had a bye. */
  hadBye: ReadonlySet<number>;
}

export interface SwissRound {
  pairs: Encounter[];
  bye: number | null;
}

/** Search steps a Swiss round may take before it gives up (the bound on a pairing's cost). */
export const SWISS_SEARCH_LIMIT = 200_000;

/**
 * One Swiss round: players ranked by points (ties in entry order); with an odd count the lowest
 * ranked player without a bye sits out (any player once everyone has had one); then the best ranked
 * unpaired player meets the next best ranked one he has not met, backtracking when the rest cannot
 * be paired. Null when no pairing without a repeat exists (or the search exceeds its bound).
 */
export function swissRound(input: SwissInput): SwissRound | null {
  const ranked = [...input.standings]
    .map((s, i) => ({ ...s, order: i }))
    .sort((x, y) => y.points - x.points || x.order - y.order)
    .map((s) => s.player);
  let steps = 0;
  const pairUp = (rest: number[]): Encounter[] | null => {
    if (rest.length === 0) return [];
    if (++steps > SWISS_SEARCH_LIMIT) return null;
    const [first, ...others] = rest;
    for (let i = 0; i < others.length; i++) {
      const b = others[i];
      if (input.met.has(meetingKey(first, b))) continue;
      const tail = pairUp(others.filter((_, j) => j !== i));
      if (tail) return [[first, b], ...tail];
    }
    return null;
  };
  if (ranked.length % 2 === 0) {
    const pairs = pairUp(ranked);
    return pairs ? { pairs, bye: null } : null;
  }
  const byeOrder = [...ranked].reverse();
  const fresh = byeOrder.filter((p) => !input.hadBye.has(p));
  for (const bye of fresh.length > 0 ? fresh : byeOrder) {
    const pairs = pairUp(ranked.filter((p) => p !== bye));
    if (pairs) return { pairs, bye };
  }
  return null;
}

/** Why the players who have accepted cannot play this event, or null when they can. */
export function cannotStart(ev: TournamentRecord): string | null {
  const playing = ev.players.filter((p) => p.accepted === true).length;
  if (playing < 2 || ((ev.format === 'match' || ev.format === 'sprt') && playing !== 2)) {
    return `${playing} players have accepted; this ${ev.format} cannot start with them`;
  }
  if (ev.format === 'swiss' && ev.rounds > (playing % 2 === 1 ? playing : playing - 1)) {
    return `${playing} players cannot play ${ev.rounds} swiss rounds without meeting twice`;
  }
  return null;
}
