// The file that keeps the bridge's tokens between runs. One file holds several identities, each under
// the server it belongs to and its bot name, so one directory's file serves every bot started there
// and a server reached by another spelling of its address finds its own identities again. A token is
// a password, and a registered identity's token is the only key to its rating history: the file is
// never readable by anyone else, not even for a moment, and a registered identity in it is never
// dropped or replaced by the bridge.
//
// Writing: the new content goes into a fresh file of the same directory, created by this process
// alone (O_EXCL) with mode 0600, and is then renamed over the old name in one step. An old file
// (perhaps readable by others) is never written into; it is replaced whole. A symbolic link at the
// name is refused, since writing through it would put the token wherever the link points.
//
// The first version of the file held one identity as `{url, team, name, token}`; it is still read
// (as a list of one) and written in the current shape the next time the file changes.
import { randomBytes } from 'node:crypto';
import {
  closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, openSync, readFileSync, renameSync, unlinkSync, writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** One identity kept in the file. `server` is the normalised `url` (serverKey), the key it is found by. */
export interface SavedIdentity {
  server: string;
  url: string;
  team: string;
  name: string;
  token: string;
}

/** The file's content as written now. */
export interface TokenFileBody {
  version: 2;
  identities: SavedIdentity[];
}

/** Test seam: called with the temporary file's path once it holds the content, before the rename. */
export interface WriteHooks {
  beforeRename?: (tempPath: string) => void;
}

/** Anonymous identities (team `anon`) expire after a day; only they may be replaced in the file. */
export const isAnonymous = (i: { team: string }): boolean => i.team === 'anon';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * The server a URL names, as the key identities are kept under: scheme, host and port (the scheme's
 * default port written out), plus any path prefix without its trailing slashes. Host names are
 * compared without case, and `localhost`, `127.0.0.1` and `::1` are one server (this machine's), so
 * `http://localhost:8080/` and `http://127.0.0.1:8080` find the same identities. A string that is not
 * a URL is its own key.
 */
export function serverKey(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const scheme = u.protocol.replace(/:$/, '').toLowerCase();
  const host = LOOPBACK.has(u.hostname.toLowerCase()) ? 'localhost' : u.hostname.toLowerCase();
  const port = u.port || (scheme === 'https' ? '443' : scheme === 'http' ? '80' : '');
  const path = u.pathname.replace(/\/+$/, '');
  return `${scheme}://${host}${port ? `:${port}` : ''}${path}`;
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

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function identityOf(v: unknown): SavedIdentity | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  if (!isText(o.url) || !isText(o.team) || !isText(o.name) || !isText(o.token)) return undefined;
  return { server: serverKey(o.url), url: o.url, team: o.team, name: o.name, token: o.token };
}

/**
 * Every identity in the file; none when there is no file. A file that exists but cannot be read or
 * is not a token file is an error, not an empty list: it may hold a token that must not be lost by
 * writing over it.
 */
export function readTokens(path: string): SavedIdentity[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new Error(`token file ${path} cannot be read: ${(e as Error).message}`);
  }
  const notOurs = `token file ${path} is not a token file the bridge can read; it is left as it is (move it away or choose another --token-file)`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(notOurs);
  }
  if (body && typeof body === 'object' && Array.isArray((body as { identities?: unknown }).identities)) {
    const list = (body as { identities: unknown[] }).identities.map(identityOf);
    if (list.some((i) => i === undefined)) throw new Error(notOurs);
    return list as SavedIdentity[];
  }
  const one = identityOf(body); // the first version: a single identity
  if (!one) throw new Error(notOurs);
  return [one];
}

/** The identities saved for the server `url` names (any spelling of it), in file order. */
export function tokensFor(identities: readonly SavedIdentity[], url: string): SavedIdentity[] {
  const key = serverKey(url);
  return identities.filter((i) => i.server === key);
}

/**
 * Adds `identity` to the file, read afresh (another bridge may have written it since): any entry for
 * the same server and bot is replaced, and for a registered bot only when `replace` allows it (the
 * bridge replaces a registered entry only by a token the server has just accepted for that bot).
 * Anonymous entries of that server the server refused can be dropped with `dropAnonymous`.
 */
export function saveToken(
  path: string,
  identity: Omit<SavedIdentity, 'server'>,
  options: { replace?: (old: SavedIdentity) => boolean; dropAnonymous?: readonly string[] } = {},
  hooks: WriteHooks = {},
): void {
  const entry: SavedIdentity = { server: serverKey(identity.url), ...identity };
  const kept: SavedIdentity[] = [];
  let placed = false;
  for (const old of readTokens(path)) {
    const same = old.server === entry.server && old.team === entry.team && old.name === entry.name;
    if (same && old.token !== entry.token && !isAnonymous(old) && !(options.replace?.(old) ?? false)) {
      throw new Error(`token file ${path} already holds another token for ${old.team}/${old.name} at ${old.url}; the bridge does not replace it`);
    }
    if (same) {
      if (!placed) kept.push(entry);
      placed = true;
    } else if (!(old.server === entry.server && isAnonymous(old) && options.dropAnonymous?.includes(old.token))) kept.push(old);
  }
  if (!placed) kept.push(entry);
  writeTokens(path, kept, hooks);
}

/** Replaces the token file with these identities, as described at the top; throws a clear error on a link. */
export function writeTokens(path: string, identities: readonly SavedIdentity[], hooks: WriteHooks = {}): void {
  const body: TokenFileBody = { version: 2, identities: [...identities] };
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
