// `dicechess backup` as an operator runs it: a separate process copying the data directory of a server
// that keeps running, and a new server started on the copy (the restore) that knows the same bots by
// their tokens and serves the finished game. Also a stopped server's directory, and the refusals.
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootApp } from '../helpers/app.js';
import { Bot } from '../helpers/bot.js';
import { until } from '../helpers/poll.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import type { Teardown } from '../helpers/http.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI = join(ROOT, 'dist/src/cli.js');

function tempDir(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-backup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function storeOn(dir: string): Promise<Store> {
  const opened = await openStore({ memory: false, dataDir: dir });
  if (!opened.ok) throw new Error(opened.error);
  return opened.value;
}

/** `dicechess ARGS` in its own process (the server in this one keeps serving meanwhile). */
function dicechess(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) => done({ code, out, err }));
  });
}

t.test('a backup taken while the server runs restores the bots and their finished game', async (t) => {
  const data = tempDir(t);
  const copy = join(tempDir(t), 'copy');
  const app = await bootApp(t, { store: await storeOn(data) });
  const alice = await Bot.register(app, 'team', 'alice');
  const bob = await Bot.register(app, 'team', 'bob');
  const gameId = await alice.playAgainst(bob);
  t.equal((await alice.resign(gameId)).status, 202);
  await until(async () => ('Ended' in ((await app.req('GET', `/games/${gameId}`)).json as { status: object }).status ? true : undefined), 'the game to end');

  const r = await dicechess(['backup', '--data', data, copy]);
  t.equal(r.code, 0, `backup exits 0: ${r.err}`);
  t.match(r.out, /^backup of .* written to .*\(\d+ bytes, schema \d+\)/);
  t.equal((await app.req('GET', '/health')).status, 200, 'the server served on');
  // Written after the copy: the copy is the state of one moment, not a live view.
  const carol = await Bot.register(app, 'team', 'carol');

  const restored = await bootApp(t, { store: await storeOn(copy) });
  for (const b of [alice, bob]) {
    const me = await restored.req('GET', '/bot/account', { token: b.token });
    t.equal(me.status, 200, `${b.creds.name} authenticates with its token on the copy`);
    t.equal((me.json as { id: string }).id, b.id);
  }
  t.equal((await restored.req('GET', '/bot/account', { token: carol.token })).status, 401, 'a bot registered after the copy is not in it');
  const h = await restored.req('GET', `/games/${gameId}/history`);
  t.equal(h.status, 200, 'the finished game is readable');
  const status = (h.json as { status: { Ended?: { over: { termination: string } } } }).status;
  t.equal(status.Ended?.over.termination, 'Resign', 'as it ended');
});

t.test('a stopped server\'s directory is copied too; a copy over an existing one and a non-directory are refused', async (t) => {
  const data = tempDir(t);
  const app = await bootApp(t, { store: await storeOn(data) });
  const dave = await Bot.register(app, 'team', 'dave');
  await app.server.close();

  const copy = join(tempDir(t), 'copy');
  const r = await dicechess(['backup', copy], { DICECHESS_DATA: data });
  t.equal(r.code, 0, `DICECHESS_DATA names the source, as for serve: ${r.err}`);
  const store = await storeOn(copy);
  t.equal(store.getBot(dave.id)?.name, 'dave', 'the copy holds the bot');
  await store.close();

  const again = await dicechess(['backup', '--data', data, copy]);
  t.equal(again.code, 1, 'not over an existing copy');
  t.match(again.err, /already holds a data\.mdb/);
  const empty = join(tempDir(t), 'empty');
  mkdirSync(empty);
  writeFileSync(join(empty, 'note'), 'not data');
  const none = await dicechess(['backup', '--data', empty, join(tempDir(t), 'x')]);
  t.equal(none.code, 1);
  t.match(none.err, /not a data directory/);
  t.equal((await dicechess(['backup'])).code, 2, 'no target: usage');
});
