// Legal-move trees of hand-checked positions (docs/ENGINE.md: the turn, piece moves, the legal-move tree).
import t from 'tap';
import { START_FEN, applyTurn, legalTree, treeHasPath, treePaths, treeToJson, treeToObject } from '../../src/engine/index.js';
import { posWith } from '../helpers/engine.js';

const tree = (fen: string, dice: number[]) => legalTree(posWith(fen, dice));
const firstMoves = (fen: string, dice: number[]) => Object.keys(treeToObject(tree(fen, dice).bytes));

t.test('start position, one die (the turn, piece moves): counts derivable by hand', async (t) => {
  t.equal(tree(START_FEN, [1]).leaves, 16, 'pawn die: 8 single + 8 double pushes');
  t.same(firstMoves(START_FEN, [2]), ['b1a3', 'b1c3', 'g1f3', 'g1h3'], 'knight die');
  for (const d of [3, 4, 5, 6]) {
    const r = tree(START_FEN, [d]);
    t.equal(r.leaves, 0, `die ${d}: every piece is blocked, forced pass`);
    t.equal(treeToJson(r.bytes), '{}');
  }
});

t.test('start position, every pair of dice (the turn: the maximum rule)', async (t) => {
  // Derivations: PP: 16 first pushes, then the pushed pawn once more plus 7 pawns × 2 = 15 → 240.
  // PN: pawn first 16×4 − 4 (a3, c3, f3, h3 block a knight square) + 4 (d/e pushes free d2/e2) = 64;
  //     knight first 4 × 14 (the pawn in front of the knight is stuck) = 56 → 120.
  // PB: only d- and e-pawn pushes free a long diagonal (5 squares), b/g pushes a short one (2):
  //     4×5 + 4×2 = 28; any other pawn push leaves the B die unspendable and is cut by the maximum.
  // PR: a2a4 → Ra2/Ra3, a2a3 → Ra2, same on the h-file → 6.  PQ: d3→1, d4→2, e3/e4→4 each,
  //     c3/c4→3 each → 17.  PK: d-, e-, f-pawn pushes free d2, e2, f2 for the king → 6.
  // NN: Na3 then 3+2, Nc3 then 5+2, and mirrored → 24.  NR: each knight move frees a rook square → 4.
  // NB, NQ, NK: only the knight can move; the other die stays unspent → 4 one-move turns.
  const expected: Record<string, number> = {
    '1,1': 240, '1,2': 120, '1,3': 28, '1,4': 6, '1,5': 17, '1,6': 6,
    '2,2': 24, '2,3': 4, '2,4': 4, '2,5': 4, '2,6': 4,
    '3,3': 0, '3,4': 0, '3,5': 0, '3,6': 0, '4,4': 0, '4,5': 0, '4,6': 0, '5,5': 0, '5,6': 0, '6,6': 0,
  };
  for (let a = 1; a <= 6; a++) {
    for (let b = a; b <= 6; b++) {
      t.equal(tree(START_FEN, [a, b]).leaves, expected[`${a},${b}`], `dice ${a}+${b}`);
    }
  }
  const pb = tree(START_FEN, [1, 3]).bytes;
  t.notOk(treeHasPath(pb, ['a2a3']), 'a pawn push that wastes the bishop die is not a turn');
  t.ok(treeHasPath(pb, ['e2e4', 'f1a6']));
  const nr = treeToObject(tree(START_FEN, [2, 4]).bytes);
  t.same(nr, { b1a3: { a1b1: {} }, b1c3: { a1b1: {} }, g1f3: { h1g1: {} }, g1h3: { h1g1: {} } });
});

t.test('transpositions stay separate branches; keys sorted at every level (the legal-move tree)', async (t) => {
  const bytes = tree(START_FEN, [1, 1]).bytes;
  t.ok(treeHasPath(bytes, ['a2a3', 'b2b3']));
  t.ok(treeHasPath(bytes, ['b2b3', 'a2a3']));
  const walk = (o: Record<string, object>): void => {
    const keys = Object.keys(o);
    t.same(keys, [...keys].sort(), 'sorted');
    for (const k of keys) walk(o[k] as Record<string, object>);
  };
  walk(treeToObject(bytes));
});

