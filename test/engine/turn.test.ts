// Applying turns: en passant lifetime, castling rights, counters, king capture, draws (docs/ENGINE.md: piece moves, en passant, counters and draws).
import t from 'tap';
import {
  START_FEN, applyTurn, capturedBy, isDraw, legalTree, passTurn, treeHasPath, treeToObject, type TurnOutcome,
} from '../../src/engine/index.js';
import { posWith } from '../helpers/engine.js';

function play(fen: string, dice: number[], moves: string[]): TurnOutcome {
  const r = applyTurn(posWith(fen, dice), moves);
  if (!r.ok) throw new Error(`${moves.join(' ')}: ${r.error.code} ${r.error.message}`);
  return r.value;
}
const firstMoves = (fen: string, dice: number[]): string[] => Object.keys(treeToObject(legalTree(posWith(fen, dice)).bytes));

t.test('end of turn: side flips, fullmove after Black, dice emptied (counters and draws)', async (t) => {
  const w = play(START_FEN, [1, 1, 2], ['e2e4', 'd2d4', 'g1f3']);
  t.equal(w.fenAfter, 'rnbqkbnr/pppppppp/8/8/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq d3e3 1 1');
  t.equal(w.kingCaptured, false);
  t.equal(w.halfmove, 1, 'pawn moves reset, the knight move counts +1');
  const b = play(w.fenAfter, [1], ['e7e5']);
  t.equal(b.fenAfter, 'rnbqkbnr/pppp1ppp/8/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R w KQkq e6 0 2', 'rank-3 targets die after Black moves');
});

t.test('forced pass turns the position over without touching the halfmove clock (the turn, counters and draws)', async (t) => {
  const p = passTurn(posWith('4k3/8/8/8/8/8/8/4K3 b - e3 17 9', [3]));
  t.same(p, { fenAfter: '4k3/8/8/8/8/8/8/4K3 w - - 17 10', kingCaptured: false, halfmove: 17 });
  const w = passTurn(posWith('4k3/8/8/8/8/8/8/4K3 w - a3h6 5 9', [3]));
  t.equal(w.fenAfter, '4k3/8/8/8/8/8/8/4K3 b - a3 5 9', 'White passing drops the rank-6 targets only');
});

const EP3 = '4k3/8/8/pPpPp3/8/8/8/4K3 w - a6c6e6 0 1';
t.test('several targets at once, all usable through the whole turn (en passant)', async (t) => {
  const bytes = legalTree(posWith(EP3, [1, 1, 1])).bytes;
  t.ok(treeHasPath(bytes, ['b5a6', 'd5c6', 'a6a7']), 'two en passant captures in one turn');
  t.ok(treeHasPath(bytes, ['b5c6', 'd5e6', 'c6c7']));
  t.ok(treeHasPath(bytes, ['e1e2'].slice(0, 0).concat(['b5b6', 'b6b7', 'd5e6'])), 'a third micro-move may still use one');
  const r = play(EP3, [1, 1, 1], ['b5a6', 'd5e6', 'e6e7']);
  t.equal(r.fenAfter, '4k3/4P3/P7/2p5/8/8/8/4K3 b - - 0 1', 'captured pawns removed; stale target c6 deleted at turn end');
  t.same(capturedBy(posWith(EP3, [1, 1, 1]), ['b5a6', 'd5e6', 'e6e7']), [1, 1, 0], 'en passant counts as a pawn capture');
});

