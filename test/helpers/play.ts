// Small pieces every whole-service test uses to play: reading the next event off a stream without
// ever hanging, the one legal-move tree type of the tests, and walkers over it.
import { leafPaths as houseLeafPaths } from '../../src/game/house.js';
import type { LineReader } from './http.js';

export type Tree = { [uci: string]: Tree };

/** The next non-blank line of a stream as JSON; undefined at its end; fails after `ms` instead of hanging. */
export async function nextEvent(stream: LineReader, ms = 10_000): Promise<Record<string, any> | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no stream event within ${ms} ms`)), ms);
  });
  try {
    for (;;) {
      const line = await Promise.race([stream.next(), timeout]);
      if (line === undefined) return undefined;
      if (line.trim() !== '') return JSON.parse(line) as Record<string, any>;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** A random root-to-leaf path of a legal-move tree ([] for the empty tree, a forced pass). */
export function randomPath(tree: Tree, random: () => number = Math.random): string[] {
  const moves: string[] = [];
  for (let keys = Object.keys(tree); keys.length; keys = Object.keys(tree)) {
    const k = keys[Math.floor(random() * keys.length)];
    moves.push(k);
    tree = tree[k];
  }
  return moves;
}

/** Every root-to-leaf path of a tree (the house players' own walker). */
export const leafPaths = (tree: Tree): string[][] => houseLeafPaths(tree);

export function countLeaves(tree: Tree): number {
  const keys = Object.keys(tree);
  if (keys.length === 0) return 0;
  let n = 0;
  for (const k of keys) n += Object.keys(tree[k]).length === 0 ? 1 : countLeaves(tree[k]);
  return n;
}

/** A proper prefix of a path of at least two moves, or a path with an extra move: never a leaf. */
export function someNonLeaf(tree: Tree): string[] {
  const path = leafPaths(tree)[0];
  return path.length > 1 ? path.slice(0, -1) : [...path, 'a1a2'];
}
