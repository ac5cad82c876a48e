// A deliberately naive second implementation of the rules, written apart from src/engine to
// cross-check it: a board of 64 one-letter strings, coordinates as (file, rank) pairs, every state
// copied, and the turn rule of docs/ENGINE.md: the turn applied literally by listing every micro-move sequence.
// Slow on purpose; only small depths and single rolls go through it.
import type { Tree } from './play.js';

export interface RefState {
  /** board[rank * 8 + file]: '.' empty, 'PNBRQK' white, 'pnbrqk' black. */
  board: string[];
  white: boolean;
  castling: string;
  /** En passant target square names, any order. */
  ep: string[];
  halfmove: number;
  fullmove: number;
}

export interface RefMove {
  uci: string;
  /** Die faces spent (two for castling). */
  spend: number[];
  next: RefState;
  tookKing: boolean;
}

const TYPES = 'pnbrqk';
const name = (f: number, r: number): string => 'abcdefgh'[f] + (r + 1);
const on = (f: number, r: number): boolean => f >= 0 && f < 8 && r >= 0 && r < 8;
const isWhite = (c: string): boolean => c !== '.' && c === c.toUpperCase();
const typeOf = (c: string): number => TYPES.indexOf(c.toLowerCase()) + 1;

export function refParse(fen: string): RefState {
  const parts = fen.split(' ');
  const board: string[] = new Array(64).fill('.');
  const rows = parts[0].split('/');
  for (let i = 0; i < 8; i++) {
    let f = 0;
    for (const ch of rows[i]) {
      if (/[1-8]/.test(ch)) f += Number(ch);
      else board[(7 - i) * 8 + f++] = ch;
    }
  }
  const ep: string[] = [];
  if (parts[3] !== '-') for (let i = 0; i < parts[3].length; i += 2) ep.push(parts[3].slice(i, i + 2));
  return {
    board,
    white: parts[1] === 'w',
    castling: parts[2] === '-' ? '' : parts[2],
    ep,
    halfmove: Number(parts[4] ?? 0),
    fullmove: Number(parts[5] ?? 1),
  };
}

export function refFen(s: RefState): string {
  const rows: string[] = [];
  for (let r = 7; r >= 0; r--) {
    let row = '';
    let gap = 0;
    for (let f = 0; f < 8; f++) {
      const c = s.board[r * 8 + f];
      if (c === '.') gap++;
      else {
        if (gap) row += gap;
        gap = 0;
        row += c;
      }
    }
    if (gap) row += gap;
    rows.push(row);
  }
  const castling = ['K', 'Q', 'k', 'q'].filter((c) => s.castling.includes(c)).join('') || '-';
  const idx = (n: string): number => (Number(n[1]) - 1) * 8 + 'abcdefgh'.indexOf(n[0]);
  const ep = [...s.ep].sort((a, b) => idx(a) - idx(b)).join('') || '-';
  return `${rows.join('/')} ${s.white ? 'w' : 'b'} ${castling} ${ep} ${s.halfmove} ${s.fullmove}`;
}

function copy(s: RefState): RefState {
  return { ...s, board: s.board.slice(), ep: s.ep.slice() };
}