t.test('a target disappears when a piece lands on it (en passant)', async (t) => {
  // White pawns b5, d5 beside the double-pushed c5 pawn; target c6; a knight on d4 can visit c6.
  const fen = '4k3/8/8/1PpP4/3N4/8/8/4K3 w - c6 0 1';
  const bytes = legalTree(posWith(fen, [2, 2, 1])).bytes;
  t.ok(treeHasPath(bytes, ['d4f3', 'f3g5', 'b5c6']), 'a knight elsewhere leaves the target alone');
  t.ok(treeHasPath(bytes, ['d4c6', 'c6a7', 'b5b6']), 'the knight visits c6 and leaves');
  t.notOk(treeHasPath(bytes, ['d4c6', 'c6a7', 'b5c6']), 'after it left, c6 is no target any more');
  t.notOk(treeHasPath(bytes, ['d4c6', 'c6a7', 'd5c6']));
  const r = play(fen, [2, 2, 1], ['d4c6', 'c6a7', 'b5b6']);
  t.equal(r.fenAfter, '4k3/N7/1P6/2pP4/8/8/8/4K3 b - - 0 1');
});

t.test('a target disappears when its pawn moves again or is captured (en passant)', async (t) => {
  t.equal(play(START_FEN, [1, 1, 2], ['e2e4', 'e4e5', 'g1f3']).fenAfter.split(' ')[3], '-', 'pushed pawn moved on');
  // Black to move: the d4 pawn may take e3 en passant, unless the e4 pawn is captured first.
  const fen = '4k3/8/8/8/3pP2r/8/8/4K3 b - e3 0 1';
  const bytes = legalTree(posWith(fen, [4, 1])).bytes;
  t.ok(treeHasPath(bytes, ['d4e3', 'h4h1']), 'en passant first');
  t.ok(treeHasPath(bytes, ['h4h1', 'd4e3']), 'en passant second (the target lives all turn)');
  t.notOk(treeHasPath(bytes, ['h4e4', 'd4e3']), 'after the rook takes e4 the target is gone');
  t.ok(treeHasPath(bytes, ['h4e4', 'd4d3']));
  t.equal(play(fen, [4, 1], ['d4e3', 'h4h1']).fenAfter, '4k3/8/8/8/8/4p3/8/4K2r w - - 1 2', 'en passant removes e4 (clock: reset, then +1)');
});

t.test('en passant only onto the opponent targets, only by an adjacent pawn (en passant)', async (t) => {
  // White cannot use its own rank-3 target.
  t.same(firstMoves('4k3/8/8/8/4P3/8/3P4/4K3 w - e3 0 1', [1]), ['d2d3', 'd2d4', 'e4e5']);
  // Black cannot use its own rank-6 target.
  t.same(firstMoves('4k3/3p4/8/4p3/8/8/8/4K3 b - e6 0 1', [1]), ['d7d5', 'd7d6', 'e5e4']);
  // A pawn not next to the pushed pawn cannot use the target.
  t.same(firstMoves('4k3/8/8/P3p3/8/8/8/4K3 w - e6 0 1', [1]), ['a5a6']);
});

t.test('targets expire: the mover\'s usable ones at its turn end, new ones survive one turn (en passant)', async (t) => {
  const w = play(START_FEN, [1, 1, 1], ['a2a4', 'c2c4', 'e2e4']);
  t.equal(w.fenAfter.split(' ')[3], 'a3c3e3', 'three targets at once, ascending');
  const b = play(w.fenAfter, [1, 1, 1], ['b7b5', 'b5a4', 'h7h5']);
  t.equal(b.fenAfter.split(' ')[3], 'h6', 'Black\'s b6 went when b5 moved; White\'s targets expired');
  const w2 = play(b.fenAfter, [2], ['b1c3']);
  t.equal(w2.fenAfter.split(' ')[3], '-', 'White did not use h6: it expires');
});

