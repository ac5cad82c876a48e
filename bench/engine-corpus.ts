// A deterministic benchmark corpus: (position, roll) pairs met in random playouts from the start
// position, driven by a fixed-seed PRNG so every run measures the same rolls. Only the generator
// is committed, not its output.

import { START_FEN, applyTurn, legalTree, parseDfen, passTurn, treePaths, withDice, type Position } from '../src/engine/index.js';

/** xorshift32: tiny and deterministic; quality is irrelevant here, repeatability is what counts. */
export function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

export const CORPUS_SEED = 0x5eed1234;

/** `size` positions with a pending roll, from playouts of at most `maxPlies` turns each. */
export function buildCorpus(size = 2000, maxPlies = 120, seed = CORPUS_SEED): Position[] {
  const rnd = xorshift(seed);
  const out: Position[] = [];
  while (out.length < size) {
    let fen = START_FEN;
    for (let ply = 0; ply < maxPlies && out.length < size; ply++) {
      const dice = [0, 0, 0].map(() => 1 + Math.floor(rnd() * 6));
      const dfen = withDice(fen, dice);
      if (!dfen.ok) throw new Error(dfen.error.message);
      const parsed = parseDfen(dfen.value);
      if (!parsed.ok) throw new Error(parsed.error.message);
      const pos = parsed.value;
      out.push(pos);
      const tree = legalTree(pos);
      if (tree.leaves === 0) {
        fen = passTurn(pos).fenAfter;
        continue;
      }
      const paths = treePaths(tree.bytes);
      const turn = applyTurn(pos, paths[Math.floor(rnd() * paths.length)]);
      if (!turn.ok) throw new Error(turn.error.message);
      if (turn.value.kingCaptured || turn.value.halfmove >= 100) break;
      fen = turn.value.fenAfter;
    }
  }
  return out;
}
