// Square geometry and the precomputed tables move generation reads on its hot path.
//
// Squares are indexed a1=0 … h8=63 (rank-major, as in the Position interface). Micro-moves are
// 15-bit integers built so that NUMERIC order equals the plain STRING order of their UCI text:
// the UCI string compares from-file, from-rank, to-file, to-rank, then "no suffix" < b < n < q < r.
// So each square enters the code in file-major form (file*8+rank, the transpose of the index) and
// the promotion piece as a rank 0..4 in suffix alphabetical order. Sorting codes sorts the tree keys.

/** Transpose a1=0 rank-major index <-> file-major index (the map is its own inverse). */
export const TRANSPOSE = new Uint8Array(64);
for (let sq = 0; sq < 64; sq++) TRANSPOSE[sq] = ((sq & 7) << 3) | (sq >> 3);

/** Promotion rank inside a code: 0 none, then the suffix letters in alphabetical order. */
export const PROMO_NONE = 0;
export const PROMO_SUFFIX = ['', 'b', 'n', 'q', 'r'] as const;
/** Piece type (1..6) a promotion rank turns the pawn into. */
export const PROMO_TYPE = new Int8Array([0, 3, 2, 5, 4]);

/** Code of the plain move from→to (promotion rank 0), indexed from*64+to. */
export const MOVE_BASE = new Uint16Array(4096);
for (let from = 0; from < 64; from++) {
  for (let to = 0; to < 64; to++) MOVE_BASE[(from << 6) | to] = (TRANSPOSE[from] << 9) | (TRANSPOSE[to] << 3);
}

export const codeFrom = (code: number): number => TRANSPOSE[code >> 9];
export const codeTo = (code: number): number => TRANSPOSE[(code >> 3) & 63];
export const codePromo = (code: number): number => code & 7;

export const FILES = 'abcdefgh';
export const squareName = (sq: number): string => FILES[sq & 7] + String((sq >> 3) + 1);

/** Parse a two-character square name ("e4"), -1 when it is not one (lower case only). */
export function parseSquare(text: string, at: number): number {
  const f = text.charCodeAt(at) - 97;
  const r = text.charCodeAt(at + 1) - 49;
  if (!(f >= 0 && f < 8 && r >= 0 && r < 8)) return -1;
  return r * 8 + f;
}

// UCI strings are interned: treePaths and the object form reuse one string per code.
const uciCache: (string | undefined)[] = new Array(1 << 15);

export function codeToUci(code: number): string {
  let s = uciCache[code];
  if (s === undefined) {
    s = squareName(codeFrom(code)) + squareName(codeTo(code)) + PROMO_SUFFIX[code & 7];
    uciCache[code] = s;
  }
  return s;
}

/** Parse lower-case UCI text into a code; -1 when it is not well-formed. */
export function uciToCode(uci: string): number {
  if (uci.length !== 4 && uci.length !== 5) return -1;
  const from = parseSquare(uci, 0);
  const to = parseSquare(uci, 2);
  if (from < 0 || to < 0) return -1;
  let promo = 0;
  if (uci.length === 5) {
    promo = PROMO_SUFFIX.indexOf(uci[4] as (typeof PROMO_SUFFIX)[number]);
    if (promo <= 0) return -1;
  }
  return MOVE_BASE[(from << 6) | to] | promo;
}

// Step tables for knights and kings: targets per square, flattened, each list in file-major order
// so generated moves come out (nearly) sorted.
function stepTable(deltas: readonly (readonly [number, number])[]): { start: Int32Array; list: Uint8Array } {
  const start = new Int32Array(65);
  const list: number[] = [];
  for (let sq = 0; sq < 64; sq++) {
    start[sq] = list.length;
    const f = sq & 7;
    const r = sq >> 3;
    const targets: number[] = [];
    for (const [df, dr] of deltas) {
      const nf = f + df;
      const nr = r + dr;
      if (nf >= 0 && nf < 8 && nr >= 0 && nr < 8) targets.push(nr * 8 + nf);
    }
    targets.sort((a, b) => TRANSPOSE[a] - TRANSPOSE[b]);
    list.push(...targets);
  }
  start[64] = list.length;
  return { start, list: Uint8Array.from(list) };
}

const KNIGHT = stepTable([[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]]);
const KING = stepTable([[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]]);
export const KNIGHT_START = KNIGHT.start;
export const KNIGHT_LIST = KNIGHT.list;
export const KING_START = KING.start;
export const KING_LIST = KING.list;

// Slider rays: for square sq and direction d (0..3 orthogonal, 4..7 diagonal), the squares from the
// nearest outwards are RAY_LIST[RAY_START[sq*8+d] .. RAY_START[sq*8+d+1]).
const DIRS: readonly (readonly [number, number])[] = [
  [0, 1], [0, -1], [1, 0], [-1, 0], [1, 1], [1, -1], [-1, 1], [-1, -1],
];
export const RAY_START = new Int32Array(64 * 8 + 1);
const rayList: number[] = [];
for (let sq = 0; sq < 64; sq++) {
  for (let d = 0; d < 8; d++) {
    RAY_START[sq * 8 + d] = rayList.length;
    let f = (sq & 7) + DIRS[d][0];
    let r = (sq >> 3) + DIRS[d][1];
    while (f >= 0 && f < 8 && r >= 0 && r < 8) {
      rayList.push(r * 8 + f);
      f += DIRS[d][0];
      r += DIRS[d][1];
    }
  }
}
RAY_START[64 * 8] = rayList.length;
export const RAY_LIST = Uint8Array.from(rayList);

// En passant targets live in a 16-bit mask: bit f is the rank-3 target on file f (made by a White
// double push, usable by Black), bit 8+f the rank-6 target (made by Black, usable by White).
export const EP_WHITE_MADE = 0x00ff;
export const EP_BLACK_MADE = 0xff00;
export const epBitOfSquare = (sq: number): number => {
  const r = sq >> 3;
  if (r === 2) return 1 << (sq & 7);
  if (r === 5) return 1 << (8 + (sq & 7));
  return 0;
};
export const epSquareOfBit = (bit: number): number => (bit < 8 ? 16 + bit : 40 + (bit - 8));
/**
 * Targets to drop when a piece leaves, lands on, or is captured on a square: a target goes when
 * something lands on it, and when the double-pushed pawn in front of it (rank 4 / rank 5) moves or
 * is captured.
 */
export const EP_CLEAR = new Uint16Array(64);
for (let sq = 0; sq < 64; sq++) {
  const r = sq >> 3;
  const f = sq & 7;
  if (r === 2 || r === 3) EP_CLEAR[sq] = 1 << f;
  if (r === 4 || r === 5) EP_CLEAR[sq] = 1 << (8 + f);
}

// Castling rights bits (Position.castling): 1 K, 2 Q, 4 k, 8 q.
/** Rights kept when something is captured on a square (a capture on a corner ends that right). */
export const CAPTURE_KEEP = new Uint8Array(64).fill(15);
CAPTURE_KEEP[7] = 15 & ~1;
CAPTURE_KEEP[0] = 15 & ~2;
CAPTURE_KEEP[63] = 15 & ~4;
CAPTURE_KEEP[56] = 15 & ~8;
