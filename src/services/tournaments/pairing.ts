// Who meets whom in an event. Match, SPRT, gauntlet and round-robin have a fixed list of encounters;
// a Swiss pairs one round at a time from the standings, by the Dutch system (dutch.ts; docs/DECISIONS.md "Event pairing").
import type { TournamentFormat, TournamentRecord } from '../../domain/tournaments.js';
import { dutchRound } from './dutch.js';

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
  /** Players taking part, with their points so far, in seed order (ties in points keep this order). */
  standings: readonly { player: number; points: number }[];
  /** meetingKey of every two players who have met. */
  met: ReadonlySet<string>;
  /** Players who already had a bye. */
  hadBye: ReadonlySet<number>;
  /** Rounds to play after this one: a pairing that leaves them unplayable is avoided (0 when absent). */
  roundsAfter?: number;
}

export interface SwissRound {
  pairs: Encounter[];
  bye: number | null;
}

/**
 * One Swiss round by the Dutch system's core rules (dutch.ts): players ranked by points, then seed;
 * with an odd count the lowest ranked player without a bye sits out; nobody meets anyone twice or has
 * a second bye. Null when no such pairing exists.
 */
export function swissRound(input: SwissInput): SwissRound | null {
  const ranked = [...input.standings]
    .map((s, i) => ({ ...s, order: i }))
    .sort((x, y) => y.points - x.points || x.order - y.order);
  return dutchRound({
    ranked: ranked.map((s) => s.player),
    points: new Map(ranked.map((s) => [s.player, s.points])),
    mayMeet: (a, b) => a !== b && !input.met.has(meetingKey(a, b)),
    mayHaveBye: (p) => !input.hadBye.has(p),
    roundsAfter: input.roundsAfter ?? 0,
  });
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
