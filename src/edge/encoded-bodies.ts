// Large read bodies kept as bytes, made once per key (a game and its version) and kept under a byte
// budget, each with a gzip and a brotli copy for clients that accept them. The legal-move tree of a
// roll can reach tens of megabytes of JSON (docs/ENGINE.md, "Largest trees"): building that text and
// encoding it to UTF-8 on every request cost the main thread most of a second each. Here it is
// encoded once; the compressed copies are made on libuv's thread pool (zlib's asynchronous API),
// never on the main thread, and until one is ready the others (or the identity bytes) are served.
// Brotli at quality 5: on the largest tree (24.7 MB) about 0.4 MB against gzip's 0.95 MB, and made
// faster than the gzip copy (well under a second of a pool thread). The budget must hold at least the largest body
// (an entry over the whole budget is not kept, and would be rebuilt on every request).
import { brotliCompress, constants, gzip } from 'node:zlib';
import { LRUCache } from 'lru-cache';

export interface EncodedBody {
  readonly identity: Uint8Array;
  /** Ready once compressed in the background; undefined before (and for small bodies). */
  readonly gzip: Uint8Array | undefined;
  /** The brotli copy, likewise. */
  readonly br: Uint8Array | undefined;
}

export interface EncodedBodyLimits {
  /** Bytes held by every body and its gzip copy together. */
  maxBytes: number;
  /** Bodies at least this long get a gzip copy; shorter ones (and their keys) are not kept at all. */
  minBytes: number;
}

export const DEFAULT_ENCODED_BODY_LIMITS: EncodedBodyLimits = { maxBytes: 96 * 1024 * 1024, minBytes: 64 * 1024 };

interface Entry {
  identity: Uint8Array;
  gzip: Uint8Array | undefined;
  br: Uint8Array | undefined;
}

const BROTLI_QUALITY = 5;

export class EncodedBodies {
  readonly limits: EncodedBodyLimits;
  private readonly lru: LRUCache<string, Entry>;
  /** Compressed copies made so far, gzip and brotli each counted (tests, metrics). */
  compressed = 0;

  constructor(limits: Partial<EncodedBodyLimits> = {}) {
    this.limits = { ...DEFAULT_ENCODED_BODY_LIMITS, ...limits };
    this.lru = new LRUCache<string, Entry>({
      maxSize: this.limits.maxBytes,
      sizeCalculation: (e) => e.identity.byteLength + (e.gzip?.byteLength ?? 0) + (e.br?.byteLength ?? 0),
    });
  }

  /** The kept body of `key`, if any. */
  find(key: string): EncodedBody | undefined {
    return this.lru.get(key);
  }

  /**
   * Keeps `text` as the body of `key` when it is large (and starts its gzip copy); a small one is
   * returned as it is, for the ordinary path.
   */
  keep(key: string, text: string): EncodedBody | string {
    if (text.length * 3 < this.limits.minBytes) return text;
    const identity = Buffer.from(text, 'utf8');
    if (identity.byteLength < this.limits.minBytes) return text;
    return this.keepBytes(key, identity);
  }

  /** Keeps `identity` (UTF-8 text, not copied) as the body of `key`, whatever its size, and starts its compressed copies. */
  keepBytes(key: string, identity: Uint8Array): EncodedBody {
    const entry: Entry = { identity, gzip: undefined, br: undefined };
    this.lru.set(key, entry);
    // A copy that is ready replaces the entry with a new object: the LRU weighs a value again only
    // when it is a different object (setting the same one, grown, would leave its old size counted).
    let current = entry;
    const copy = (add: (e: Entry, zipped: Buffer) => Entry) => (err: Error | null, zipped: Buffer): void => {
      if (err !== null || this.lru.peek(key) !== current) return;
      current = add(current, zipped);
      this.compressed++;
      this.lru.set(key, current, { noUpdateTTL: true });
    };
    gzip(identity, copy((e, z) => ({ ...e, gzip: z })));
    const params = { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: identity.byteLength };
    brotliCompress(identity, { params }, copy((e, z) => ({ ...e, br: z })));
    return entry;
  }

  /** Bytes held now. */
  get size(): number {
    return this.lru.calculatedSize;
  }
}
