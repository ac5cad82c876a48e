// `dicechess --help` and every subcommand's --help: usage on stdout, exit 0. Mistakes go to stderr
// with exit 2. A few are run as a user runs them (a real process: its stdout, stderr and exit code);
// the rest call the same command in this process (runCli with captured output), since what they
// check is the text and the code, not the process. `bridge` always runs as a process: it ends the
// process itself, as it must after real play.
import t from 'tap';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/main.js';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli.js');

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** `dicechess ARGS` as a child process; killed by its PID if it outlives 120 s (a bound, not a timing). */
function dicechess(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** The same command run in this process, its lines captured as the console would print them. */
async function inProcess(...args: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const code = await runCli(args, { log: (s) => (out += `${s}\n`), error: (s) => (err += `${s}\n`) });
  return { code, out, err };
}

const COMMANDS = ['serve', 'bridge', 'moves', 'perft', 'roll', 'commit'];

t.test('as processes: help on stdout with exit 0, a mistake on stderr with exit 2', async (t) => {
  const cases: Array<[string[], number, 'out' | 'err', RegExp]> = [
    [['--help'], 0, 'out', /dicechess serve[\s\S]*dicechess commit/],
    [['serve', '--help'], 0, 'out', /usage: dicechess serve[\s\S]*--port[\s\S]*DICECHESS_PORT/],
    [['bridge', '--help'], 0, 'out', /usage: dicechess bridge[\s\S]*--register[\s\S]*-- COMMAND/],
    [['bridge', '-h'], 0, 'out', /usage: dicechess bridge[\s\S]*--register[\s\S]*-- COMMAND/],
    [[], 2, 'err', /usage/],
    [['bogus'], 2, 'err', /usage/],
    [['bridge', '--bogus'], 2, 'err', /usage/],
    [['bridge', '--games', '2'], 2, 'err', /usage/],
  ];
  const runs = await Promise.all(cases.map(([args]) => dicechess(...args)));
  cases.forEach(([args, code, stream, text], i) => {
    const r = runs[i];
    const name = `dicechess ${args.join(' ')}`.trim();
    t.equal(r.code, code, `${name}: exit ${code}`);
    t.match(r[stream], text, `${name}: ${stream === 'out' ? 'its usage on stdout' : 'the usage on stderr'}`);
    t.equal(r[stream === 'out' ? 'err' : 'out'], '', `${name}: nothing on std${stream === 'out' ? 'err' : 'out'}`);
  });
});

t.test('dicechess --help, -h and help: the usage of every command on stdout, exit 0', async (t) => {
  for (const flag of ['--help', '-h', 'help']) {
    const r = await inProcess(flag);
    t.equal(r.code, 0, `${flag}: exit 0`);
    t.equal(r.err, '', `${flag}: nothing on stderr`);
    for (const cmd of COMMANDS) t.match(r.out, `dicechess ${cmd}`, `${flag}: names ${cmd}`);
  }
});

t.test('every subcommand answers --help (and -h) on stdout with exit 0', async (t) => {
  const expect: Record<string, RegExp> = {
    serve: /usage: dicechess serve[\s\S]*--port[\s\S]*DICECHESS_PORT/,
    moves: /usage: moves "<dfen with dice>"/,
    perft: /usage: perft "<fen>" <die 1\.\.6> <depth>/,
    roll: /usage: roll <server-seed-hex> <white-seed> <black-seed> <ply>/,
    commit: /usage: commit <server-seed-hex>/,
  };
  t.same([...Object.keys(expect), 'bridge'].sort(), [...COMMANDS].sort(), 'every command (bridge as a process, above)');
  for (const [cmd, usage] of Object.entries(expect)) {
    for (const flag of ['--help', '-h']) {
      const r = await inProcess(cmd, flag);
      t.equal(r.code, 0, `${cmd} ${flag}: exit 0`);
      t.match(r.out, usage, `${cmd} ${flag}: its usage on stdout`);
      t.equal(r.err, '', `${cmd} ${flag}: nothing on stderr`);
    }
  }
  const late = await inProcess('serve', '--memory', '--help');
  t.equal(late.code, 0, '--help after other serve flags still only prints help');
  t.match(late.out, /usage: dicechess serve/);
});

t.test('mistakes: usage on stderr, exit 2', async (t) => {
  for (const args of [[], ['bogus'], ['serve', '--bogus'], ['serve', '--port'], ['moves']]) {
    const r = await inProcess(...args);
    t.equal(r.code, 2, `dicechess ${args.join(' ')}: exit 2`);
    t.equal(r.out, '', 'nothing on stdout');
    t.match(r.err, /usage/, 'the usage on stderr');
  }
});
