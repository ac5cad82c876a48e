// The bridge never loses a registered identity: one token file holds several identities keyed by
// server and bot; another spelling of the server's loopback address finds them; a run without
// --register uses the registered identity kept for the server instead of minting over it; a second
// --register keeps the first; a refused registered token stops the bridge with the file untouched;
// the first, single-identity file shape still loads. Over HTTP against a real in-process server.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootApp } from '../helpers/app.js';
import { RANDOM_ENGINE, startBridge } from '../helpers/bridge.js';

function scratchFile(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-identity-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'token.json');
}

const saved = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { identities: { team: string; name: string; token: string; url: string }[] }).identities;
const readyId = (b: Awaited<ReturnType<typeof startBridge>>) => {
  const e = b.events.find((x) => x.event === 'ready');
  return e && 'id' in e ? e.id : undefined;
};

t.test('registered at 127.0.0.1, then run without --register at localhost: the same identity, the file kept', async (t) => {
  const app = await bootApp(t);
  const file = scratchFile(t);
  const first = await startBridge(t, app.base, ['--register', 'me/a', '--token-file', file], RANDOM_ENGINE);
  t.equal(readyId(first), 'bot:team:me:a');
  await first.bridge.stop(true);
  const before = readFileSync(file, 'utf8');
  const localhost = app.base.replace('127.0.0.1', 'localhost');
  t.not(localhost, app.base, 'another spelling of the server');
  const second = await startBridge(t, localhost, ['--token-file', file], RANDOM_ENGINE);
  t.equal(readyId(second), 'bot:team:me:a', 'played as the registered bot, no anonymous identity minted');
  t.equal(readFileSync(file, 'utf8'), before, 'the token file was not rewritten');
  await second.bridge.stop(true);
  const third = await startBridge(t, localhost, ['--register', 'me/a', '--token-file', file], RANDOM_ENGINE);
  t.equal(readyId(third), 'bot:team:me:a', '--register me/a at localhost finds its saved token');
});

t.test('--register of a second name in the same file keeps the first', async (t) => {
  const app = await bootApp(t);
  const file = scratchFile(t);
  await (await startBridge(t, app.base, ['--register', 'me/b', '--token-file', file], RANDOM_ENGINE)).bridge.stop(true);
  const b = saved(file)[0]!;
  const c = await startBridge(t, app.base, ['--register', 'me/c', '--token-file', file], RANDOM_ENGINE);
  t.equal(readyId(c), 'bot:team:me:c');
  const kept = saved(file);
  t.same(kept.map((i) => `${i.team}/${i.name}`), ['me/b', 'me/c'], 'both identities are in the file');
  t.equal(kept[0]!.token, b.token, 'me/b keeps its token');
  t.equal(statSync(file).mode & 0o777, 0o600);
  const again = await startBridge(t, app.base, ['--register', 'me/b', '--token-file', file], RANDOM_ENGINE);
  t.equal(readyId(again), 'bot:team:me:b', 'and me/b can still play');
  // Two registered identities for one server: a run without --register must say which.
  await t.rejects(startBridge(t, app.base, ['--token-file', file], RANDOM_ENGINE), {
    message: /holds 2 registered identities for .* \(me\/b, me\/c\): choose one with --register TEAM\/NAME/,
  });
});

t.test('a registered token the server refuses: the bridge stops, mints nothing, and leaves the file alone', async (t) => {
  const app = await bootApp(t);
  const file = scratchFile(t);
  const reg = (await app.req('POST', '/bot/register', { body: { team: 'me', name: 'a' } })).json as { token: string };
  t.ok(reg.token);
  const body = `${JSON.stringify({ version: 2, identities: [{ server: 'x', url: app.base, team: 'me', name: 'a', token: 'dcb_not-the-token' }] })}\n`;
  writeFileSync(file, body, { mode: 0o600 });
  await t.rejects(startBridge(t, app.base, ['--token-file', file], RANDOM_ENGINE), {
    message: /the token kept for me\/a at .* was refused \(401 .*\); the bridge leaves it there and makes no other identity\. .*dicechess reissue-token me\/a --data DIR/,
  });
  await t.rejects(startBridge(t, app.base, ['--register', 'me/a', '--token-file', file], RANDOM_ENGINE), { message: /the token kept for me\/a .* was refused/ });
  t.equal(readFileSync(file, 'utf8'), body, 'the file is as it was');
  // The operator's way back: a working token given once with --token takes the refused one's place.
  const fixed = await startBridge(t, app.base, ['--token', reg.token, '--token-file', file], RANDOM_ENGINE);
  t.equal(readyId(fixed), 'bot:team:me:a');
  t.same(saved(file).map((i) => i.token), [reg.token], 'the working token replaced the refused one');
});

t.test('a token file of the first shape (one identity) loads', async (t) => {
  const app = await bootApp(t);
  const file = scratchFile(t);
  const reg = (await app.req('POST', '/bot/register', { body: { team: 'me', name: 'old' } })).json as { token: string };
  writeFileSync(file, JSON.stringify({ url: app.base, team: 'me', name: 'old', token: reg.token }, null, 2), { mode: 0o600 });
  const b = await startBridge(t, app.base.replace('127.0.0.1', 'localhost'), ['--token-file', file], RANDOM_ENGINE);
  t.equal(readyId(b), 'bot:team:me:old', 'its identity is used');
  await b.bridge.stop(true);
  const c = await startBridge(t, app.base, ['--register', 'me/new', '--token-file', file], RANDOM_ENGINE);
  t.equal(readyId(c), 'bot:team:me:new');
  t.same(saved(file).map((i) => `${i.team}/${i.name}:${i.token === reg.token}`), ['me/old:true', 'me/new:false'], 'converted on the next write, the old identity kept');
});

t.test('anonymous: minted once, reused, and added beside registered identities of other servers', async (t) => {
  const app = await bootApp(t);
  const file = scratchFile(t);
  writeFileSync(file, JSON.stringify({ version: 2, identities: [{ server: 'x', url: 'http://10.9.9.9:1', team: 'me', name: 'far', token: 'dcb_far' }] }), { mode: 0o600 });
  const a = await startBridge(t, app.base, ['--token-file', file], RANDOM_ENGINE);
  t.match(readyId(a), /^bot:team:anon:/);
  await a.bridge.stop(true);
  const b = await startBridge(t, app.base, ['--token-file', file], RANDOM_ENGINE);
  t.equal(readyId(b), readyId(a), 'the saved anonymous identity is reused');
  t.same(saved(file).map((i) => i.team), ['me', 'anon'], 'the other server’s identity is kept');
});
