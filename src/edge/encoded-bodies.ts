// Large read bodies kept as bytes, made once per game version, with a gzip and a brotli copy made on
// libuv's thread pool once a client that accepts either reads one; bounded by a byte budget.
// Invariant: a game keeps one body, its latest version's, gone when the game ends (`forget`) or at the
// latest when the next body is kept (`keep` sweeps), so what is held follows the live games. The
// budget must hold the largest body (one over it is not kept, and would be rebuilt on every request).
// (docs/OPERATIONS.md, "Memory of a long-running server"; docs/DECISIONS.md, "Large answers in slices").
import { brotliCompress, constants, gzip } from 'node:zlib';
import { LRUCache } from 'lru-cache';

export interface EncodedBody {
  readonly identity: Uint8Array;
  /** Ready once compressed in the background; undefined before (and for small bodies). */
  readonly gzip: Uint8Array | undefined;
  readonly br: Uint8Array | undefined;
}

export interface EncodedBodyLimits {
  /** Bytes held by every body and its compressed copies together. */
  maxBytes: number;
  /** Bodies at least this long are kept; shorter ones (and their keys) are not kept at all. */
  minBytes: number;
}

export const DEFAULT_ENCODED_BODY_LIMITS: EncodedBodyLimits = { maxBytes: 96 * 1024 * 1024, minBytes: 64 * 1024 };

interface Entry {
  key: string;
  version: number;
  /** Its compressed copies have been asked for. */
  compressing: boolean;
  identity: Uint8Array;
  gzip: Uint8Array | undefined;
  br: Uint8Array | undefined;
}

const BROTLI_QUALITY = 5;

export class EncodedBodies {
  readonly limits: EncodedBodyLimits;
  /** By game id. */
  private readonly lru: LRUCache<string, Entry>;
  /** Bodies whose compressed copies were started, and copies made (gzip and brotli each counted), so far (tests, metrics). */
  zipping = 0;
  compressed = 0;

  /** `isLive(gameId)`: whether a game may still be read at a new version (a body of any other goes). */
  constructor(
    limits: Partial<EncodedBodyLimits> = {},
    private readonly isLive: (gameId: string) => boolean = () => true,
  ) {
    this.limits = { ...DEFAULT_ENCODED_BODY_LIMITS, ...limits };
    this.lru = new LRUCache<string, Entry>({
      maxSize: this.limits.maxBytes,
      sizeCalculation: (e) => e.identity.byteLength + (e.gzip?.byteLength ?? 0) + (e.br?.byteLength ?? 0),
    });
  }

  /** The kept body of this game at this version, if any. */
  find(gameId: string, version: number): EncodedBody | undefined {
    const entry = this.lru.get(gameId);
    return entry?.version === version ? entry : undefined;
  }

  /**
   * Keeps `text` as the body of the game at `version` when it is large; a small one is returned as
   * it is, for the ordinary path.
   */
  keep(gameId: string, version: number, text: string): EncodedBody | string {
    if (text.length * 3 < this.limits.minBytes) return text;
    const identity = Buffer.from(text, 'utf8');
    if (identity.byteLength < this.limits.minBytes) return text;
    return this.keepBytes(gameId, version, identity);
  }

  /**
   * Keeps `identity` (UTF-8 text, not copied) as the game's body at `version`, whatever its size, in
   * place of any older one. Bodies of games no longer live are let go.
   */
  keepBytes(gameId: string, version: number, identity: Uint8Array): EncodedBody {
    this.sweep();
    const entry: Entry = { key: gameId, version, compressing: false, identity, gzip: undefined, br: undefined };
    this.lru.set(gameId, entry);
    return entry;
  }

  /**
   * A client that accepts a compressed encoding asked for `body`: its gzip and brotli copies are
   * started (once, in the background; what is ready serves meanwhile). A body no such client reads
   * is never compressed.
   */
  wantCompressed(body: EncodedBody): void {
    const asked = body as Entry;
    const key = asked.key;
    let current = this.lru.peek(key);
    if (current === undefined || current.version !== asked.version || current.compressing) return;
    current.compressing = true;
    this.zipping++;
    // A copy that is ready replaces the entry with a new object: the LRU weighs a value again only
    // when it is a different object (setting the same one, grown, would leave its old size counted).
    const copy = (add: (e: Entry, zipped: Buffer) => Entry) => (err: Error | null, zipped: Buffer): void => {
      if (err !== null || current === undefined || this.lru.peek(key) !== current) return;
      current = add(current, zipped);
      this.compressed++;
      this.lru.set(key, current, { noUpdateTTL: true });
    };
    const identity = current.identity;
    gzip(identity, copy((e, z) => ({ ...e, gzip: z })));
    const params = { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: identity.byteLength };
    brotliCompress(identity, { params }, copy((e, z) => ({ ...e, br: z })));
  }

  /** The game ended: its body goes now. */
  forget(gameId: string): void {
    this.lru.delete(gameId);
  }

  /** Lets go of the bodies of games that are no longer live. */
  private sweep(): void {
    for (const id of [...this.lru.keys()]) if (!this.isLive(id)) this.lru.delete(id);
  }

  /** Bodies held now (one per game at most). */
  get count(): number {
    return this.lru.size;
  }

  /** Bytes held now. */
  get size(): number {
    return this.lru.calculatedSize;
  }
}
