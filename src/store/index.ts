// The store seam's public face: the interface, both implementations, and the one call the
// composition root makes to get whichever the configuration asks for.
import { ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import { LmdbStore } from './lmdb.js';
import type { LmdbOptions } from './lmdb.js';
import { MemoryStore } from './memory.js';
import type { Store } from './types.js';

export type { Store } from './types.js';
export { MemoryStore } from './memory.js';
export { LmdbStore, DB_NAMES, META_SCHEMA_KEY } from './lmdb.js';
export type { LmdbOptions } from './lmdb.js';

export interface OpenStoreOptions extends LmdbOptions {
  /** `--memory`: nothing survives a restart (no leaderboard, no profiles). */
  memory: boolean;
  /** LMDB data directory (./data by default in the config). Ignored with `memory`. */
  dataDir: string;
}

/** Opens the configured store; a directory that cannot be used is an error value with a readable message. */
export async function openStore(opts: OpenStoreOptions): Promise<Result<Store, string>> {
  if (opts.memory) return ok(new MemoryStore());
  return LmdbStore.open(opts.dataDir, { flushEachWrite: opts.flushEachWrite });
}
