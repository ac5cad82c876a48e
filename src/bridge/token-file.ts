// The file that keeps the bridge's token between runs. The token is a password, so the file is never
// readable by anyone else, not even for a moment: the new content goes into a fresh file of the same
// directory, created by this process alone (O_EXCL) with mode 0600, and is then renamed over the old
// name in one step. An old file (perhaps readable by others) is never written into; it is replaced
// whole. A symbolic link at the name is refused, since writing through it would put the token
// wherever the link points.
import { randomBytes } from 'node:crypto';
import {
  closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, openSync, readFileSync, renameSync, unlinkSync, writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface TokenFile {
  url: string;
  team: string;
  name: string;
  token: string;
}

/** Test seam: called with the temporary file's path once it holds the content, before the rename. */
export interface WriteHooks {
  beforeRename?: (tempPath: string) => void;
}

/** Throws a clear error when the token file cannot be written safely at `path` (checked before registering). */
export function checkTokenPath(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new Error(`token file ${path}: ${(e as Error).message}`);
  }
  if (st.isSymbolicLink()) {
    throw new Error(`token file ${path} is a symbolic link; the bridge will not write its token through it (remove the link or choose another --token-file)`);
  }
  if (!st.isFile()) throw new Error(`token file ${path} is not a regular file`);
}

/** The saved identity for this server, or undefined (no file, another server, unreadable). */
export function readTokenFile(path: string, url: string): TokenFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const t = JSON.parse(text) as TokenFile;
    return t && t.url === url && typeof t.token === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
}

/** Replaces the token file with `body`, as described at the top; throws a clear error on a link. */
export function writeTokenFile(path: string, body: TokenFile, hooks: WriteHooks = {}): void {
  checkTokenPath(path);
  closeOldFile(path);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx': O_CREAT|O_EXCL, so an existing file (or a link planted at the temporary name) is an error.
  const fd = openSync(temp, 'wx', 0o600);
  try {
    fchmodSync(fd, 0o600); // exactly 0600, whatever the umask took away
    writeSync(fd, `${JSON.stringify(body, null, 2)}\n`);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(temp);
    throw e;
  }
  closeSync(fd);
  try {
    hooks.beforeRename?.(temp);
    renameSync(temp, path); // replaces the name itself, never what a link there would point to
  } catch (e) {
    try {
      unlinkSync(temp);
    } catch {
      // already gone
    }
    throw new Error(`token file ${path}: ${(e as Error).message}`);
  }
}

/**
 * An old token file readable by others is closed to them at once (it may hold an older token); its
 * content is left as it is and the file is replaced after. Opened without following a link, and a
 * file that is not ours to change is simply replaced.
 */
function closeOldFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return; // no file (or a link that appeared since the check: the rename replaces the link itself)
  }
  try {
    if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  } catch {
    // not ours: the rename replaces it anyway
  } finally {
    closeSync(fd);
  }
}
