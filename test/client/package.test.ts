// The package dicechess-client (packages/client) installs on its own: packed as npm would publish it,
// installed into an empty project offline (it has no dependencies, so no registry is needed; the
// registry is pointed at a closed local port so a slip would fail rather than reach out), it brings
// nothing else, its declarations type-check without zod or Node's types, and a plain ESM script and
// the package's example play against a real server.
import t from 'tap';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { systemClock } from '../../src/domain/clock.js';
import { bootApp } from '../helpers/app.js';
import { ROOT } from '../helpers/bridge.js';

const run = promisify(execFile);
const PACKAGE = join(ROOT, 'packages/client');

/** npm, kept off the network and off the user's cache. */
function npm(args: string[], cwd: string, cache: string) {
  return run('npm', [...args, '--offline', '--no-audit', '--no-fund', '--registry', 'http://127.0.0.1:9/', '--cache', cache], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** Every .js file under a folder. */
function scripts(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? scripts(p) : p.endsWith('.js') ? [p] : [];
  });
}

/** A node process's exit code and output, killed after `ms`. */
function node(args: string[], cwd: string, ms: number): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (out += s));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  return new Promise((resolve) => child.once('close', (code) => (clearTimeout(timer), resolve({ code, out }))));
}

t.test('dicechess-client packs, installs alone into an empty project, and plays against a real server', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-client-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cache = join(dir, 'npm-cache');

  // npm pack runs the package's prepack, its build: src/client compiled into packages/client/dist.
  const packed = JSON.parse((await npm(['pack', '--json', '--pack-destination', dir], PACKAGE, cache)).stdout) as { filename: string; files: { path: string }[] }[];
  const files = packed[0]!.files.map((f) => f.path);
  t.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts'), 'the tarball holds the build and its declarations');
  t.ok(files.includes('examples/play-house.mjs'), 'and the example');

  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'empty-project', version: '1.0.0', private: true, type: 'module' }));
  await npm(['install', '--ignore-scripts', join(dir, packed[0]!.filename)], project, cache);
  const installed = readdirSync(join(project, 'node_modules')).filter((f) => !f.startsWith('.'));
  t.same(installed, ['dicechess-client'], 'node_modules holds the client and nothing else (no zod, lmdb, uWebSockets.js, msgpackr…)');
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules/dicechess-client/package.json'), 'utf8')) as Record<string, unknown>;
  t.same([manifest.dependencies, manifest.peerDependencies, manifest.optionalDependencies], [undefined, undefined, undefined], 'no dependencies of any kind');
  const outside = scripts(join(project, 'node_modules/dicechess-client/dist')).flatMap((f) =>
    // Comments dropped first: they quote `import … from 'dicechess/client'`.
    [...readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').matchAll(/\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g)]
      .map((m) => (m[1] ?? m[2])!)
      .filter((s) => !s.startsWith('.')),
  );
  t.same(outside, [], 'its code imports only its own files (no node: modules either)');

  // The declarations alone: strict, the DOM library, no @types/node, no zod. The expected errors
  // prove the answers are typed, not `any`.
  writeFileSync(join(project, 'check.ts'), [
    "import { Client, unwrap } from 'dicechess-client';",
    "const c = new Client({ url: 'http://127.0.0.1:8080' });",
    "const game = await c.games.get('id');",
    'if (game.ok) { const dfen: string = game.value.dfen; void dfen; }',
    '// @ts-expect-error a game has no such field',
    'if (game.ok) void game.value.noSuchField;',
    "const verdict = await c.games.move('id', { moves: ['e2e4'], version: 3 });",
    'if (verdict.ok) { const applied: true = verdict.value.applied; void applied; } else if (verdict.pending) void verdict.headers; else void verdict.problem.code;',
    '// @ts-expect-error a move needs its moves',
    "void c.games.move('id', {});",
    "void unwrap(await c.account.get()).name;",
    "for await (const e of c.streams.game('id')) if ('GameEnded' in e) void e.GameEnded.over.termination;",
    '',
  ].join('\n'));
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], types: [] },
    files: ['check.ts'],
  }));
  const tsc = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project }).then(
    () => '',
    (e: { stdout?: string }) => e.stdout ?? String(e),
  );
  t.equal(tsc, '', 'a TypeScript project type-checks against the declarations');

  // The real clock: the example sends no seed, so its opening roll comes when the (zero) grace ends.
  const app = await bootApp(t, { clock: systemClock });
  writeFileSync(join(project, 'main.mjs'), [
    "import { Client, unwrap } from 'dicechess-client';",
    'const c = new Client({ url: process.argv[2] });',
    "c.token = unwrap(await c.account.mintAnonymous({ name: 'packaged' })).token;",
    'const me = unwrap(await c.account.get());',
    'const games = unwrap(await c.games.list());',
    "const wrong = await c.challenges.accept('no-such-challenge');",
    'console.log(JSON.stringify({ name: me.name, games: Array.isArray(games.games), health: unwrap(await c.server.health()).status, wrong: wrong.ok ? null : wrong.status }));',
    '',
  ].join('\n'));
  const script = await node(['main.mjs', app.base], project, 30_000);
  t.equal(script.code, 0, `the script exits 0 (output: ${script.out})`);
  t.match(JSON.parse(script.out.trim().split('\n').at(-1) ?? 'null'), { name: /^packaged-/, games: true, health: 'ok', wrong: 404 }, 'it minted a bot, read its account, listed games; a refusal is a value');

  const example = await node([join(project, 'node_modules/dicechess-client/examples/play-house.mjs'), app.base], project, 45_000);
  t.equal(example.code, 0, `the package's example exits 0 (output: ${example.out})`);
  t.match(example.out, /"termination":"(KingCaptured|Draw)"/, 'after playing a whole game and printing how it ended');
});
