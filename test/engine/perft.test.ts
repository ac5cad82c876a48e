// Single-die perft (docs/ENGINE.md: piece moves, en passant move generation; the perft convention itself is ours, see
// docs/ENGINE.md): each ply is a one-micro-move turn with the same die, then the turn end.
// Pinned numbers were produced by the naive reference (reference.ts) and the engine agreeing; the
// cross-check below recomputes the reference live at small depths.
import t from 'tap';
import { START_FEN, perft } from '../../src/engine/index.js';
import { KIWIPETE, mustParse } from '../helpers/engine.js';
import { refParse, refPerft } from '../helpers/engine-reference.js';

// Depths 1..5 for dice 1..6. Start position: the standard chess initial position.
const START_TABLE: number[][] = [
  [16, 256, 3846, 57744, 815968],
  [4, 16, 96, 576, 4148],
  [0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0],
];
// Kiwipete: Peter McKenna's position, from the Chess Programming Wiki "Perft Results" page.
const KIWI_TABLE: number[][] = [
  [8, 63, 450, 3440, 21516],
  [11, 112, 1116, 9879, 90206],
  [11, 78, 762, 5414, 51243],
  [5, 45, 225, 1800, 9000],
  [9, 37, 351, 2196, 21321],
  [4, 16, 24, 48, 80],
];

t.test('start position: single-die perft for all six dice', async (t) => {
  const pos = mustParse(START_FEN);
  for (let die = 1; die <= 6; die++) {
    for (let depth = 1; depth <= 5; depth++) t.equal(perft(pos, die, depth), START_TABLE[die - 1][depth - 1], `die ${die} depth ${depth}`);
  }
  t.equal(perft(pos, 1, 0), 1, 'depth 0 is one node');
});

t.test('Kiwipete: single-die perft for all six dice', async (t) => {
  const pos = mustParse(KIWIPETE);
  for (let die = 1; die <= 6; die++) {
    for (let depth = 1; depth <= 5; depth++) t.equal(perft(pos, die, depth), KIWI_TABLE[die - 1][depth - 1], `die ${die} depth ${depth}`);
  }
});

// Positions for the live cross-check. Sources: CPW "Perft Results" positions 3, 4 and 5; the rest
// are ours, built to stress dice-chess en passant (several targets, both colours) and promotion.
const CROSS: [string, string][] = [
  ['start', START_FEN],
  ['Kiwipete (CPW position 2)', KIWIPETE],
  ['CPW position 3', '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1'],
  ['CPW position 4', 'r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1'],
  ['CPW position 5', 'rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8'],
  ['three rank-6 targets', '4k3/8/8/pPpPp3/8/8/8/4K3 w - a6c6e6 0 1'],
  ['three rank-3 targets, Black', '4k3/8/8/8/PpPpP3/8/8/4K3 b - a3c3e3 0 1'],
  ['promotions with captures', 'r1n1k3/1P1P4/8/8/8/8/1p1p4/R1N1K3 w Q - 0 1'],
  ['castling both sides', 'r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1'],
];

t.test('engine perft equals the naive reference, all dice, depths 1..4', async (t) => {
  for (const [name, fen] of CROSS) {
    const pos = mustParse(fen);
    const ref = refParse(fen);
    for (let die = 1; die <= 6; die++) {
      for (let depth = 1; depth <= 4; depth++) t.equal(perft(pos, die, depth), refPerft(ref, die, depth), `${name}: die ${die} depth ${depth}`);
    }
  }
});