const CASTLE = 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1';
t.test('castling needs a 6 and a 4 and spends both (the turn, piece moves)', async (t) => {
  const kr = tree(CASTLE, [6, 4]).bytes;
  t.ok(treeHasPath(kr, ['e1g1']), 'king side with K+R');
  t.ok(treeHasPath(kr, ['e1c1']), 'queen side with K+R');
  t.ok(treeHasPath(kr, ['e1f1', 'h1g1']), 'king then rook is still another turn');
  t.notOk(Object.keys(treeToObject(tree(CASTLE, [6]).bytes)).includes('e1g1'), 'a lone king die never castles');
  t.notOk(Object.keys(treeToObject(tree(CASTLE, [6, 6]).bytes)).includes('e1g1'));
  const krp = tree(CASTLE, [6, 4, 4]).bytes;
  t.ok(treeHasPath(krp, ['e1g1', 'a1b1']), 'castling then the spare rook die');
  t.ok(treeHasPath(krp, ['a1b1', 'e1g1']), 'rook h1 still castles after the a1 rook moved');
  t.notOk(treeHasPath(krp, ['a1b1', 'e1c1']), 'the a1 rook left its corner: no queen-side castling');
  const black = tree('r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1', [6, 4]).bytes;
  t.ok(treeHasPath(black, ['e8g8']));
  t.ok(treeHasPath(black, ['e8c8']));
});

t.test('castling out of, through and into attack is allowed (piece moves)', async (t) => {
  // A black queen gives check on the e-file; rooks watch d1/f1 (through) and c1/g1 (into).
  const fen = '2rrkrr1/8/8/4q3/8/8/8/R3K2R w KQ - 0 1';
  const bytes = tree(fen, [6, 4]).bytes;
  t.ok(treeHasPath(bytes, ['e1g1']));
  t.ok(treeHasPath(bytes, ['e1c1']));
});

t.test('castling needs the right, the king on e1, the rook on its corner and empty squares (piece moves)', async (t) => {
  const has = (fen: string, uci: string): boolean => Object.keys(treeToObject(tree(fen, [6, 4]).bytes)).includes(uci);
  t.notOk(has('4k3/8/8/8/8/8/8/R3K2R w Kq - 0 1', 'e1c1'), 'no Q right');
  t.ok(has('4k3/8/8/8/8/8/8/R3K2R w Kq - 0 1', 'e1g1'));
  t.notOk(has('4k3/8/8/8/8/8/8/4K2R w KQ - 0 1', 'e1c1'), 'right but no rook on a1');
  t.notOk(has('4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1', 'e1c1'), 'b1 occupied');
  t.notOk(has('4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1', 'e1g1'), 'g1 occupied');
  t.notOk(has('4k3/8/8/8/8/8/8/R4K1R w KQ - 0 1', 'f1h1'), 'king not on e1');
});

t.test('promotion: four micro-moves; the maximum rule can force one (piece moves)', async (t) => {
  t.same(firstMoves('4k3/P7/8/8/8/8/8/4K3 w - - 0 1', [1]), ['a7a8b', 'a7a8n', 'a7a8q', 'a7a8r']);
  // P+N with no knight on the board: only the knight promotion lets the N die be spent.
  t.same(treeToObject(tree('4k3/P7/8/8/8/8/8/4K3 w - - 0 1', [1, 2]).bytes), { a7a8n: { a8b6: {}, a8c7: {} } });
  // P+Q: promoting to a queen lets the Q die move it.
  const pq = treeToObject(tree('4k3/P7/8/8/8/8/8/4K3 w - - 0 1', [1, 5]).bytes);
  t.same(Object.keys(pq), ['a7a8q']);
  t.ok('a8e8' in pq.a7a8q, 'the new queen may capture the king');
  const black = treeToObject(tree('4k3/8/8/8/8/8/7p/4K3 b - - 0 1', [1, 4]).bytes);
  t.same(Object.keys(black), ['h2h1r'], 'Black promotes on rank 1 too');
});

