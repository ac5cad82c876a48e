// A consistent copy of a data directory, taken from outside the server that may be running on it.
// LMDB lets several processes open one environment: this one opens it read-only next to the server
// (it never takes the server's dicechess.lock, and never writes), and LMDB's copy (mdb_env_copy2)
// reads everything inside one read transaction, so the copy is the state after one commit, whatever
// the server writes meanwhile. The copy is a data directory like any other: a server started on it
// is the restore.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { err, ok, type Result } from '../../domain/result.js';
import { SCHEMA_VERSION } from '../../domain/records.js';
import { DB_NAMES, META_SCHEMA_KEY, messageOf } from './env.js';

export interface BackupDone {
  /** Size of the copy's data.mdb. */
  bytes: number;
  /** The schema stamp the copy carries. */
  schema: number;
}

const DATA_FILE = 'data.mdb';

/** Copies `source` (a data directory, served or not) into `target`, which must not hold one yet. */
export async function backupDataDir(source: string, target: string, compact = false): Promise<Result<BackupDone, string>> {
  if (!existsSync(join(source, DATA_FILE))) return err(`${source} is not a data directory (it has no ${DATA_FILE})`);
  if (existsSync(join(target, DATA_FILE))) return err(`${target} already holds a ${DATA_FILE}; choose an empty directory`);
  let root;
  try {
    root = open({ path: source, readOnly: true, maxDbs: 32, noSubdir: false });
  } catch (e) {
    return err(`cannot open data directory ${source}: ${messageOf(e)}`);
  }
  try {
    const schema = root.openDB({ name: DB_NAMES.meta }).get(META_SCHEMA_KEY) as unknown;
    if (typeof schema !== 'number') return err(`data directory ${source} has no schema stamp; not a dicechess data directory`);
    if (schema > SCHEMA_VERSION) return err(`data directory ${source} was written by a newer server (schema ${schema}); back it up with that server's dicechess`);
    mkdirSync(target, { recursive: true });
    await root.backup(target, compact);
    return ok({ bytes: statSync(join(target, DATA_FILE)).size, schema });
  } catch (e) {
    return err(`backup of ${source} to ${target} failed: ${messageOf(e)}`);
  } finally {
    await root.close();
  }
}
