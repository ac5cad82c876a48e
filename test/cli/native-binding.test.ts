// `serve` runs on the native uWebSockets.js binding or not at all: on a Node the build has no binary
// for (it ships Node 16, 18 and 20 only), the package would quietly fall back to a JavaScript
// imitation. The check says why in one line and the command exits non-zero before anything loads.
import t from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nativeBindingProblem, type Runtime } from '../../src/cli/native-binding.js';

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

const here: Runtime = {
  platform: process.platform,
  arch: process.arch,
  modules: process.versions.modules,
  nodeVersion: process.version,
  env: {},
};

t.test('the binding loads natively here', async (t) => {
  t.equal(nativeBindingProblem(here), undefined);
});

t.test('a Node without a binary in the build is one line naming the versions that work', async (t) => {
  const msg = nativeBindingProblem({ ...here, modules: '127', nodeVersion: 'v22.11.0' });
  t.type(msg, 'string');
  t.match(msg, /needs Node\.js 20/);
  t.match(msg, /v22\.11\.0/);
  t.notMatch(msg ?? '', /\n/, 'one line');
});

t.test('UWS_USE_FALLBACK asks for the imitation: refused unless it says no', async (t) => {
  t.match(nativeBindingProblem({ ...here, env: { UWS_USE_FALLBACK: '1' } }), /UWS_USE_FALLBACK/);
  t.match(nativeBindingProblem({ ...here, env: { UWS_USE_FALLBACK: 'true' } }), /UWS_USE_FALLBACK/);
  t.equal(nativeBindingProblem({ ...here, env: { UWS_USE_FALLBACK: 'false' } }), undefined);
  t.equal(nativeBindingProblem({ ...here, env: { UWS_USE_FALLBACK: '' } }), undefined);
});

/** Runs `serve` in a child; bounded, and a server that starts anyway is killed and reported. */
function serve(nodeArgs: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve', '--memory', '--host', '127.0.0.1', '--port', '0'], {
      env: { ...process.env, ...env, DICECHESS_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
      if (stdout.includes('"msg":"listening on')) child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

t.test('serve on an unsupported Node exits 1 with one line on stderr, before the binding loads', async (t) => {
  // Makes this Node 20 look like Node 22 (ABI 127) to everything that asks.
  const pretend =
    'data:text/javascript,Object.defineProperty(process,"versions",{value:{...process.versions,modules:"127",node:"22.11.0"}});' +
    'Object.defineProperty(process,"version",{value:"v22.11.0"});';
  const r = await serve(['--import', pretend], {});
  t.equal(r.code, 1, `exit code 1 (stdout: ${r.stdout})`);
  t.same(r.stderr.trim().split('\n').length, 1, `one line: ${JSON.stringify(r.stderr)}`);
  t.match(r.stderr, /needs Node\.js 20.*v22\.11\.0/);
  t.notMatch(r.stdout + r.stderr, /Falling back|fallback implementation/, 'the package never got to load its imitation');
});

t.test('serve with UWS_USE_FALLBACK set exits 1 with one line on stderr', async (t) => {
  const r = await serve([], { UWS_USE_FALLBACK: '1' });
  t.equal(r.code, 1, `exit code 1 (stdout: ${r.stdout})`);
  t.match(r.stderr.trim(), /^UWS_USE_FALLBACK is set[^\n]*$/);
});
