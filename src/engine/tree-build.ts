// Turn enumeration and the legal-move tree (docs/ENGINE.md: the turn, the legal-move tree), built straight into the binary format
// of tree-format.ts.
//
// One depth-first walk over every micro-move sequence records the whole sequence tree in flat
// scratch arrays (children of a node are contiguous and get larger ids than it, so a reverse sweep visits
// children before parents). Each dead end is a king capture or a maximal sequence with the dice it
// spent. Only after the walk is the maximum-rule bar known, so a second sweep keeps king captures
// and the maximal sequences that reach the bar, and the emitter writes the kept nodes.

import { Board } from './board.js';
import { genMovesFrom, sortCodes } from './movegen.js';
import { TRANSPOSE } from './squares.js';
import { HEADER_SIZE, TREE_MAGIC, TREE_VERSION } from './tree-format.js';
import type { Position, TreeResult } from './types.js';

const KIND_INTERIOR = 0;
const KIND_KING_CAPTURE = 1;
const KIND_MAXIMAL = 2;
/** Move-buffer room per level: more than any position can generate (64 pieces × 27 targets). */
const LEVEL_ROOM = 2048;

let cap = 0;
let tMove: Uint16Array = new Uint16Array(0);
let tFirst: Int32Array = new Int32Array(0);
let tCount: Int32Array = new Int32Array(0);
let tKind: Uint8Array = new Uint8Array(0);
let tSpent: Uint8Array = new Uint8Array(0);
let tLeaves: Int32Array = new Int32Array(0);
let tKept: Int32Array = new Int32Array(0);
let nodes = 0;
let best = 0;
let moveBuf: Uint16Array = new Uint16Array(LEVEL_ROOM * 4);
const counts = new Int8Array(7);
/** Squares of the mover's pieces (file-major order at the root), kept in step with make/unmake. */
const own = new Uint8Array(64);
let ownCount = 0;
/** Index in `own` of the piece on each square (valid for the mover's squares only). */
const ownAt = new Int8Array(64);

function grow(need: number): void {
  if (need <= cap) return;
  let next = Math.max(cap * 2, 4096);
  while (next < need) next *= 2;
  const copyU16 = (a: Uint16Array): Uint16Array => { const r = new Uint16Array(next); r.set(a); return r; };
  const copyI32 = (a: Int32Array): Int32Array => { const r = new Int32Array(next); r.set(a); return r; };
  const copyU8 = (a: Uint8Array): Uint8Array => { const r = new Uint8Array(next); r.set(a); return r; };
  tMove = copyU16(tMove);
  tFirst = copyI32(tFirst);
  tCount = copyI32(tCount);
  tKind = copyU8(tKind);
  tSpent = copyU8(tSpent);
  tLeaves = new Int32Array(next);
  tKept = new Int32Array(next);
  cap = next;
}

/** Expand `node`: generate its micro-moves with the unspent dice and walk each one. */
function expand(bd: Board, node: number, remaining: number, spent: number, sp: number): void {
  const b = bd.sq;
  const white = bd.turn === 0;
  let mask = 0;
  for (let t = 1; t <= 6; t++) if (counts[t] > 0) mask |= 1 << t;
  const end = genMovesFrom(b, white, bd.ep, bd.castling, mask, counts[6] > 0 && counts[4] > 0, own, ownCount, moveBuf, sp);
  const n = end - sp;
  if (n === 0) {
    tKind[node] = KIND_MAXIMAL;
    tSpent[node] = spent;
    if (spent > best) best = spent;
    return;
  }
  sortCodes(moveBuf, sp, end);
  grow(nodes + n);
  const first = nodes;
  nodes += n;
  tFirst[node] = first;
  tCount[node] = n;
  tKind[node] = KIND_INTERIOR;
  const enemyKing = white ? -6 : 6;
  for (let i = 0; i < n; i++) {
    const code = moveBuf[sp + i];
    const child = first + i;
    tMove[child] = code;
    const to = TRANSPOSE[(code >> 3) & 63];
    if (b[to] === enemyKing) {
      // The turn stops at a king capture; leftover dice are forfeited.
      tKind[child] = KIND_KING_CAPTURE;
      continue;
    }
    const from = TRANSPOSE[code >> 9];
    const p = b[from];
    const type = p > 0 ? p : -p;
    const castle = type === 6 && (to - from === 2 || from - to === 2);
    const cost = castle ? 2 : 1;
    if (remaining === cost) {
      // No die left: the sequence cannot be extended, so it is maximal without looking further.
      tKind[child] = KIND_MAXIMAL;
      tSpent[child] = spent + cost;
      if (spent + cost > best) best = spent + cost;
      continue;
    }
    counts[type]--;
    const slot = ownAt[from];
    own[slot] = to;
    ownAt[to] = slot;
    let rookFrom = 0;
    let rookTo = 0;
    if (castle) {
      counts[4]--;
      rookFrom = to > from ? from + 3 : from - 4;
      rookTo = to > from ? from + 1 : from - 1;
      own[ownAt[rookFrom]] = rookTo;
      ownAt[rookTo] = ownAt[rookFrom];
    }
    bd.make(code);
    expand(bd, child, remaining - cost, spent + cost, end);
    bd.unmake();
    counts[type]++;
    own[slot] = from;
    ownAt[from] = slot;
    if (castle) {
      counts[4]++;
      own[ownAt[rookTo]] = rookFrom;
      ownAt[rookFrom] = ownAt[rookTo];
    }
  }
}

