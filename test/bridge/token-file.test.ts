// The token file: written whole into a fresh 0600 file and renamed into place, so no file readable
// by others ever holds the token; a symbolic link at its name is refused and its target untouched.
import t from 'tap';
import { linkSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTokenFile, writeTokenFile, type TokenFile } from '../../src/bridge/token-file.js';

const BODY: TokenFile = { url: 'http://127.0.0.1:1', team: 'kit', name: 'me', token: 'dcb_secret-secret-secret-wxyz' };

function scratch(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-token-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('a new file: 0600, read back for its own server only', async (t) => {
  const dir = scratch(t);
  const file = join(dir, 'token.json');
  writeTokenFile(file, BODY);
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.same(readTokenFile(file, BODY.url), BODY);
  t.equal(readTokenFile(file, 'http://elsewhere:1'), undefined, 'another server: not used');
  t.same(readdirSync(dir), ['token.json'], 'no temporary file left');
});

t.test('an old file readable by others: the token goes into a private file first, which replaces it', async (t) => {
  const dir = scratch(t);
  const file = join(dir, 'token.json');
  writeFileSync(file, 'old\n', { mode: 0o644 });
  const old = join(dir, 'old-inode');
  linkSync(file, old);
  const seen: { mode: number; text: string; atName: string }[] = [];
  writeTokenFile(file, BODY, {
    beforeRename: (temp) => {
      seen.push({ mode: statSync(temp).mode & 0o777, text: readFileSync(temp, 'utf8'), atName: readFileSync(file, 'utf8') });
    },
  });
  t.equal(seen.length, 1, 'written through a temporary file');
  t.equal(seen[0]!.mode, 0o600, 'which was private from the start');
  t.match(JSON.parse(seen[0]!.text), { token: BODY.token }, 'and held the token');
  t.equal(seen[0]!.atName, 'old\n', 'while the old file still held only its old content');
  t.equal(statSync(file).mode & 0o777, 0o600, 'the file is now 0600');
  t.same(readTokenFile(file, BODY.url), BODY);
  t.equal(readFileSync(old, 'utf8'), 'old\n', 'the old file never held the token');
  t.equal(statSync(old).mode & 0o777, 0o600, 'and was closed to others at once');
  t.same(readdirSync(dir).sort(), ['old-inode', 'token.json'], 'no temporary file left');
});

t.test('a symbolic link at the name is refused, its target untouched', async (t) => {
  const dir = scratch(t);
  const target = join(dir, 'target');
  writeFileSync(target, 'precious\n', { mode: 0o644 });
  const file = join(dir, 'token.json');
  symlinkSync(target, file);
  t.throws(() => writeTokenFile(file, BODY), { message: /^token file .*token\.json is a symbolic link; the bridge will not write its token through it/ });
  t.equal(readFileSync(target, 'utf8'), 'precious\n', 'the target keeps its content');
  t.equal(statSync(target).mode & 0o777, 0o644, 'and its mode');
  t.ok(lstatSync(file).isSymbolicLink(), 'the link is left as it was');
  t.same(readdirSync(dir).sort(), ['target', 'token.json'], 'no temporary file left');
});

t.test('a name that is not a regular file is refused', async (t) => {
  const dir = scratch(t);
  t.throws(() => writeTokenFile(dir, BODY), { message: /is not a regular file/ });
});
