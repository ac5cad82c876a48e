// One server per data directory. Two servers on one directory would both resume and play the same
// live games, so the store takes an exclusive OS lock on `<dir>/dicechess.lock` for as long as it is
// open. The lock belongs to the open file, not to the file's existence: the kernel drops it when the
// process ends, however it ends (kill -9 included), so a stale lock can never block the next start.
// The file also holds the holder's PID, only so that a refused server can say who holds it.
import { closeSync, constants, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { err, ok, type Result } from '../domain/result.js';

// fs-native-extensions: a prebuilt addon (Apache-2.0, Holepunch) whose tryLock is an open-file-
// description lock on Linux (fcntl F_OFD_SETLK) and flock on macOS; Node has no file lock of its own.
const { tryLock } = createRequire(import.meta.url)('fs-native-extensions') as {
  tryLock(fd: number): boolean;
};

export const LOCK_FILE = 'dicechess.lock';

export interface DirLock {
  /** Lets go of the directory (idempotent). */
  release(): void;
}

/** Takes the directory's lock, or says which process holds it. The directory must exist. */
export function lockDataDir(dir: string): Result<DirLock, string> {
  const path = join(dir, LOCK_FILE);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
  } catch (e) {
    return err(`cannot open the lock file of data directory ${dir}: ${(e as Error).message}`);
  }
  let locked: boolean;
  try {
    locked = tryLock(fd);
  } catch (e) {
    closeSync(fd);
    return err(`cannot lock data directory ${dir}: ${(e as Error).message}`);
  }
  if (!locked) {
    closeSync(fd);
    return err(`data directory ${dir} is in use by another dicechess server (${holder(path)}); stop it or choose another --data`);
  }
  // Best effort: the lock is what counts; the PID is only for the message above.
  try {
    ftruncateSync(fd, 0);
    writeSync(fd, `${process.pid}\n`, 0);
  } catch {
    /* a read-only lock file still locks */
  }
  let held = true;
  return ok({
    release() {
      if (!held) return;
      held = false;
      closeSync(fd);
    },
  });
}

function holder(path: string): string {
  try {
    const pid = /^\d+/.exec(readFileSync(path, 'utf8'))?.[0];
    // Empty only in the instant between the holder's lock and its write.
    return pid !== undefined ? `pid ${pid}` : 'pid not yet recorded';
  } catch {
    return 'pid unknown';
  }
}