/** Play one micro-move from (ff,fr) to (tf,tr), with an optional promotion letter. */
function play(s: RefState, ff: number, fr: number, tf: number, tr: number, promo: string): { next: RefState; took: string } {
  const n = copy(s);
  const piece = n.board[fr * 8 + ff];
  const white = isWhite(piece);
  let took = n.board[tr * 8 + tf];
  let tookAt = [tf, tr];
  const type = typeOf(piece);
  if (type === 1 && ff !== tf && took === '.') {
    // en passant: the pawn beside the mover, behind the target
    tookAt = [tf, fr];
    took = n.board[fr * 8 + tf];
    n.board[fr * 8 + tf] = '.';
  }
  n.board[fr * 8 + ff] = '.';
  n.board[tr * 8 + tf] = promo ? (white ? promo.toUpperCase() : promo) : piece;
  if (type === 6 && Math.abs(tf - ff) === 2) {
    const rookFrom = tf > ff ? 7 : 0;
    const rookTo = tf > ff ? 5 : 3;
    n.board[fr * 8 + rookTo] = n.board[fr * 8 + rookFrom];
    n.board[fr * 8 + rookFrom] = '.';
  }
  // castling rights
  const drop = (c: string): void => { n.castling = n.castling.replace(c, ''); };
  if (type === 6) { drop(white ? 'K' : 'k'); drop(white ? 'Q' : 'q'); }
  if (type === 4) {
    const from = name(ff, fr);
    if (white && from === 'h1') drop('K');
    if (white && from === 'a1') drop('Q');
    if (!white && from === 'h8') drop('k');
    if (!white && from === 'a8') drop('q');
  }
  if (took !== '.') {
    const at = name(tookAt[0], tookAt[1]);
    if (at === 'h1') drop('K');
    if (at === 'a1') drop('Q');
    if (at === 'h8') drop('k');
    if (at === 'a8') drop('q');
  }
  // en passant targets: landing on one, or the pushed pawn (in front of it) moving or being taken
  const pawnSquareOf = (t: string): string => t[0] + (t[1] === '3' ? '4' : '5');
  const gone = new Set([name(ff, fr), name(tookAt[0], tookAt[1])]);
  n.ep = n.ep.filter((t) => t !== name(tf, tr) && !gone.has(pawnSquareOf(t)));
  if (type === 1 && Math.abs(tr - fr) === 2) n.ep.push(name(ff, (fr + tr) / 2));
  n.halfmove = type === 1 || took !== '.' ? 0 : n.halfmove + 1;
  return { next: n, took };
}

/** End of turn (docs/ENGINE.md: en passant, counters and draws): the mover's usable targets die, the new ones live on. */
export function refEndTurn(s: RefState): RefState {
  const n = copy(s);
  const usableRank = s.white ? '6' : '3';
  n.ep = n.ep.filter((t) => t[1] !== usableRank);
  if (!s.white) n.fullmove++;
  n.white = !s.white;
  return n;
}

/** Every micro-move available with the unspent dice; `loneKingCastles` is for perft only. */
export function refMoves(s: RefState, dice: number[], loneKingCastles = false): RefMove[] {
  const out: RefMove[] = [];
  const faces = new Set(dice);
  const add = (ff: number, fr: number, tf: number, tr: number, promo: string, spend: number[]): void => {
    const { next, took } = play(s, ff, fr, tf, tr, promo);
    out.push({ uci: name(ff, fr) + name(tf, tr) + promo, spend, next, tookKing: took.toLowerCase() === 'k' });
  };
  const mine = (c: string): boolean => c !== '.' && isWhite(c) === s.white;
  const theirs = (c: string): boolean => c !== '.' && isWhite(c) !== s.white;
  const at = (f: number, r: number): string => s.board[r * 8 + f];
  for (let r = 0; r < 8; r++) {
    for (let f = 0; f < 8; f++) {
      const c = at(f, r);
      if (!mine(c) || !faces.has(typeOf(c))) continue;
      const t = typeOf(c);
      const spend = [t];
      const jump = (steps: number[][]): void => {
        for (const [df, dr] of steps) {
          if (on(f + df, r + dr) && !mine(at(f + df, r + dr))) add(f, r, f + df, r + dr, '', spend);
        }
      };
      const ride = (dirs: number[][]): void => {
        for (const [df, dr] of dirs) {
          let k = 1;
          while (on(f + df * k, r + dr * k)) {
            const there = at(f + df * k, r + dr * k);
            if (mine(there)) break;
            add(f, r, f + df * k, r + dr * k, '', spend);
            if (there !== '.') break;
            k++;
          }
        }
      };
      const straight = [[1, 0], [-1, 0], [0, 1], [0, -1]];
      const diagonal = [[1, 1], [1, -1], [-1, 1], [-1, -1]];
      if (t === 1) {
        const up = s.white ? 1 : -1;
        const last = s.white ? 7 : 0;
        const arrive = (tf: number, tr: number, kingThere: boolean): void => {
          if (tr === last && !kingThere) for (const p of ['q', 'r', 'b', 'n']) add(f, r, tf, tr, p, spend);
          else add(f, r, tf, tr, '', spend);
        };
        if (on(f, r + up) && at(f, r + up) === '.') {
          arrive(f, r + up, false);
          const start = s.white ? 1 : 6;
          if (r === start && at(f, r + 2 * up) === '.') add(f, r, f, r + 2 * up, '', spend);
        }
        for (const df of [-1, 1]) {
          if (!on(f + df, r + up)) continue;
          const there = at(f + df, r + up);
          if (theirs(there)) arrive(f + df, r + up, typeOf(there) === 6);
          const target = name(f + df, r + up);
          const usable = target[1] === (s.white ? '6' : '3');
          const beside = at(f + df, r);
          if (there === '.' && usable && s.ep.includes(target) && theirs(beside) && typeOf(beside) === 1) {
            add(f, r, f + df, r + up, '', spend);
          }
        }
      }
      if (t === 2) jump([[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]]);
      if (t === 3) ride(diagonal);
      if (t === 4) ride(straight);
      if (t === 5) ride([...straight, ...diagonal]);
      if (t === 6) jump([[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]]);
    }
  }
  const canCastle = loneKingCastles ? faces.has(6) : faces.has(6) && faces.has(4);
  if (canCastle) {
    const r = s.white ? 0 : 7;
    const K = s.white ? 'K' : 'k';
    const R = s.white ? 'R' : 'r';
    const spend = loneKingCastles ? [6] : [6, 4];
    if (at(4, r) === K) {
      if (s.castling.includes(s.white ? 'K' : 'k') && at(7, r) === R && at(5, r) === '.' && at(6, r) === '.') add(4, r, 6, r, '', spend);
      if (s.castling.includes(s.white ? 'Q' : 'q') && at(0, r) === R && at(1, r) === '.' && at(2, r) === '.' && at(3, r) === '.') add(4, r, 2, r, '', spend);
    }
  }
  return out;
}

