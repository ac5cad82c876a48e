// `dicechess backup TARGET`: a consistent copy of the server's data directory, while the server runs
// or not (src/store/lmdb/backup.ts says how). The source is the data directory `serve` would use with
// the same --data, --config and DICECHESS_DATA.
import { loadConfig } from '../server-config.js';
import { backupDataDir } from '../store/lmdb/backup.js';

export const BACKUP_USAGE = `usage: dicechess backup [--data DIR] [--config FILE] [--compact] TARGET

Writes a consistent copy of a data directory into TARGET (created if missing; it must not hold a
data.mdb yet), while the server runs on it or not. Restore by starting a server on the copy:
dicechess serve --data TARGET (or move it where --data points, with the server stopped).

  --data DIR       the data directory to copy (DICECHESS_DATA; default ./data)
  --config FILE    read dataDir from this settings file, as serve does
  --compact        leave out free pages (a smaller copy, a little slower to write)
  -h, --help       print this and exit`;

export interface BackupIo {
  out(line: string): void;
  err(line: string): void;
}

/** Runs the command; returns its exit code (2: usage, 1: the copy failed). */
export async function backupCommand(args: string[], env: Record<string, string | undefined>, io: BackupIo): Promise<number> {
  const overrides: Record<string, unknown> = {};
  let file: string | undefined;
  let compact = false;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-h' || a === '--help') {
      io.out(BACKUP_USAGE);
      return 0;
    } else if (a === '--data' || a === '--config') {
      const v = args[++i];
      if (v === undefined) {
        io.err(`${a} needs a value\n${BACKUP_USAGE}`);
        return 2;
      }
      if (a === '--data') overrides.dataDir = v;
      else file = v;
    } else if (a === '--compact') compact = true;
    else if (a.startsWith('-')) {
      io.err(`unknown flag ${a}\n${BACKUP_USAGE}`);
      return 2;
    } else rest.push(a);
  }
  if (rest.length !== 1) {
    io.err(BACKUP_USAGE);
    return 2;
  }
  const config = loadConfig({ file, env, overrides });
  if (!config.ok) {
    io.err(config.error);
    return 2;
  }
  const done = await backupDataDir(config.value.dataDir, rest[0], compact);
  if (!done.ok) {
    io.err(`dicechess backup: ${done.error}`);
    return 1;
  }
  io.out(`backup of ${config.value.dataDir} written to ${rest[0]} (${done.value.bytes} bytes, schema ${done.value.schema})`);
  return 0;
}
