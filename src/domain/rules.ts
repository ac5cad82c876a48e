// Rules of the contract that more than one layer checks: the request schemas (wire), the identity
// service and the game actor each read them from here, so a limit cannot drift between layers.
import type { MoveVerdict } from './types.js';

/** A team or bot name: lower-case letters, digits and '-', not starting with '-'. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
export const SLUG_MAX = 32;
export const isSlug = (s: string): boolean => s.length <= SLUG_MAX && SLUG_PATTERN.test(s);

/** Teams nobody may register: `anon` holds anonymous bots, `house` the operator's static bots. */
export const RESERVED_TEAMS: readonly string[] = ['anon', 'house'];
export const isReservedTeam = (team: string): boolean => RESERVED_TEAMS.includes(team);

/** Client dice seeds, in characters. */
export const SEED_MIN = 16;
export const SEED_MAX = 256;
/** The Rejected-event reason for a malformed seed (also what the seed schema documents). */
export const SEED_REJECT_REASON = `seed must be ${SEED_MIN}..${SEED_MAX} characters`;
export const isValidSeed = (seed: unknown): seed is string =>
  typeof seed === 'string' && seed.length >= SEED_MIN && seed.length <= SEED_MAX;

/** The verdict of a move sent to a game that has ended (the actor's reply and the edge's 409). */
export const GAME_OVER: MoveVerdict = { applied: false, version: null, reason: 'game is over' };
