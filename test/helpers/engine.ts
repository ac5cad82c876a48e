// Shared test helpers: a tiny seeded PRNG and random playouts through the engine.

import { START_FEN, applyTurn, legalTree, parseDfen, passTurn, treePaths, withDice, type Position } from '../../src/engine/index.js';
export { prng } from './prng.js';


export const roll = (rnd: () => number): number[] => [0, 0, 0].map(() => 1 + Math.floor(rnd() * 6));

export function mustParse(dfen: string): Position {
  const r = parseDfen(dfen);
  if (!r.ok) throw new Error(`test position does not parse: ${dfen}: ${r.error.code}`);
  return r.value;
}

export function posWith(fen: string, dice: number[]): Position {
  const d = withDice(fen, dice);
  if (!d.ok) throw new Error(`withDice failed: ${d.error.code}`);
  return mustParse(d.value);
}

export interface Visit {
  fen: string;
  dice: number[];
}

/**
 * Play `plies` random turns from `fen` (random rolls, a random leaf path each time) and return the
 * six-field positions visited with the roll made there. Stops early at a king capture.
 */
export function playout(fen: string, plies: number, rnd: () => number): Visit[] {
  const seen: Visit[] = [];
  let cur = fen;
  for (let i = 0; i < plies; i++) {
    const dice = roll(rnd);
    seen.push({ fen: cur, dice });
    const pos = posWith(cur, dice);
    const tree = legalTree(pos);
    if (tree.leaves === 0) {
      cur = passTurn(pos).fenAfter;
      continue;
    }
    const paths = treePaths(tree.bytes);
    const r = applyTurn(pos, paths[Math.floor(rnd() * paths.length)]);
    if (!r.ok) throw new Error(`a tree path did not replay: ${r.error.code}`);
    if (r.value.kingCaptured) break;
    cur = r.value.fenAfter;
  }
  return seen;
}

export const KIWIPETE = 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1';
export { START_FEN };
