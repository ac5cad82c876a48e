// The actor's answers to a move that is not applied, and the sanity checks that pick them.
import type { MoveVerdict } from '../domain/types.js';

export { GAME_OVER } from '../domain/rules.js';
export const NOT_YOUR_TURN: MoveVerdict = { applied: false, version: null, reason: 'not your turn' };
export const ILLEGAL_TURN: MoveVerdict = { applied: false, version: null, reason: 'illegal turn' };

/**
 * The free-text part of an `illegal turn` Rejected reason: the submitted moves, space separated, cut
 * short so a hostile body cannot blow up an event every watcher receives.
 */
export function describeMoves(moves: readonly unknown[]): string {
  if (moves.length === 0) return '(no moves)';
  const text = moves.map((m) => (typeof m === 'string' ? m : JSON.stringify(m) ?? String(m))).join(' ');
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** A syntactically sane move list: a turn spends at most three dice, so at most three micro-moves. */
export function plausibleMoves(moves: readonly unknown[]): moves is readonly string[] {
  return Array.isArray(moves) && moves.length >= 1 && moves.length <= 3 && moves.every((m) => typeof m === 'string' && m.length <= 5);
}
