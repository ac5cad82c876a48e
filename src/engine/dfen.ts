// DFEN (docs/ENGINE.md: DFEN): FEN plus an optional seventh field of pending dice as piece letters.
// Parsing reports every malformed case as a value with a stable snake_case code.

import { epBitOfSquare, parseSquare, squareName } from './squares.js';
import { type DfenError, type Position, type Result, fail, ok } from './types.js';

const PIECE_OF: Record<string, number> = {
  P: 1, N: 2, B: 3, R: 4, Q: 5, K: 6, p: -1, n: -2, b: -3, r: -4, q: -5, k: -6,
};
const LETTERS = ' PNBRQK';
const CASTLE_BITS: Record<string, number> = { K: 1, Q: 2, k: 4, q: 8 };
/** Counters are capped so they stay small integers; real games never come near. */
const MAX_COUNTER_DIGITS = 9;

export function parseDfen(text: string): Result<Position, DfenError> {
  if (typeof text !== 'string') return fail('bad_field_count', 'DFEN must be a string');
  const fields = text.split(' ');
  if (fields.length < 4 || fields.length > 7) {
    return fail('bad_field_count', `expected 4 to 7 space-separated fields, got ${fields.length}`);
  }
  if (fields.some((f) => f.length === 0)) {
    return fail('bad_field_count', 'fields must be separated by single spaces with no leading or trailing space');
  }
  const board = parsePlacement(fields[0]);
  if (!board.ok) return board;
  const side = fields[1];
  if (side !== 'w' && side !== 'b') return fail('bad_side', `side to move must be "w" or "b", got "${side}"`);
  const castling = parseCastling(fields[2]);
  if (!castling.ok) return castling;
  const ep = parseTargets(fields[3]);
  if (!ep.ok) return ep;
  let halfmove = 0;
  let fullmove = 1;
  if (fields.length >= 5) {
    const h = parseCounter(fields[4], 'halfmove', 0);
    if (!h.ok) return h;
    halfmove = h.value;
  }
  if (fields.length >= 6) {
    const f = parseCounter(fields[5], 'fullmove', 1);
    if (!f.ok) return f;
    fullmove = f.value;
  }
  let dice: number[] = [];
  if (fields.length === 7) {
    const d = parseDice(fields[6]);
    if (!d.ok) return d;
    dice = d.value;
  }
  return ok({ board: board.value, turn: side === 'w' ? 0 : 1, castling: castling.value, ep: ep.value, halfmove, fullmove, dice });
}

function parsePlacement(text: string): Result<Int8Array, DfenError> {
  const ranks = text.split('/');
  if (ranks.length !== 8) return fail('bad_rank_count', `placement must have 8 ranks separated by "/", got ${ranks.length}`);
  const board = new Int8Array(64);
  for (let i = 0; i < 8; i++) {
    const rank = 7 - i; // FEN lists rank 8 first
    let file = 0;
    for (const ch of ranks[i]) {
      if (ch >= '1' && ch <= '8') {
        file += ch.charCodeAt(0) - 48;
      } else {
        const piece = PIECE_OF[ch];
        if (piece === undefined) return fail('bad_piece', `unknown piece letter "${ch}" on rank ${rank + 1}`);
        if (file < 8) board[rank * 8 + file] = piece;
        file++;
      }
      if (file > 8) break;
    }
    if (file !== 8) return fail('bad_rank_width', `rank ${rank + 1} ("${ranks[i]}") must describe 8 squares`);
  }
  return ok(board);
}

function parseCastling(text: string): Result<number, DfenError> {
  if (text === '-') return ok(0);
  let bits = 0;
  for (const ch of text) {
    const bit = CASTLE_BITS[ch];
    if (bit === undefined) return fail('bad_castling', `castling must be "-" or letters from KQkq, got "${text}"`);
    if ((bits & bit) !== 0) return fail('bad_castling', `castling right "${ch}" is repeated in "${text}"`);
    bits |= bit;
  }
  return ok(bits);
}

function parseTargets(text: string): Result<number[], DfenError> {
  if (text === '-') return ok([]);
  if (text.length % 2 !== 0) return fail('bad_square', `en passant field "${text}" is not a list of squares`);
  const seen = new Set<number>();
  for (let i = 0; i < text.length; i += 2) {
    const sq = parseSquare(text, i);
    const name = text.slice(i, i + 2);
    if (sq < 0) return fail('bad_square', `"${name}" in the en passant field is not a square`);
    if (epBitOfSquare(sq) === 0) return fail('bad_square', `en passant target ${name} is not on rank 3 or 6`);
    if (seen.has(sq)) return fail('duplicate_target', `en passant target ${name} is listed twice`);
    seen.add(sq);
  }
  return ok([...seen].sort((a, b) => a - b));
}

function parseCounter(text: string, name: string, min: number): Result<number, DfenError> {
  if (!/^[0-9]+$/.test(text) || text.length > MAX_COUNTER_DIGITS) {
    return fail('bad_counter', `${name} must be a non-negative integer of at most ${MAX_COUNTER_DIGITS} digits, got "${text}"`);
  }
  const v = Number(text);
  if (v < min) return fail('bad_counter', `${name} must be at least ${min}, got ${v}`);
  return ok(v);
}

function parseDice(text: string): Result<number[], DfenError> {
  if (text === '-') return ok([]);
  if (text.length > 3) return fail('too_many_dice', `at most three dice may be pending, got "${text}"`);
  const dice: number[] = [];
  for (const ch of text) {
    const face = LETTERS.indexOf(ch.toUpperCase());
    if (face <= 0) return fail('bad_dice', `"${ch}" is not a die letter (P N B R Q K, either case)`);
    dice.push(face);
  }
  return ok(dice.sort((a, b) => a - b));
}

/** Six fields, plus the dice field when dice are pending (docs/ENGINE.md, DFEN: output order and case). */
export function formatDfen(pos: Position): string {
  let s = placementOf(pos.board) + (pos.turn === 0 ? ' w ' : ' b ');
  s += castlingText(pos.castling) + ' ';
  s += pos.ep.length === 0 ? '-' : [...pos.ep].sort((a, b) => a - b).map(squareName).join('');
  s += ' ' + pos.halfmove + ' ' + pos.fullmove;
  if (pos.dice.length > 0) s += ' ' + diceText(pos.dice, pos.turn);
  return s;
}

export function diceText(dice: readonly number[], turn: 0 | 1): string {
  const text = [...dice].sort((a, b) => a - b).map((d) => LETTERS[d]).join('');
  return turn === 0 ? text : text.toLowerCase();
}

function castlingText(bits: number): string {
  let s = '';
  if (bits & 1) s += 'K';
  if (bits & 2) s += 'Q';
  if (bits & 4) s += 'k';
  if (bits & 8) s += 'q';
  return s === '' ? '-' : s;
}

function placementOf(board: Int8Array): string {
  let s = '';
  for (let rank = 7; rank >= 0; rank--) {
    let empty = 0;
    for (let file = 0; file < 8; file++) {
      const p = board[rank * 8 + file];
      if (p === 0) {
        empty++;
        continue;
      }
      if (empty > 0) s += empty;
      empty = 0;
      s += p > 0 ? LETTERS[p] : LETTERS[-p].toLowerCase();
    }
    if (empty > 0) s += empty;
    if (rank > 0) s += '/';
  }
  return s;
}
