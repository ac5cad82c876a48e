// The pending trees of main's mirrors of shard games, as their owner wrote them. The shard that owns
// a game builds a roll's tree and its JSON text once; main keeps that text and never runs the engine
// for a tree: no tree bytes, no tree JSON, no tree objects made by the engine on this thread.
//
// A tree within the inline leaf cap (it rides in the DiceRolled line and in every state body) is kept
// on its pending tree as text for as long as the roll is pending: at most the cap's worth of JSON per
// live game. A larger one (read only by GET /games/{id}/moves) is kept as its UTF-8 bytes, exactly as
// they crossed from the shard, in one store shared by every game and bounded in bytes; the budget
// holds several of the largest trees the rules allow (docs/ENGINE.md, "Largest trees": about 25 MB).
// A tree that fell out is asked of its owner again when next read (`refetch`), never rebuilt here.
import { LRUCache } from 'lru-cache';
import { PendingTree } from '../../game/view.js';

/** Bytes of large tree text main holds at most, across every game (5 of the worst tree found). */
export const TREE_TEXT_BUDGET = 128 * 1024 * 1024;

/** The byte-bounded store of large trees' text (one per main thread; a test may make its own). */
export class TreeTexts {
  private readonly lru: LRUCache<object, Uint8Array>;

  constructor(readonly maxBytes: number = TREE_TEXT_BUDGET) {
    this.lru = new LRUCache<object, Uint8Array>({ maxSize: maxBytes, sizeCalculation: (b) => Math.max(1, b.byteLength) });
  }

  get(key: object): Uint8Array | undefined {
    return this.lru.get(key);
  }

  set(key: object, text: Uint8Array): void {
    this.lru.set(key, text);
  }

  delete(key: object): void {
    this.lru.delete(key);
  }

  clear(): void {
    this.lru.clear();
  }

  /** Bytes held now (never above `maxBytes`). */
  get size(): number {
    return this.lru.calculatedSize;
  }
}

export const treeTexts = new TreeTexts();

/**
 * `b` itself when it is its whole buffer (a structured clone's copy), else a copy: bytes unpacked
 * from a packed batch are a view into the whole batch, which keeping them would keep too.
 */
const owned = (b: Uint8Array): Uint8Array => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());

const decode = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/**
 * A pending tree on main: its text from the owner (bytes from a shard message, or the text cut from
 * the DiceRolled line), served as it is. Reading the engine's form (`bytes`) is a bug here and throws.
 */
export class PublishedTree extends PendingTree {
  /** The text of a tree within the inline cap, held for the roll's life. */
  private readonly small: string | undefined;

  constructor(
    dfen: string,
    leaves: number,
    text: Uint8Array | string | undefined,
    private readonly cap: number,
    /** Asks the owner for the tree again (it fell out of the store, or never came). */
    private readonly refetch: () => void,
    private readonly store: TreeTexts = treeTexts,
  ) {
    super(dfen, null, leaves);
    if (text === undefined) return;
    if (leaves <= cap) this.small = typeof text === 'string' ? text : decode(text);
    else store.set(this, typeof text === 'string' ? Buffer.from(text, 'utf8') : owned(text));
  }

  /** Main never holds the engine's form of a tree. */
  override get bytes(): Uint8Array {
    throw new Error(`main does not build trees: the tree of ${this.dfen} comes from its shard`);
  }

  /** True for a tree over the inline cap (kept as bytes in the shared store). */
  get large(): boolean {
    return this.leaves > this.cap;
  }

  /** The tree's JSON text as bytes, as the owner made it; undefined (and asked again) when not held. */
  text(): Uint8Array | undefined {
    const b = this.large ? this.store.get(this) : this.small === undefined ? undefined : Buffer.from(this.small, 'utf8');
    if (b === undefined) this.refetch();
    return b;
  }

  override release(): void {
    this.store.delete(this);
  }

  override fullJson(): string {
    if (this.small !== undefined) return this.small;
    const b = this.text();
    if (b === undefined) throw new Error(`the tree of ${this.dfen} is not held here; it was asked of its shard again`);
    return decode(b);
  }

  /** Parsed from the owner's text (within the cap only): a fresh object on every call. */
  override inline(cap: number): ReturnType<PendingTree['inline']> {
    return this.leaves > cap ? null : (JSON.parse(this.fullJson()) as ReturnType<PendingTree['inline']>);
  }
}
