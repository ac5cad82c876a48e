// Runs the compiled test files (dist/test/**/*.test.js), several at a time, each as a plain
// `node file` process: a tap test file is a program that prints TAP and exits non-zero when a check
// fails. tap's own runner is not used because it loads a coverage and process-tracking hook into every
// test process and every child process a test starts, which cost about as much CPU as the tests of a
// small file did.
//
// Prints one line per file as it finishes ("ok N - file # time=…ms"), then the failing checks of
// every failed file with the tail of its stderr, and closes with one plain line, "tests: N passed,
// N failed", that CI and humans can read. Exit code: 0 when every file passed. The whole output of
// every file is kept in .tap-output.log.
//
// Files that start a whole cluster count as two of the places and get twice the time limit. Each file runs in its own process group; when it exits, anything it left running (a server, a
// nats-server) is killed with the group and named in the output; a file that runs past the time
// limit is killed the same way and fails.
//
//   node scripts/test.mjs [--jobs N] [--timeout SECONDS] [--http-threads N] [file or directory ...]
//
// --http-threads N (default 2; 0 turns the second pass off) runs the HTTP-level files of THREADED
// (among those chosen) a second time with DICECHESS_HTTP_THREADS=N, which test/helpers/app.ts passes
// to every server a test boots; such a run is listed as "<file> [http.threads N]". `make test` runs
// this script without arguments, so it includes that pass.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const args = process.argv.slice(2);
const option = (name, fallback, least = 1) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  args.splice(i, 2);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} takes a whole number of at least ${least}`);
  return value;
};
const jobs = option('--jobs', 4);
const timeoutSeconds = option('--timeout', 240);
const httpThreads = option('--http-threads', 2, 0);

/**
 * HTTP-level files that pass with several edge threads as they do with one (docs/ARCHITECTURE.md,
 * "Edge threads"): robustness/framing and robustness/clients included (pipelined and half-closed
 * connections: an edge thread waits on main for an answer main gives at once, src/edge/threads/at-once.ts).
 */
const THREADED = [
  /^dist\/test\/server\/(smoke|streams|gameplay|routes|identity|challenges|discovery|full-games|move-retry|clocks|metrics|web|http-threads|webhook-restart)\.test\.js$/,
  /^dist\/test\/server\/robustness\/(caps|limits|shared-caps|fuzz|fuzz-bodies|fuzz-identity|framing|clients)\.test\.js$/,
  /^dist\/test\/server\/(lobby|ops)\//,
  /^dist\/test\/browser\/.*\.test\.js$/,
  /^dist\/test\/wire\/conformance\.test\.js$/,
];
/** The suffix of a second run's name. */
const threadedTag = (n) => ` [http.threads ${n}]`;

/** Every *.test.js under `dir`, sorted. */
function testFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const targets = args.length > 0 ? args : ['dist/test'];
const files = targets
  .flatMap((t) => (statSync(resolve(root, t)).isDirectory() ? testFiles(resolve(root, t)) : [resolve(root, t)]))
  .map((f) => relative(root, f))
  // A compiled file whose TypeScript source was deleted or renamed is left over in dist/: not run.
  .filter((f) => !f.startsWith('dist/test/') || existsSync(join(root, f.replace(/^dist\//, '').replace(/\.js$/, '.ts'))));
if (httpThreads > 0) files.push(...files.filter((f) => THREADED.some((re) => re.test(f))).map((f) => f + threadedTag(httpThreads)));
if (files.length === 0) throw new Error('no test files found');

// Longest files first, so that the last ones to finish are short: the times of the last run on this
// checkout when there is one, else the ones recorded in the repository.
const TIMES_LOCAL = join(root, '.test-times.json');
const TIMES_KEPT = join(root, 'scripts', 'test-times.json');
const readTimes = (path) => (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {});
const times = { ...readTimes(TIMES_KEPT), ...readTimes(TIMES_LOCAL) };
const queue = [...files].sort((a, b) => (times[b] ?? 10_000) - (times[a] ?? 10_000));

const env = {
  ...process.env,
  // A tap file's own time limit (seconds); the runner's hard limit comes a little after it.
  TAP_TIMEOUT: String(timeoutSeconds),
};

// Files that start a whole cluster (three nats-servers and three server processes) take two of the
// places: two of them beside each other and anything else starved the machine's two cores.
const HEAVY = [/\/cluster\/node-/];
const weight = (file) => Math.min(jobs, HEAVY.some((re) => re.test(file)) ? 2 : 1);

const results = new Map();
let finished = 0;

/** Whether any process of the group is still running. */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pgid) {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function runFile(file) {
  const threaded = httpThreads > 0 && file.endsWith(threadedTag(httpThreads));
  const path = threaded ? file.slice(0, -threadedTag(httpThreads).length) : file;
  return new Promise((done) => {
    const started = Date.now();
    // A whole-cluster file's time limit is doubled with its places: it does several files' work.
    const limitSeconds = timeoutSeconds * weight(file);
    const child = spawn(process.execPath, ['--enable-source-maps', path], {
      cwd: root,
      env: { ...env, TAP_TIMEOUT: String(limitSeconds), ...(threaded ? { DICECHESS_HTTP_THREADS: String(httpThreads) } : {}) },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    let timedOut = false;
    const limit = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, (limitSeconds + 30) * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      const ms = Date.now() - started;
      const leftOver = groupAlive(child.pid);
      if (leftOver) killGroup(child.pid);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      const ok = code === 0 && !timedOut;
      const counts = /^# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?.*$/m.exec(stdout);
      const r = { file, ok, ms, code, signal, timedOut, leftOver, stdout, stderr, counts };
      results.set(file, r);
      finished++;
      const note = [timedOut ? ' (killed: over the time limit)' : '', leftOver ? ' (left processes running: killed)' : ''].join('');
      console.log(`${ok ? 'ok' : 'not ok'} ${finished} - ${file} # time=${ms}ms${note}`);
      done();
    });
  });
}


