// PUBLIC API OF THE ENGINE. Pure rules (docs/ENGINE.md): DFEN, move generation, turn enumeration and the
// binary legal-move tree. Synchronous, no IO, no clock, no randomness; imports nothing outside
// src/engine. docs/ENGINE.md describes the representation and the decisions taken where the rules
// are silent.

import { formatDfen, parseDfen } from './dfen.js';
import { buildTree } from './tree-build.js';
import { checkDice } from './turn.js';
import type { DfenError, Position, Result, TreeResult } from './types.js';

export type { DfenError, LegalMoveTreeJson, Position, Result, TreeResult, TurnOutcome } from './types.js';
export { formatDfen, parseDfen } from './dfen.js';
export { applyTurn, capturedBy, isDraw, passTurn } from './turn.js';
export { perft } from './perft.js';
export { treeHasPath, treeLeafCount, treePaths, treeToJson, treeToObject } from './tree-format.js';

export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** A DFEN of `fen` with the roll `dice` pending (dice written sorted, cased by side to move). */
export function withDice(fen: string, dice: readonly number[]): Result<string, DfenError> {
  const pos = parseDfen(fen);
  if (!pos.ok) return pos;
  const d = checkDice(dice);
  if (!d.ok) return d;
  return { ok: true, value: formatDfen({ ...pos.value, dice: d.value }) };
}

/**
 * The legal-move tree of the pending roll of `pos` (docs/ENGINE.md: the turn, the legal-move tree) as one flat byte array plus its
 * leaf count. No dice pending, or no micro-move possible, gives the empty tree (a forced pass).
 */
export function legalTree(pos: Position): TreeResult {
  return buildTree(pos);
}

/** The six-field position without its dice (what fenAfter and history carry). */
export function positionFen(pos: Position): string {
  return formatDfen({ ...pos, dice: [] });
}

