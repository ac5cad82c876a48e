// Large read bodies kept as bytes, made once per game version and kept under a byte budget, each with
// a gzip copy once a client that accepts gzip reads it. A game keeps one body, its latest version's: a new version
// replaces it, and a game that is no longer live loses it when it ends (`forget`, if the server says)
// or at the latest when the next body is kept (`keep` sweeps), so
// what is held follows the live games rather than how many versions or games were ever read. The legal-move tree of a roll can reach
// tens of megabytes of JSON (docs/ENGINE.md, "Largest trees"): building that text and encoding it to
// UTF-8 on every request cost the main thread most of a second each. Here it is encoded once; the
// gzip copy (only for a body some client would take gzipped) is made on libuv's thread pool (zlib's asynchronous API), never on the main thread, and
// until it is ready the identity bytes are served. The budget must hold at least the largest body
// (an entry over the whole budget is not kept, and would be rebuilt on every request).
import { gzip } from 'node:zlib';
import { LRUCache } from 'lru-cache';

export interface EncodedBody {
  readonly identity: Uint8Array;
  /** Ready once compressed in the background; undefined before (and for small bodies). */
  readonly gzip: Uint8Array | undefined;
}

export interface EncodedBodyLimits {
  /** Bytes held by every body and its gzip copy together. */
  maxBytes: number;
  /** Bodies at least this long get a gzip copy; shorter ones (and their keys) are not kept at all. */
  minBytes: number;
}

export const DEFAULT_ENCODED_BODY_LIMITS: EncodedBodyLimits = { maxBytes: 96 * 1024 * 1024, minBytes: 64 * 1024 };

interface Entry {
  key: string;
  version: number;
  /** Its gzip copy is being made. */
  zipping: boolean;
  identity: Uint8Array;
  gzip: Uint8Array | undefined;
}

export class EncodedBodies {
  readonly limits: EncodedBodyLimits;
  /** By game id. */
  private readonly lru: LRUCache<string, Entry>;
  /** Gzip copies started, and made, so far (tests, metrics). */
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
      sizeCalculation: (e) => e.identity.byteLength + (e.gzip?.byteLength ?? 0),
    });
  }

  /** The kept body of this game at this version, if any. */
  find(gameId: string, version: number): EncodedBody | undefined {
    const entry = this.lru.get(gameId);
    return entry?.version === version ? entry : undefined;
  }

  /**
   * Keeps `text` as the body of the game at `version` when it is large (and starts its gzip copy); a
   * small one is returned as it is, for the ordinary path.
   */
  keep(gameId: string, version: number, text: string): EncodedBody | string {
    if (text.length * 3 < this.limits.minBytes) return text;
    const identity = Buffer.from(text, 'utf8');
    if (identity.byteLength < this.limits.minBytes) return text;
    return this.keepBytes(gameId, version, identity);
  }

  /**
   * Keeps `identity` (UTF-8 text, not copied) as the game's body at `version`, whatever its size, in
   * place of any older one, and starts its gzip copy. Bodies of games no longer live are let go.
   */
  keepBytes(gameId: string, version: number, identity: Uint8Array): EncodedBody {
    this.sweep();
    const key = gameId;
    const entry: Entry = { key, version, zipping: false, identity, gzip: undefined };
    this.lru.set(key, entry);
    return entry;
  }

  /**
   * A client that accepts gzip asked for `body`: its gzip copy is started (once, in the background;
   * the identity bytes serve meanwhile). A body no such client reads is never compressed.
   */
  wantGzip(body: EncodedBody): void {
    const entry = body as Entry;
    if (entry.gzip !== undefined || entry.zipping || this.lru.peek(entry.key) !== entry) return;
    entry.zipping = true;
    this.zipping++;
    gzip(entry.identity, (err, zipped) => {
      if (err !== null || this.lru.peek(entry.key) !== entry) return;
      entry.gzip = zipped;
      this.compressed++;
      this.lru.set(entry.key, entry, { noUpdateTTL: true }); // its size grew: counted again
    });
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