t.test('a pawn capturing the king on the last rank has no suffix (piece moves)', async (t) => {
  t.same(treeToObject(tree('4k3/3P4/8/8/8/8/8/4K3 w - - 0 1', [1]).bytes), {
    d7d8b: {}, d7d8n: {}, d7d8q: {}, d7d8r: {}, d7e8: {},
  });
  const bytes = tree('4k3/3P4/8/8/8/8/8/4K3 w - - 0 1', [1, 1]).bytes;
  t.ok(treeHasPath(bytes, ['d7e8']));
  t.notOk(treeHasPath(bytes, ['d7e8q']));
});

t.test('king capture ends the turn at any length; it does not raise the bar (the turn)', async (t) => {
  const fen = '4k3/8/8/8/8/8/PPPP4/4R1K1 w - - 0 1';
  const bytes = tree(fen, [4, 1, 1]).bytes;
  t.ok(treeHasPath(bytes, ['e1e8']), 'immediate capture, two dice forfeited');
  t.ok(treeHasPath(bytes, ['a2a3', 'e1e8']), 'capture as the second micro-move');
  t.ok(treeHasPath(bytes, ['a2a3', 'b2b3', 'e1e8']), 'capture as the third micro-move');
  t.ok(treeHasPath(bytes, ['a2a3', 'b2b3', 'e1e2']), 'full non-capturing turns are there');
  t.notOk(treeHasPath(bytes, ['e1e8', 'a2a3']), 'nothing follows a king capture');
  t.notOk(treeHasPath(bytes, ['a2a3', 'b2b3']), 'a prefix is not a turn');
  const pos = posWith(fen, [4, 1, 1]);
  let short = 0;
  let wrong = 0;
  for (const p of treePaths(bytes)) {
    const r = applyTurn(pos, p);
    if (!r.ok || (!r.value.kingCaptured && p.length !== 3)) wrong++;
    if (r.ok && r.value.kingCaptured && p.length < 3) short++;
  }
  t.equal(wrong, 0, 'every non-capturing turn spends all three dice');
  t.ok(short > 1, 'king captures shorter than the maximum are present');
});

t.test('a longer king capture does not raise the bar for the other turns (the turn)', async (t) => {
  // P+N, no knight: only promoting to a knight reaches the N die, and that knight's only move takes
  // the king (c7 is White's own king). Non-capturing turns spend one die; the capture spends two and
  // must not push them out.
  t.same(treeToObject(tree('8/P1K5/1k6/8/8/8/8/8 w - - 0 1', [1, 2]).bytes), {
    a7a8b: {}, a7a8n: { a8b6: {} }, a7a8q: {}, a7a8r: {},
  });
});

t.test('a sequence whose only continuation is a king capture is not a turn (the turn)', async (t) => {
  const bytes = tree('8/8/8/8/pk6/8/P7/7K w - - 0 1', [1, 1]).bytes;
  t.same(treeToObject(bytes), { a2a3: { a3b4: {} } });
  t.notOk(treeHasPath(bytes, ['a2a3']));
});

t.test('forced pass: no micro-move at all gives the empty tree (the turn, the legal-move tree)', async (t) => {
  const r = tree(START_FEN, [3, 4, 5]);
  t.equal(r.leaves, 0);
  t.equal(treeToJson(r.bytes), '{}');
  t.same(treePaths(r.bytes), []);
  t.notOk(treeHasPath(r.bytes, []));
  t.equal(legalTree(posWith(START_FEN, [])).leaves, 0, 'no dice pending: nothing to play');
});

t.test('equal paths reached with different (equal-valued) dice are one path (the legal-move tree)', async (t) => {
  const r = tree('4k3/8/8/8/8/8/8/N3K3 w - - 0 1', [2, 2]);
  const paths = treePaths(r.bytes).map((p) => p.join(' '));
  t.equal(new Set(paths).size, paths.length, 'no duplicate paths');
  t.equal(r.leaves, paths.length);
});
