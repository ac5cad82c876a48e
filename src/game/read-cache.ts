// What games can rebuild is kept for the most recently used versions across all games, not on each
// game: encoded reads (tree JSON, state templates, moves bodies, history JSON) and the pending trees'
// bytes. A game that is read or played again and again is served from here as before; an idle game
// holds none of it (a mid-game tree is ~10 KB of bytes and tens of KB of JSON, several times the rest
// of the game). Each cache is bounded by the size it holds, so the memory is capped whatever the
// number of live games; what falls out is rebuilt on demand.
import { LRUCache } from 'lru-cache';
import type { StateTemplate } from '../wire/encode.js';

export class ReadCache<K extends object, V extends {}> {
  private readonly lru: LRUCache<K, V>;

  /** `maxSize` in the unit of `sizeOf` (characters for text, bytes for trees). */
  constructor(maxSize: number, maxEntries: number, sizeOf: (v: V) => number) {
    this.lru = new LRUCache<K, V>({ max: maxEntries, maxSize, sizeCalculation: (v) => Math.max(1, sizeOf(v)) });
  }

  /** Size held now (never above the bound). */
  get size(): number {
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

  set(key: K, v: V): void {
    this.lru.set(key, v);
  }

  delete(key: K): void {
    this.lru.delete(key);
  }
}

/**
 * A ReadCache with one entry per game: the value made for one version (`key`: its view, or its
 * history array) replaces the one of the version before, so what a game holds here follows the
 * version being read, not how many versions were read; `forget` drops a game's entry when it ends.
 */
export class GameReadCache<K extends object, V extends {}> {
  private readonly lru: LRUCache<string, { key: K; value: V }>;

  constructor(maxSize: number, maxEntries: number, sizeOf: (v: V) => number) {
    this.lru = new LRUCache<string, { key: K; value: V }>({
      max: maxEntries, maxSize, sizeCalculation: (e) => Math.max(1, sizeOf(e.value)),
    });
  }

  get size(): number {
    return this.lru.calculatedSize;
  }

  /** Entries held (one per game at most). */
  get count(): number {
    return this.lru.size;
  }

  clear(): void {
    this.lru.clear();
  }

  /** The value of `key` (a version of game `gameId`), or `make()` kept in place of the game's older one. */
  get(gameId: string, key: K, make: () => V): V {
    const e = this.lru.get(gameId);
    if (e !== undefined && e.key === key) return e.value;
    const value = make();
    this.lru.set(gameId, { key, value });
    return value;
  }

  forget(gameId: string): void {
    this.lru.delete(gameId);
  }
}

const MB = 1024 * 1024;
const chars = (s: string): number => s.length;

/** Full tree JSON per pending tree (GET moves, and the inline copy in the state). */
export const treeJsonCache = new ReadCache<object, string>(8 * MB, 4096, chars);
/** The state JSON template of each game's version last read (GET state, webhook bodies, Snapshots). */
export const stateTemplateCache = new GameReadCache<object, StateTemplate>(8 * MB, 4096, (t) => t.chars);
/** Body of GET /games/{id}/moves of each game's version last read. */
export const movesJsonCache = new GameReadCache<object, string>(4 * MB, 4096, chars);
/** History JSON of each game's history array last read (a version that adds no turn keeps its array). */
export const historyJsonCache = new GameReadCache<object, string>(4 * MB, 4096, chars);
/**
 * Bytes of pending trees (a few thousand mid-game trees): the games that rolled or were read most
 * recently keep theirs; an older one is rebuilt from its DFEN when its game is next read or moved.
 */
export const treeBytesCache = new ReadCache<object, Uint8Array>(32 * MB, 16384, (b) => b.length);

const PER_GAME = [stateTemplateCache, movesJsonCache, historyJsonCache];
const ALL = [treeJsonCache, treeBytesCache, ...PER_GAME];

/** Size held by every cache together (characters and bytes). */
export function readCachesSize(): number {
  return ALL.reduce((n, c) => n + c.size, 0);
}

/** A game ended (or left this thread): its entries in the per-game caches go now rather than by age. */
export function forgetGame(gameId: string): void {
  for (const c of PER_GAME) c.forget(gameId);
}

/** Empties every cache (the memory bench, to count what each game holds by itself; tests). */
export function clearReadCaches(): void {
  for (const c of ALL) c.clear();
}
