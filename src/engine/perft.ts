// Single-die perft, a move-generation check (not a game rule): every ply is a whole one-micro-move
// turn with the same die, followed by the turn end. No maximum rule, a king capture is an ordinary
// capture, and castling is generated under the king die (6) alone.

import { Board } from './board.js';
import { genMoves } from './movegen.js';
import type { Position } from './types.js';

const LEVEL_ROOM = 2048;

export function perft(pos: Position, die: number, depth: number): number {
  if (!(Number.isInteger(die) && die >= 1 && die <= 6)) throw new RangeError(`perft die must be 1..6, got ${die}`);
  if (!(Number.isInteger(depth) && depth >= 0)) throw new RangeError(`perft depth must be a non-negative integer, got ${depth}`);
  const bd = Board.fromPosition(pos);
  const buf = new Uint16Array(LEVEL_ROOM * (depth + 1));
  return walk(bd, 1 << die, die === 6, depth, buf, 0);
}

function walk(bd: Board, mask: number, castle: boolean, depth: number, buf: Uint16Array, sp: number): number {
  if (depth === 0) return 1;
  const end = genMoves(bd.sq, bd.turn === 0, bd.ep, bd.castling, mask, castle, buf, sp);
  if (depth === 1) return end - sp;
  let nodes = 0;
  for (let i = sp; i < end; i++) {
    bd.make(buf[i]);
    const ep = bd.endTurn();
    nodes += walk(bd, mask, castle, depth - 1, buf, end);
    bd.endTurnUndo(ep);
    bd.unmake();
  }
  return nodes;
}
