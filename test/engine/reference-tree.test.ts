// The maximum-rule tree (docs/ENGINE.md: the turn, the legal-move tree) and turn application (en passant, counters and draws) against the naive reference,
// which lists every micro-move sequence and applies the turn literally, on positions from random playouts
// and on hand-made positions full of castling, en passant and promotion chances.
import t from 'tap';
import { applyTurn, legalTree, treePaths, treeToJson } from '../../src/engine/index.js';
import { KIWIPETE, START_FEN, playout, posWith, prng, roll } from '../helpers/engine.js';
import { refApply, refParse, refTree } from '../helpers/engine-reference.js';

const STARTS = [
  START_FEN,
  KIWIPETE,
  '4k3/8/8/pPpPp3/8/8/8/4K3 w - a6c6e6 0 1',
  'r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1',
  '4k3/P7/8/8/8/8/8/4K3 w - - 0 1',
  'rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq d6f6 0 3',
  '8/P1K5/1k6/8/8/8/8/8 w - - 0 1',
  'r3k2r/8/8/8/pPp5/8/8/R3K2R b KQkq b3 0 1',
];

/** null when both implementations agree, else a description of the first difference. */
function compare(fen: string, dice: number[], rnd: () => number): string | null {
  const pos = posWith(fen, dice);
  const bytes = legalTree(pos).bytes;
  const mine = treeToJson(bytes);
  const theirs = JSON.stringify(refTree(refParse(fen), dice));
  if (mine !== theirs) return `tree of ${fen} with ${dice.join(',')}:\n engine    ${mine.slice(0, 400)}\n reference ${theirs.slice(0, 400)}`;
  // Replay a few leaf paths through both implementations.
  const paths = treePaths(bytes);
  for (let k = 0; k < Math.min(3, paths.length); k++) {
    const path = paths[Math.floor(rnd() * paths.length)];
    const a = applyTurn(pos, path);
    const b = refApply(refParse(fen), dice, path);
    if (!a.ok || a.value.fenAfter !== b.fen || a.value.kingCaptured !== b.kingCaptured) {
      return `apply ${path.join(' ')} on ${fen}: engine ${JSON.stringify(a)} reference ${JSON.stringify(b)}`;
    }
  }
  return null;
}

t.test('every roll on the hand-made positions (all 56 multisets of three dice)', async (t) => {
  const rnd = prng(7);
  for (const fen of STARTS.slice(2)) {
    const bad: string[] = [];
    for (let a = 1; a <= 6; a++) {
      for (let b = a; b <= 6; b++) for (let c = b; c <= 6; c++) bad.push(compare(fen, [a, b, c], rnd) ?? '');
    }
    t.same(bad.filter((x) => x !== ''), [], `${fen}: all 56 rolls agree`);
  }
});

t.test('random playouts, random rolls', async (t) => {
  const rnd = prng(20240611);
  let n = 0;
  const bad: string[] = [];
  for (let game = 0; n < 240; game++) {
    for (const v of playout(STARTS[game % STARTS.length], 40, rnd)) {
      // The roll played in the playout, and a second independent roll on the same position.
      for (const dice of [v.dice, roll(rnd)]) {
        const d = compare(v.fen, dice, rnd);
        if (d !== null) bad.push(d);
        n++;
      }
    }
  }
  t.same(bad, [], `${n} positions and rolls agree`);
});
