// Pseudo-legal micro-move generation (docs/ENGINE.md: piece moves, en passant) for the pieces whose die is available.
// Pieces are visited in file-major square order and step tables are file-major too, so the
// generated codes come out nearly sorted; sortCodes finishes the job cheaply.

import {
  KING_LIST, KING_START, KNIGHT_LIST, KNIGHT_START, MOVE_BASE, RAY_LIST, RAY_START, TRANSPOSE,
} from './squares.js';

/**
 * Append to `out` (from index n) every micro-move of the side to move (`white`) by a piece whose
 * type bit is set in `typeMask` (bit t for type t), plus castling when `castleOk`. Returns the new
 * end index. King captures are ordinary captures here; the caller decides what they mean.
 */
export function genMoves(
  b: Int8Array, white: boolean, ep: number, castling: number,
  typeMask: number, castleOk: boolean, out: Uint16Array, n: number,
): number {
  for (let i = 0; i < 64; i++) {
    const sq = TRANSPOSE[i];
    const p = b[sq];
    if (p === 0 || (p > 0) !== white) continue;
    const type = p > 0 ? p : -p;
    if (((typeMask >> type) & 1) !== 0) n = genPiece(b, white, sq, type, ep, out, n);
  }
  if (castleOk) n = genCastling(b, white, castling, out, n);
  return n;
}

/**
 * genMoves over a list of the mover's squares instead of the whole board: the turn enumeration keeps
 * that list up to date as it makes and unmakes moves, which saves scanning 64 squares per node.
 */
export function genMovesFrom(
  b: Int8Array, white: boolean, ep: number, castling: number,
  typeMask: number, castleOk: boolean, squares: Uint8Array, count: number, out: Uint16Array, n: number,
): number {
  for (let i = 0; i < count; i++) {
    const sq = squares[i];
    const p = b[sq];
    const type = p > 0 ? p : -p;
    if (((typeMask >> type) & 1) !== 0) n = genPiece(b, white, sq, type, ep, out, n);
  }
  if (castleOk) n = genCastling(b, white, castling, out, n);
  return n;
}

function genPiece(b: Int8Array, white: boolean, sq: number, type: number, ep: number, out: Uint16Array, n: number): number {
  const base = sq << 6;
  switch (type) {
    case 1:
      return white ? whitePawn(b, sq, ep, out, n) : blackPawn(b, sq, ep, out, n);
    case 2:
      for (let k = KNIGHT_START[sq], e = KNIGHT_START[sq + 1]; k < e; k++) {
        const t = KNIGHT_LIST[k];
        const q = b[t];
        if (q === 0 || (q < 0) === white) out[n++] = MOVE_BASE[base | t];
      }
      return n;
    case 3:
      return slide(b, white, sq, 4, 8, out, n);
    case 4:
      return slide(b, white, sq, 0, 4, out, n);
    case 5:
      return slide(b, white, sq, 0, 8, out, n);
    default:
      for (let k = KING_START[sq], e = KING_START[sq + 1]; k < e; k++) {
        const t = KING_LIST[k];
        const q = b[t];
        if (q === 0 || (q < 0) === white) out[n++] = MOVE_BASE[base | t];
      }
      return n;
  }
}

function slide(b: Int8Array, white: boolean, sq: number, d0: number, d1: number, out: Uint16Array, n: number): number {
  const base = sq << 6;
  for (let d = d0; d < d1; d++) {
    for (let k = RAY_START[sq * 8 + d], e = RAY_START[sq * 8 + d + 1]; k < e; k++) {
      const t = RAY_LIST[k];
      const q = b[t];
      if (q === 0) {
        out[n++] = MOVE_BASE[base | t];
        continue;
      }
      if ((q < 0) === white) out[n++] = MOVE_BASE[base | t];
      break;
    }
  }
  return n;
}

/** A pawn arriving on the last rank: four promotions, or a plain capture when it takes a king. */
function pawnTo(code: number, lastRank: boolean, takesKing: boolean, out: Uint16Array, n: number): number {
  if (!lastRank || takesKing) {
    out[n++] = code;
  } else {
    out[n++] = code | 1;
    out[n++] = code | 2;
    out[n++] = code | 3;
    out[n++] = code | 4;
  }
  return n;
}

