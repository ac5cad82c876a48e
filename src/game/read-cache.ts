// Encoded reads of games (tree JSON, state templates, moves bodies, history JSON), kept for the most
// recently read versions across all games instead of on each game. A game that is read again and
// again while a clock runs is served from here as before; an idle game holds none of its encodings,
// which can be many times the size of its state (a mid-game tree's JSON runs to tens of KB). Each
// cache is bounded by the characters it holds: the memory is capped whatever the number of games.
import { LRUCache } from 'lru-cache';
import type { StateTemplate } from '../wire/encode.js';

export class ReadCache<K extends object, V extends {}> {
  private readonly lru: LRUCache<K, V>;

  constructor(maxChars: number, maxEntries: number, charsOf: (v: V) => number) {
    this.lru = new LRUCache<K, V>({ max: maxEntries, maxSize: maxChars, sizeCalculation: (v) => Math.max(1, charsOf(v)) });
  }

  /** Characters held now (never above the bound). */
  get chars(): number {
    return this.lru.calculatedSize;
  }

  clear(): void {
    this.lru.clear();
  }

  /** The cached value for `key`, or `make()` cached (unless it alone exceeds the bound). */
  get(key: K, make: () => V): V {
    let v = this.lru.get(key);
    if (v === undefined) {
      v = make();
      this.lru.set(key, v);
    }
    return v;
  }
}

const MB = 1024 * 1024;
const chars = (s: string): number => s.length;

/** Full tree JSON per pending tree (GET moves, and the inline copy in the state). */
export const treeJsonCache = new ReadCache<object, string>(8 * MB, 4096, chars);
/** The state JSON template per version (GET state, webhook bodies, Snapshots). */
export const stateTemplateCache = new ReadCache<object, StateTemplate>(8 * MB, 4096, (t) => t.chars);
/** Body of GET /games/{id}/moves per version. */
export const movesJsonCache = new ReadCache<object, string>(4 * MB, 4096, chars);
/** History JSON per history array (a version that adds no turn keeps its array, and its entry here). */
export const historyJsonCache = new ReadCache<object, string>(4 * MB, 4096, chars);

/** Empties every read cache (the memory bench, to count what each game holds by itself). */
export function clearReadCaches(): void {
  for (const c of [treeJsonCache, stateTemplateCache, movesJsonCache, historyJsonCache]) c.clear();
}