const startedAll = Date.now();
await new Promise((allDone) => {
  let free = jobs;
  let running = 0;
  const fill = () => {
    // In order: a file that needs two places waits for them rather than be passed by shorter ones.
    while (queue.length > 0 && weight(queue[0]) <= free) {
      const file = queue.shift();
      const w = weight(file);
      free -= w;
      running++;
      void runFile(file).then(() => {
        free += w;
        running--;
        fill();
      });
    }
    if (running === 0 && queue.length === 0) allDone();
  };
  fill();
});

let passed = 0;
let failed = 0;
const log = [];
const failures = [];
for (const file of files) {
  const r = results.get(file);
  log.push(`# Subtest: ${file}`, r.stdout, r.stderr ? `# stderr:\n${r.stderr}` : '', `# exit ${r.code ?? r.signal}${r.timedOut ? ' (timed out)' : ''}`);
  let fileFailed = 0;
  if (r.counts) {
    passed += Number(r.counts[2]);
    const skipped = Number(/\bskip: (\d+)/.exec(r.counts[0])?.[1] ?? 0);
    fileFailed = r.counts[3] !== undefined ? Number(r.counts[3]) : Number(r.counts[1]) - Number(r.counts[2]) - skipped;
  }
  // A file that crashed, timed out or left no summary counts as one failure at least.
  if (!r.ok && fileFailed === 0) fileFailed = 1;
  failed += fileFailed;
  if (r.ok) continue;
  const lines = r.stdout.split('\n');
  const notOk = [];
  lines.forEach((line, i) => {
    if (/^\s*not ok /.test(line)) notOk.push(lines.slice(i, i + 40).join('\n'));
  });
  const why = r.timedOut ? `killed after ${timeoutSeconds * weight(file) + 30} s` : `exit ${r.code ?? r.signal}`;
  const tail = r.stderr.trim().split('\n').slice(-30).join('\n');
  failures.push([`# ${file}: ${why}`, ...notOk, tail ? `# stderr (last lines):\n${tail}` : ''].join('\n'));
}
// Whatever a file skipped (a whole file, `1..0 # skipped: why`, or one test, `# SKIP why`) is said
// once here with its reason: a test that cannot run on this machine is never passed over silently.
const skips = [];
for (const file of files) {
  for (const line of results.get(file).stdout.split('\n')) {
    const whole = /^1\.\.0 # (?:skip(?:ped)?:?)\s*(.*)$/i.exec(line);
    const one = /^\s*ok \d+ - (.*?) # SKIP:?\s*(.*)$/i.exec(line);
    if (whole) skips.push(`# skipped: ${file}: ${whole[1] || 'no reason given'}`);
    else if (one) skips.push(`# skipped: ${file}: "${one[1]}": ${one[2] || 'no reason given'}`);
  }
}
if (skips.length) console.log(skips.join('\n'));
writeFileSync(join(root, '.tap-output.log'), log.join('\n'));
writeFileSync(TIMES_LOCAL, JSON.stringify({ ...readTimes(TIMES_LOCAL), ...Object.fromEntries(files.map((f) => [f, results.get(f).ms])) }, null, 1));
if (failures.length) console.log(`\nFAILURES:\n${failures.join('\n---\n')}`);
console.log(`# ${files.length} files in ${Math.round((Date.now() - startedAll) / 1000)} s, ${jobs} at a time`);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failures.length === 0 ? 0 : 1);
