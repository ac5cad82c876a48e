// The mutable search-time position: a 64-square mailbox plus the state a micro-move can change,
// with make/unmake on a fixed undo stack so the turn enumeration and perft never copy boards.

import { CAPTURE_KEEP, EP_BLACK_MADE, EP_CLEAR, EP_WHITE_MADE, PROMO_TYPE, TRANSPOSE, epBitOfSquare, epSquareOfBit } from './squares.js';
import type { Position } from './types.js';

const UNDO_WIDTH = 8;

export class Board {
  /** a1=0 … h8=63; +1..+6 white P N B R Q K, negative for black. */
  readonly sq = new Int8Array(64);
  /** 0 white, 1 black. */
  turn: 0 | 1 = 0;
  castling = 0;
  /** En passant targets as a 16-bit mask (see squares.ts). */
  ep = 0;
  halfmove = 0;
  fullmove = 1;
  private undo = new Int32Array(UNDO_WIDTH * 64);
  private top = 0;

  static fromPosition(pos: Position): Board {
    const b = new Board();
    b.sq.set(pos.board);
    b.turn = pos.turn;
    b.castling = pos.castling;
    let ep = 0;
    for (const t of pos.ep) ep |= epBitOfSquare(t);
    b.ep = ep;
    b.halfmove = pos.halfmove;
    b.fullmove = pos.fullmove;
    return b;
  }

  toPosition(dice: number[]): Position {
    const ep: number[] = [];
    for (let bit = 0; bit < 16; bit++) if ((this.ep >> bit) & 1) ep.push(epSquareOfBit(bit));
    return {
      board: Int8Array.from(this.sq),
      turn: this.turn,
      castling: this.castling,
      ep,
      halfmove: this.halfmove,
      fullmove: this.fullmove,
      dice,
    };
  }

  /**
   * Play one micro-move (a code from movegen, assumed pseudo-legal here) and return the captured
   * piece (signed, 0 for none). Castling is recognised as a king moving two files, en passant as a
   * pawn moving diagonally onto an empty square.
   */
  make(code: number): number {
    const b = this.sq;
    const from = TRANSPOSE[code >> 9];
    const to = TRANSPOSE[(code >> 3) & 63];
    const p = b[from];
    const white = p > 0;
    const type = white ? p : -p;
    let cap = b[to];
    let capSq = to;
    let placed = p;
    let castling = this.castling;
    let clear = EP_CLEAR[from] | EP_CLEAR[to];
    let made = 0;
    if (type === 1) {
      if (cap === 0 && ((from ^ to) & 7) !== 0) {
        capSq = white ? to - 8 : to + 8;
        cap = b[capSq];
        b[capSq] = 0;
        clear |= EP_CLEAR[capSq];
      }
      const promo = code & 7;
      if (promo !== 0) placed = white ? PROMO_TYPE[promo] : -PROMO_TYPE[promo];
      const d = to - from;
      if (d === 16) made = 1 << (from & 7);
      else if (d === -16) made = 1 << (8 + (from & 7));
    } else if (type === 6) {
      castling &= white ? 12 : 3;
      if (to - from === 2) {
        b[from + 1] = b[from + 3];
        b[from + 3] = 0;
      } else if (from - to === 2) {
        b[from - 1] = b[from - 4];
        b[from - 4] = 0;
      }
    } else if (type === 4) {
      // Only a rook leaving its own corner ends that side's right.
      if (white) {
        if (from === 7) castling &= ~1;
        else if (from === 0) castling &= ~2;
      } else if (from === 63) castling &= ~4;
      else if (from === 56) castling &= ~8;
    }
    if (cap !== 0) castling &= CAPTURE_KEEP[capSq];
    if (this.top + UNDO_WIDTH > this.undo.length) this.growUndo();
    const u = this.undo;
    const k = this.top;
    u[k] = code;
    u[k + 1] = p;
    u[k + 2] = cap;
    u[k + 3] = capSq;
    u[k + 4] = this.castling;
    u[k + 5] = this.ep;
    u[k + 6] = this.halfmove;
    this.top = k + UNDO_WIDTH;
    b[to] = placed;
    b[from] = 0;
    this.castling = castling;
    this.ep = (this.ep & ~clear) | made;
    this.halfmove = type === 1 || cap !== 0 ? 0 : this.halfmove + 1;
    return cap;
  }

  private growUndo(): void {
    const next = new Int32Array(this.undo.length * 2);
    next.set(this.undo);
    this.undo = next;
  }

  unmake(): void {
    const u = this.undo;
    const k = (this.top -= UNDO_WIDTH);
    const code = u[k];
    const from = TRANSPOSE[code >> 9];
    const to = TRANSPOSE[(code >> 3) & 63];
    const p = u[k + 1];
    const b = this.sq;
    b[from] = p;
    b[to] = 0;
    b[u[k + 3]] = u[k + 2];
    if (p === 6 || p === -6) {
      if (to - from === 2) {
        b[from + 3] = b[from + 1];
        b[from + 1] = 0;
      } else if (from - to === 2) {
        b[from - 4] = b[from - 1];
        b[from - 1] = 0;
      }
    }
    this.castling = u[k + 4];
    this.ep = u[k + 5];
    this.halfmove = u[k + 6];
  }

  /**
   * End the turn (docs/ENGINE.md: counters and draws): flip the side, count a full move after Black, and delete the
   * targets the mover could have used (those made by the side about to move). Returns the ep mask
   * before, for endTurnUndo.
   */
  endTurn(): number {
    const before = this.ep;
    if (this.turn === 0) {
      this.ep &= EP_WHITE_MADE;
      this.turn = 1;
    } else {
      this.ep &= EP_BLACK_MADE;
      this.turn = 0;
      this.fullmove++;
    }
    return before;
  }

  endTurnUndo(epBefore: number): void {
    if (this.turn === 1) this.turn = 0;
    else {
      this.turn = 1;
      this.fullmove--;
    }
    this.ep = epBefore;
  }
}