function whitePawn(b: Int8Array, sq: number, ep: number, out: Uint16Array, n: number): number {
  const r = sq >> 3;
  if (r === 7) return n;
  const f = sq & 7;
  const base = sq << 6;
  const last = r === 6;
  if (f > 0) {
    const t = sq + 7;
    const q = b[t];
    if (q < 0) n = pawnTo(MOVE_BASE[base | t], last, q === -6, out, n);
    else if (q === 0 && r === 4 && ((ep >> (8 + f - 1)) & 1) !== 0 && b[t - 8] === -1) out[n++] = MOVE_BASE[base | t];
  }
  if (b[sq + 8] === 0) {
    n = pawnTo(MOVE_BASE[base | (sq + 8)], last, false, out, n);
    if (r === 1 && b[sq + 16] === 0) out[n++] = MOVE_BASE[base | (sq + 16)];
  }
  if (f < 7) {
    const t = sq + 9;
    const q = b[t];
    if (q < 0) n = pawnTo(MOVE_BASE[base | t], last, q === -6, out, n);
    else if (q === 0 && r === 4 && ((ep >> (8 + f + 1)) & 1) !== 0 && b[t - 8] === -1) out[n++] = MOVE_BASE[base | t];
  }
  return n;
}

function blackPawn(b: Int8Array, sq: number, ep: number, out: Uint16Array, n: number): number {
  const r = sq >> 3;
  if (r === 0) return n;
  const f = sq & 7;
  const base = sq << 6;
  const last = r === 1;
  if (f > 0) {
    const t = sq - 9;
    const q = b[t];
    if (q > 0) n = pawnTo(MOVE_BASE[base | t], last, q === 6, out, n);
    else if (q === 0 && r === 3 && ((ep >> (f - 1)) & 1) !== 0 && b[t + 8] === 1) out[n++] = MOVE_BASE[base | t];
  }
  if (b[sq - 8] === 0) {
    if (r === 6 && b[sq - 16] === 0) out[n++] = MOVE_BASE[base | (sq - 16)];
    n = pawnTo(MOVE_BASE[base | (sq - 8)], last, false, out, n);
  }
  if (f < 7) {
    const t = sq - 7;
    const q = b[t];
    if (q > 0) n = pawnTo(MOVE_BASE[base | t], last, q === 6, out, n);
    else if (q === 0 && r === 3 && ((ep >> (f + 1)) & 1) !== 0 && b[t + 8] === 1) out[n++] = MOVE_BASE[base | t];
  }
  return n;
}

/** Castling (docs/ENGINE.md: piece moves): right, king on e1/e8, rook on its corner, squares between empty. */
function genCastling(b: Int8Array, white: boolean, castling: number, out: Uint16Array, n: number): number {
  if (white) {
    if (b[4] !== 6) return n;
    if ((castling & 2) !== 0 && b[0] === 4 && b[1] === 0 && b[2] === 0 && b[3] === 0) out[n++] = MOVE_BASE[(4 << 6) | 2];
    if ((castling & 1) !== 0 && b[7] === 4 && b[5] === 0 && b[6] === 0) out[n++] = MOVE_BASE[(4 << 6) | 6];
  } else {
    if (b[60] !== -6) return n;
    if ((castling & 8) !== 0 && b[56] === -4 && b[57] === 0 && b[58] === 0 && b[59] === 0) out[n++] = MOVE_BASE[(60 << 6) | 58];
    if ((castling & 4) !== 0 && b[63] === -4 && b[61] === 0 && b[62] === 0) out[n++] = MOVE_BASE[(60 << 6) | 62];
  }
  return n;
}

/** Insertion sort of out[lo, hi): the slices are short and nearly sorted already. */
export function sortCodes(out: Uint16Array, lo: number, hi: number): void {
  for (let i = lo + 1; i < hi; i++) {
    const v = out[i];
    let j = i - 1;
    if (out[j] <= v) continue;
    while (j >= lo && out[j] > v) {
      out[j + 1] = out[j];
      j--;
    }
    out[j + 1] = v;
  }
}

/** Whether code is a castling move on board b (a king moving two files). */
export function isCastle(b: Int8Array, code: number): boolean {
  const from = TRANSPOSE[code >> 9];
  const p = b[from];
  if (p !== 6 && p !== -6) return false;
  const d = TRANSPOSE[(code >> 3) & 63] - from;
  return d === 2 || d === -2;
}