t.test('castling rights are lost by king moves, rook moves and captures on corners (piece moves)', async (t) => {
  const fen = 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1';
  t.equal(play(fen, [6, 4], ['e1g1']).fenAfter, 'r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1', 'castling moves both pieces');
  t.equal(play(fen, [6, 4], ['e1c1']).fenAfter, 'r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1');
  t.equal(play(fen, [6], ['e1e2']).fenAfter.split(' ')[2], 'kq', 'king move: both rights');
  t.equal(play(fen, [4], ['a1b1']).fenAfter.split(' ')[2], 'Kkq', 'a1 rook leaves');
  t.equal(play(fen, [4], ['h1h8']).fenAfter.split(' ')[2], 'Qq', 'h1 rook takes on h8: K and k gone');
  t.equal(play('r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1', [6, 4], ['e8c8']).fenAfter, '2kr3r/8/8/8/8/8/8/R3K2R w KQ - 1 2');
  // A knight capturing the a8 rook ends q even though it is not a rook move.
  t.equal(play('r3k2r/8/1N6/8/8/8/8/R3K2R w KQkq - 0 1', [2], ['b6a8']).fenAfter.split(' ')[2], 'KQk');
});

t.test('halfmove clock: +1 per non-pawn non-capture micro-move, castling +1, reset otherwise (counters and draws)', async (t) => {
  const fen = 'r3k2r/8/8/8/8/8/P7/R3K2R w KQkq - 97 30';
  t.equal(play(fen, [6, 4, 4], ['e1g1', 'a1b1']).halfmove, 99);
  const draw = play(fen, [4, 4, 4], ['a1b1', 'b1c1', 'c1d1']);
  t.equal(draw.halfmove, 100);
  t.ok(isDraw(draw.halfmove, 10), 'the 100-halfmove draw');
  t.equal(play(fen, [4, 4, 1], ['a1b1', 'b1c1', 'a2a3']).halfmove, 0, 'a pawn micro-move resets');
  t.equal(play(fen, [4, 4, 4], ['a1b1', 'h1h8', 'b1c1']).halfmove, 1, 'a capture resets, later moves count again');
  t.notOk(isDraw(99, 4999));
  t.ok(isDraw(0, 5000), '5000 rolls');
});

t.test('king capture: turn stops, position not turned over (the turn, counters and draws)', async (t) => {
  const r = play('4k3/8/8/8/8/8/PPPP4/4R1K1 w - - 5 12', [4, 1, 1], ['a2a3', 'e1e8']);
  t.same(r, { fenAfter: '4R3/8/8/8/8/P7/1PPP4/6K1 w - - 0 12', kingCaptured: true, halfmove: 0 });
  const more = applyTurn(posWith('4k3/8/8/8/8/8/PPPP4/4R1K1 w - - 5 12', [4, 1, 1]), ['e1e8', 'a2a3']);
  t.equal(!more.ok && more.error.code, 'moves_after_king_capture');
  t.same(capturedBy(posWith('4k3/8/8/8/8/8/PPPP4/4R1K1 w - - 5 12', [4, 1, 1]), ['a2a3', 'e1e8']), [0, 6]);
  const pawn = play('4k3/3P4/8/8/8/8/8/4K3 w - - 0 1', [1], ['d7e8']);
  t.equal(pawn.fenAfter, '4P3/8/8/8/8/8/8/4K3 w - - 0 1', 'the pawn stays a pawn on e8');
});

t.test('applyTurn rejects micro-moves that cannot be played (the turn, the legal-move tree)', async (t) => {
  const pos = posWith(START_FEN, [1, 2]);
  const code = (moves: string[]): string | null => {
    const r = applyTurn(pos, moves);
    return r.ok ? null : r.error.code;
  };
  t.equal(code(['E2E4']), 'bad_move');
  t.equal(code(['e2e9']), 'bad_move');
  t.equal(code(['e2e5']), 'illegal_move');
  t.equal(code(['f1c4']), 'illegal_move', 'no bishop die');
  t.equal(code(['e2e4', 'd2d4']), 'illegal_move', 'the pawn die is spent');
  t.equal(code(['e2e4', 'g1f3']), null);
  t.same(capturedBy(pos, ['e2e4', 'xx', 'g1f3']), [0, 0, 0], 'unplayable moves capture nothing');
});
