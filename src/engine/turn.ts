// Applying a submitted turn (docs/ENGINE.md: the turn, counters and draws): micro-moves checked against the pending dice and the
// generator, king capture stopping the turn, and the end-of-turn bookkeeping.

import { Board } from './board.js';
import { formatDfen } from './dfen.js';
import { genMoves, isCastle } from './movegen.js';
import { codeFrom, uciToCode } from './squares.js';
import { type DfenError, type Position, type Result, type TurnOutcome, fail, ok } from './types.js';

const scratch = new Uint16Array(2048);

interface Replay {
  board: Board;
  /** Signed piece captured by each micro-move played (0 none). */
  captured: number[];
  kingCaptured: boolean;
  error: DfenError | null;
}

/**
 * Play `moves` one by one from `pos` with its pending dice, stopping at the first one that is not
 * a playable micro-move (malformed, no die for it, not a pseudo-legal move, or after a king capture).
 */
function replay(pos: Position, moves: readonly string[]): Replay {
  const board = Board.fromPosition(pos);
  const counts = new Int8Array(7);
  for (const d of pos.dice) counts[d]++;
  const captured: number[] = [];
  let kingCaptured = false;
  for (const uci of moves) {
    if (kingCaptured) {
      return { board, captured, kingCaptured, error: { code: 'moves_after_king_capture', message: `"${uci}" comes after the king was captured; the turn ended there` } };
    }
    const code = typeof uci === 'string' ? uciToCode(uci) : -1;
    if (code < 0) return { board, captured, kingCaptured, error: { code: 'bad_move', message: `"${String(uci)}" is not a lower-case UCI micro-move` } };
    let mask = 0;
    for (let t = 1; t <= 6; t++) if (counts[t] > 0) mask |= 1 << t;
    const n = genMoves(board.sq, board.turn === 0, board.ep, board.castling, mask, counts[6] > 0 && counts[4] > 0, scratch, 0);
    if (scratch.subarray(0, n).indexOf(code) < 0) {
      return { board, captured, kingCaptured, error: { code: 'illegal_move', message: `"${uci}" is not a playable micro-move with the unspent dice` } };
    }
    const piece = board.sq[codeFrom(code)];
    const type = piece > 0 ? piece : -piece;
    if (isCastle(board.sq, code)) counts[4]--;
    counts[type]--;
    const cap = board.make(code);
    captured.push(cap);
    if (cap === 6 || cap === -6) kingCaptured = true;
  }
  return { board, captured, kingCaptured, error: null };
}

/**
 * Apply a turn: each micro-move must be playable with the unspent dice. Whether the whole turn obeys
 * the maximum rule is the tree's job (treeHasPath); this checks the moves one at a time. After a
 * king capture the position is not turned over.
 */
export function applyTurn(pos: Position, moves: readonly string[]): Result<TurnOutcome, DfenError> {
  const r = replay(pos, moves);
  if (r.error) return { ok: false, error: r.error };
  if (!r.kingCaptured) r.board.endTurn();
  return ok({ fenAfter: formatDfen(r.board.toPosition([])), kingCaptured: r.kingCaptured, halfmove: r.board.halfmove });
}

/** A forced pass: the turn ends with nothing played. */
export function passTurn(pos: Position): TurnOutcome {
  const board = Board.fromPosition(pos);
  board.endTurn();
  return { fenAfter: formatDfen(board.toPosition([])), kingCaptured: false, halfmove: board.halfmove };
}

/** Type (1..6) of the piece each micro-move captures, 0 for none (and for moves not playable). */
export function capturedBy(pos: Position, moves: readonly string[]): number[] {
  const r = replay(pos, moves);
  const out = r.captured.map((c) => (c < 0 ? -c : c));
  while (out.length < moves.length) out.push(0);
  return out;
}

/** Validate a roll for a DFEN: one to three integer faces 1..6 (an empty roll means no dice). */
export function checkDice(dice: readonly number[]): Result<number[], DfenError> {
  if (!Array.isArray(dice)) return fail('bad_dice', 'dice must be an array of faces 1..6');
  if (dice.length > 3) return fail('too_many_dice', `at most three dice, got ${dice.length}`);
  for (const d of dice) {
    if (!(Number.isInteger(d) && d >= 1 && d <= 6)) return fail('bad_dice', `die face must be an integer 1..6, got ${String(d)}`);
  }
  return ok([...dice].sort((a, b) => a - b));
}

/** Draws (docs/ENGINE.md, counters and draws): 100 halfmoves, or 5000 rolls made. */
export function isDraw(halfmove: number, rollsMade: number): boolean {
  return halfmove >= 100 || rollsMade >= 5000;
}
