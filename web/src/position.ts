// Just enough of a position for drawing: the placement of a FEN, and a UCI micro-move applied to it
// the way the rules move pieces (castling moves the rook, en passant removes the pawn behind,
// promotion swaps the piece). Legality is never judged here: the server's legal-move tree does that.

/** 64 squares, a1 = 0 … h8 = 63; a piece letter (upper case White) or ''. */
export type Placement = string[];

export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

export function parsePlacement(fen: string): Placement {
  const board: Placement = new Array<string>(64).fill('');
  const ranks = fen.split(' ')[0].split('/');
  ranks.forEach((row, i) => {
    const rank = 7 - i;
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) file += Number(ch);
      else board[rank * 8 + file++] = ch;
    }
  });
  return board;
}

export const squareIndex = (sq: string): number => (sq.charCodeAt(1) - 49) * 8 + (sq.charCodeAt(0) - 97);
export const squareName = (i: number): string => String.fromCharCode(97 + (i % 8)) + String.fromCharCode(49 + Math.floor(i / 8));

/** Die face a piece letter spends: 1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king. */
export const FACE_OF: Readonly<Record<string, number>> = { p: 1, n: 2, b: 3, r: 4, q: 5, k: 6 };
export const LETTER_OF_FACE = ['', 'p', 'n', 'b', 'r', 'q', 'k'];

/** The dice faces a micro-move spends on this placement (castling spends the king and rook dice). */
export function facesSpent(board: Placement, uci: string): number[] {
  const from = squareIndex(uci.slice(0, 2));
  const to = squareIndex(uci.slice(2, 4));
  const piece = board[from].toLowerCase();
  if (piece === 'k' && Math.abs((from % 8) - (to % 8)) === 2) return [6, 4];
  return piece ? [FACE_OF[piece]] : [];
}

/** A new placement after one micro-move. */
export function applyUci(board: Placement, uci: string): Placement {
  const next = board.slice();
  const from = squareIndex(uci.slice(0, 2));
  const to = squareIndex(uci.slice(2, 4));
  const piece = next[from];
  const lower = piece.toLowerCase();
  const white = piece === piece.toUpperCase();
  if (lower === 'p' && from % 8 !== to % 8 && next[to] === '') {
    next[to + (white ? -8 : 8)] = ''; // en passant: the pawn behind the target goes
  }
  if (lower === 'k' && Math.abs((from % 8) - (to % 8)) === 2) {
    const rank = Math.floor(from / 8) * 8;
    const kingSide = to % 8 === 6;
    const rookFrom = rank + (kingSide ? 7 : 0);
    const rookTo = rank + (kingSide ? 5 : 3);
    next[rookTo] = next[rookFrom];
    next[rookFrom] = '';
  }
  next[from] = '';
  next[to] = uci.length > 4 ? (white ? uci[4].toUpperCase() : uci[4].toLowerCase()) : piece;
  return next;
}

/** The dice of a DFEN (7th field) as faces, in value order; [] without one. */
export function diceOfDfen(dfen: string): number[] {
  const field = dfen.split(' ')[6];
  if (!field || field === '-') return [];
  return [...field.toLowerCase()].map((c) => FACE_OF[c] ?? 0).filter((f) => f > 0);
}

/** Number of the full move of a FEN (6th field). */
export const fullMove = (fen: string): number => Number(fen.split(' ')[5] ?? '1') || 1;
