// Where `dicechess serve` and `make run` listen: flags over DICECHESS_* over the config file over the
// defaults, and a `make run` that passes no flag unless given one, so the environment is obeyed.
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseServeFlags, serveConfig, type ServeFlags } from '../../src/cli/serve-flags.js';
import { request } from '../helpers/http.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function flags(...args: string[]): ServeFlags {
  const f = parseServeFlags(args);
  if (typeof f === 'string') throw new Error(f);
  return f;
}

function port(args: string[], env: Record<string, string>): number {
  const c = serveConfig(flags(...args), env);
  if (!c.ok) throw new Error(c.error);
  return c.value.port;
}

/** The serve command line `make run` would execute (make -n prints it without running anything). */
function makeRun(vars: string[], env: Record<string, string> = {}): string[] {
  const clean = { ...process.env };
  for (const k of ['PORT', 'HOST', 'DATA', 'MAKEFLAGS', 'MFLAGS']) delete clean[k];
  const r = spawnSync('make', ['-n', '-s', 'run', ...vars], { cwd: ROOT, encoding: 'utf8', env: { ...clean, ...env } });
  if (r.status !== 0) throw new Error(`make -n run failed: ${r.stderr}`);
  // `[VAR=value …] node [V8 flags] dist/src/cli.js serve [flags]` (the variables are glibc's malloc
  // settings): the flags after `serve` are what is checked.
  const line = r.stdout.split('\n').find((l) => /^(\w+=\S* )*node (-\S+ )*dist\/src\/cli\.js serve\b/.test(l));
  if (line === undefined) throw new Error(`no serve line in:\n${r.stdout}`);
  const words = line.trim().split(/\s+/);
  return words.slice(words.indexOf('serve') + 1);
}

t.test('layers: default, then DICECHESS_*, then flags', async (t) => {
  t.equal(port([], {}), 8080, 'the default');
  t.equal(port([], { DICECHESS_PORT: '9999' }), 9999, 'the environment over the default');
  t.equal(port(['--port', '7000'], { DICECHESS_PORT: '9999' }), 7000, 'a flag over the environment');
  const c = serveConfig(flags(), { DICECHESS_HOST: '0.0.0.0', DICECHESS_DATA: '/srv/dc' });
  t.match(c.ok && c.value, { host: '0.0.0.0', dataDir: '/srv/dc', memory: false });
  const bad = serveConfig(flags(), { DICECHESS_PORT: 'eighty' });
  t.match(bad.ok ? '' : bad.error, /port/, 'a bad value names the field');
});

t.test('make run passes only the flags it is given', async (t) => {
  t.same(makeRun([]), [], 'no flags at all by default');
  t.same(makeRun(['PORT=9000']), ['--port', '9000']);
  t.same(makeRun(['HOST=0.0.0.0', 'PORT=9000', 'DATA=/tmp/dc']), ['--host', '0.0.0.0', '--port', '9000', '--data', '/tmp/dc']);
  t.same(makeRun([], { PORT: '3000' }), [], 'a PORT exported for something else is not taken');
  t.equal(port(makeRun([]), { DICECHESS_PORT: '9999' }), 9999, 'DICECHESS_PORT=9999 make run: 9999');
  t.equal(port(makeRun(['PORT=9000']), { DICECHESS_PORT: '9999' }), 9000, 'make run PORT=9000 wins over the environment');
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  const { port: p } = s.address() as { port: number };
  await new Promise<void>((done) => s.close(() => done()));
  return p;
}

t.test('the command make run prints, run with DICECHESS_PORT, listens on that port', { timeout: 60_000 }, async (t) => {
  const want = await freePort();
  const child = spawn(process.execPath, ['dist/src/cli.js', 'serve', ...makeRun([])], {
    cwd: ROOT,
    env: { ...process.env, DICECHESS_PORT: String(want), DICECHESS_MEMORY: 'true', DICECHESS_SHARDS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let out = '';
  const listening = await new Promise<boolean>((done) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString('utf8');
      if (out.includes('listening on')) done(true);
    });
    void exited.then(() => done(false));
  });
  t.ok(listening, `the server started (${out.slice(0, 300)})`);
  t.match(out, `listening on http://127.0.0.1:${want}`);
  const health = await request('GET', `http://127.0.0.1:${want}/health`);
  t.equal(health.status, 200, 'and answers there');
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'SIGTERM stops it cleanly');
});