export function refPerft(s: RefState, die: number, depth: number): number {
  if (depth === 0) return 1;
  let total = 0;
  for (const m of refMoves(s, [die], die === 6)) total += refPerft(refEndTurn(m.next), die, depth - 1);
  return total;
}

/**
 * The legal turns of docs/ENGINE.md: the turn read literally: every sequence ending in a king capture, plus every
 * maximal non-capturing sequence spending the most dice any maximal non-capturing sequence spends.
 */
export function refLegalTurns(s: RefState, dice: number[]): string[][] {
  const captures: string[][] = [];
  const maximal: { path: string[]; spent: number }[] = [];
  const walk = (st: RefState, left: number[], path: string[]): void => {
    const moves = refMoves(st, left);
    if (moves.length === 0) {
      maximal.push({ path, spent: dice.length - left.length });
      return;
    }
    for (const m of moves) {
      if (m.tookKing) {
        captures.push([...path, m.uci]);
        continue;
      }
      const rest = left.slice();
      for (const d of m.spend) rest.splice(rest.indexOf(d), 1);
      walk(m.next, rest, [...path, m.uci]);
    }
  };
  walk(s, dice, []);
  const bar = Math.max(-1, ...maximal.map((m) => m.spent));
  const turns = [...captures, ...maximal.filter((m) => m.spent === bar).map((m) => m.path)];
  return turns.filter((p) => p.length > 0); // the empty turn is a forced pass, not a path
}

/** The legal-move tree as a plain object with keys inserted in string order. */
export function refTree(s: RefState, dice: number[]): Tree {
  const root: Tree = {};
  for (const path of refLegalTurns(s, dice)) {
    let node = root;
    for (const m of path) node = node[m] ??= {};
  }
  const sorted = (t: Tree): Tree => {
    const out: Tree = {};
    for (const k of Object.keys(t).sort()) out[k] = sorted(t[k]);
    return out;
  };
  return sorted(root);
}

/** Apply a turn (a list of UCI micro-moves); the position is turned over unless a king fell. */
export function refApply(s: RefState, dice: number[], path: string[]): { fen: string; kingCaptured: boolean } {
  let st = s;
  let left = dice.slice();
  for (const uci of path) {
    const m = refMoves(st, left).find((x) => x.uci === uci);
    if (!m) throw new Error(`reference: ${uci} not playable`);
    for (const d of m.spend) left.splice(left.indexOf(d), 1);
    st = m.next;
    if (m.tookKing) return { fen: refFen(st), kingCaptured: true };
  }
  return { fen: refFen(refEndTurn(st)), kingCaptured: false };
}