/** Build the legal-move tree of `pos` (its pending dice) as one flat byte array. */
export function buildTree(pos: Position): TreeResult {
  counts.fill(0);
  for (const d of pos.dice) {
    if (!(d >= 1 && d <= 6 && Number.isInteger(d))) throw new RangeError(`die face out of range: ${d}`);
    counts[d]++;
  }
  const room = LEVEL_ROOM * (pos.dice.length + 1);
  if (moveBuf.length < room) moveBuf = new Uint16Array(room);
  const bd = Board.fromPosition(pos);
  ownCount = 0;
  for (let i = 0; i < 64; i++) {
    const sq = TRANSPOSE[i];
    const p = bd.sq[sq];
    if (p !== 0 && (p > 0) === (bd.turn === 0)) {
      ownAt[sq] = ownCount;
      own[ownCount++] = sq;
    }
  }
  grow(1);
  nodes = 1;
  best = 0;
  tKind[0] = KIND_INTERIOR;
  tCount[0] = 0;
  if (pos.dice.length > 0) expand(bd, 0, pos.dice.length, 0, 0);
  if (tCount[0] === 0) return emptyTree(); // no micro-move at all: a forced pass
  return emit();
}

function emptyTree(): TreeResult {
  const bytes = new Uint8Array(HEADER_SIZE + 2);
  writeHeader(bytes, 0);
  return { bytes, leaves: 0 };
}

function writeHeader(bytes: Uint8Array, leaves: number): void {
  bytes[0] = TREE_MAGIC;
  bytes[1] = TREE_VERSION;
  bytes[2] = leaves & 255;
  bytes[3] = (leaves >>> 8) & 255;
  bytes[4] = (leaves >>> 16) & 255;
  bytes[5] = leaves >>> 24;
}

/** Keep king captures and the maximal sequences at the bar, then write the kept nodes. */
function emit(): TreeResult {
  let size = HEADER_SIZE;
  for (let i = nodes - 1; i >= 0; i--) {
    const kind = tKind[i];
    if (kind === KIND_KING_CAPTURE) {
      tLeaves[i] = 1;
      tKept[i] = 0;
    } else if (kind === KIND_MAXIMAL) {
      tLeaves[i] = tSpent[i] === best ? 1 : 0;
      tKept[i] = 0;
    } else {
      let leaves = 0;
      let kept = 0;
      for (let c = tFirst[i], e = c + tCount[i]; c < e; c++) {
        if (tLeaves[c] > 0) {
          leaves += tLeaves[c];
          kept++;
        }
      }
      tLeaves[i] = leaves;
      tKept[i] = kept;
    }
    if (tLeaves[i] > 0) size += 2 + 6 * tKept[i];
  }
  const bytes = new Uint8Array(size);
  writeHeader(bytes, tLeaves[0]);
  emitNode(bytes, 0, HEADER_SIZE);
  return { bytes, leaves: tLeaves[0] };
}

function emitNode(bytes: Uint8Array, node: number, pos: number): number {
  const k = tKept[node];
  bytes[pos] = k & 255;
  bytes[pos + 1] = k >> 8;
  let mp = pos + 2;
  let op = mp + 2 * k;
  let cp = mp + 6 * k;
  if (k === 0) return cp;
  for (let c = tFirst[node], e = c + tCount[node]; c < e; c++) {
    if (tLeaves[c] === 0) continue;
    const m = tMove[c];
    bytes[mp] = m & 255;
    bytes[mp + 1] = m >> 8;
    mp += 2;
    bytes[op] = cp & 255;
    bytes[op + 1] = (cp >>> 8) & 255;
    bytes[op + 2] = (cp >>> 16) & 255;
    bytes[op + 3] = cp >>> 24;
    op += 4;
    cp = emitNode(bytes, c, cp);
  }
  return cp;
}
