// The token file: written whole into a fresh 0600 file and renamed into place, so no file readable
// by others ever holds the token; a symbolic link at its name is refused and its target untouched.
// It holds several identities keyed by server (any spelling of a loopback address is one server) and
// bot; a registered one is never replaced by another token; the first, single-identity shape loads.
import t from 'tap';
import { linkSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTokens, saveToken, serverKey, tokensFor, writeTokens, type SavedIdentity } from '../../src/bridge/token-file.js';

const BODY: SavedIdentity = { server: 'http://localhost:1', url: 'http://127.0.0.1:1', team: 'kit', name: 'me', token: 'dcb_secret-secret-secret-wxyz' };

function scratch(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-token-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('a new file: 0600, read back for its own server only', async (t) => {
  const dir = scratch(t);
  const file = join(dir, 'token.json');
  writeTokens(file, [BODY]);
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.same(tokensFor(readTokens(file), BODY.url), [BODY]);
  t.same(tokensFor(readTokens(file), 'http://elsewhere:1'), [], 'another server: not used');
  t.same(readdirSync(dir), ['token.json'], 'no temporary file left');
});

t.test('an old file readable by others: the token goes into a private file first, which replaces it', async (t) => {
  const dir = scratch(t);
  const file = join(dir, 'token.json');
  writeFileSync(file, 'old\n', { mode: 0o644 });
  const old = join(dir, 'old-inode');
  linkSync(file, old);
  const seen: { mode: number; text: string; atName: string }[] = [];
  writeTokens(file, [BODY], {
    beforeRename: (temp: string) => {
      seen.push({ mode: statSync(temp).mode & 0o777, text: readFileSync(temp, 'utf8'), atName: readFileSync(file, 'utf8') });
    },
  });
  t.equal(seen.length, 1, 'written through a temporary file');
  t.equal(seen[0]!.mode, 0o600, 'which was private from the start');
  t.match(JSON.parse(seen[0]!.text), { identities: [{ token: BODY.token }] }, 'and held the token');
  t.equal(seen[0]!.atName, 'old\n', 'while the old file still held only its old content');
  t.equal(statSync(file).mode & 0o777, 0o600, 'the file is now 0600');
  t.same(tokensFor(readTokens(file), BODY.url), [BODY]);
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
  t.throws(() => writeTokens(file, [BODY]), { message: /^token file .*token\.json is a symbolic link; the bridge will not write its token through it/ });
  t.equal(readFileSync(target, 'utf8'), 'precious\n', 'the target keeps its content');
  t.equal(statSync(target).mode & 0o777, 0o644, 'and its mode');
  t.ok(lstatSync(file).isSymbolicLink(), 'the link is left as it was');
  t.same(readdirSync(dir).sort(), ['target', 'token.json'], 'no temporary file left');
});

t.test('a name that is not a regular file is refused', async (t) => {
  const dir = scratch(t);
  t.throws(() => writeTokens(dir, [BODY]), { message: /is not a regular file/ });
});

t.test('a server is its scheme, host and port: every loopback spelling is one server', async (t) => {
  const key = serverKey('http://127.0.0.1:8080');
  for (const other of ['http://localhost:8080', 'http://LOCALHOST:8080/', 'http://[::1]:8080', 'HTTP://127.0.0.1:8080//']) {
    t.equal(serverKey(other), key, other);
  }
  t.equal(serverKey('http://example.org'), 'http://example.org:80', 'the default port written out');
  t.equal(serverKey('https://Example.org:443/'), 'https://example.org:443');
  t.not(serverKey('http://127.0.0.1:8081'), key, 'another port is another server');
  t.not(serverKey('https://127.0.0.1:8080'), key, 'another scheme is another server');
  t.not(serverKey('http://10.0.0.1:8080'), key, 'another host is another server');
});

t.test('several identities: a new one is added, the others kept; a registered token is never replaced', async (t) => {
  const dir = scratch(t);
  const file = join(dir, 'token.json');
  saveToken(file, { url: 'http://127.0.0.1:9', team: 'me', name: 'a', token: 'dcb_a' });
  saveToken(file, { url: 'http://localhost:9', team: 'me', name: 'b', token: 'dcb_b' });
  saveToken(file, { url: 'http://10.1.1.1:9', team: 'me', name: 'a', token: 'dcb_a_elsewhere' });
  t.same(tokensFor(readTokens(file), 'http://localhost:9/').map((i) => i.token), ['dcb_a', 'dcb_b'], 'both kept for the loopback server');
  t.same(tokensFor(readTokens(file), 'http://10.1.1.1:9').map((i) => i.token), ['dcb_a_elsewhere'], 'the other server has its own');
  t.throws(() => saveToken(file, { url: 'http://127.0.0.1:9', team: 'me', name: 'a', token: 'dcb_other' }), {
    message: /already holds another token for me\/a at http:\/\/127\.0\.0\.1:9; the bridge does not replace it/,
  });
  t.equal(readTokens(file).length, 3, 'the refused write changed nothing');
  saveToken(file, { url: 'http://127.0.0.1:9', team: 'anon', name: 'x-1', token: 'dcb_anon1' });
  saveToken(file, { url: 'http://127.0.0.1:9', team: 'anon', name: 'x-2', token: 'dcb_anon2' }, { dropAnonymous: ['dcb_anon1'] });
  t.same(readTokens(file).map((i) => i.token), ['dcb_a', 'dcb_b', 'dcb_a_elsewhere', 'dcb_anon2'], 'a refused anonymous token may go; registered ones stay');
  t.equal(statSync(file).mode & 0o777, 0o600);
});

t.test('the first, single-identity file loads, and is written in the new shape on the next change', async (t) => {
  const dir = scratch(t);
  const file = join(dir, 'token.json');
  writeFileSync(file, JSON.stringify({ url: 'http://127.0.0.1:9', team: 'me', name: 'a', token: 'dcb_old' }), { mode: 0o600 });
  t.same(readTokens(file), [{ server: 'http://localhost:9', url: 'http://127.0.0.1:9', team: 'me', name: 'a', token: 'dcb_old' }]);
  saveToken(file, { url: 'http://127.0.0.1:9', team: 'me', name: 'c', token: 'dcb_c' });
  const body = JSON.parse(readFileSync(file, 'utf8')) as { version: number; identities: { token: string }[] };
  t.equal(body.version, 2);
  t.same(body.identities.map((i) => i.token), ['dcb_old', 'dcb_c'], 'the old identity kept');
});

t.test('a file that is not a token file is an error, and is left as it is', async (t) => {
  const dir = scratch(t);
  const file = join(dir, 'token.json');
  writeFileSync(file, 'dcb_a-token-pasted-by-hand\n', { mode: 0o600 });
  t.throws(() => readTokens(file), { message: /is not a token file the bridge can read; it is left as it is/ });
  t.throws(() => saveToken(file, { url: 'http://127.0.0.1:9', team: 'me', name: 'a', token: 'dcb_a' }));
  t.equal(readFileSync(file, 'utf8'), 'dcb_a-token-pasted-by-hand\n');
  t.same(readTokens(join(dir, 'none.json')), [], 'no file: no identities');
});
