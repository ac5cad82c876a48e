// `dicechess --help` and every subcommand's --help, run as a user runs them: usage on stdout, exit 0.
// Mistakes still go to stderr with exit 2.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli.js');

function dicechess(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

t.test('dicechess --help, -h and help: the usage of every command on stdout, exit 0', async (t) => {
  for (const flag of ['--help', '-h', 'help']) {
    const r = dicechess(flag);
    t.equal(r.code, 0, `${flag}: exit 0`);
    t.equal(r.err, '', `${flag}: nothing on stderr`);
    for (const cmd of ['serve', 'bridge', 'moves', 'perft', 'roll', 'commit']) t.match(r.out, `dicechess ${cmd}`, `${flag}: names ${cmd}`);
  }
});

t.test('every subcommand answers --help (and -h) on stdout with exit 0', async (t) => {
  const expect: Record<string, RegExp> = {
    serve: /usage: dicechess serve[\s\S]*--port[\s\S]*DICECHESS_PORT/,
    bridge: /usage: dicechess bridge[\s\S]*--register[\s\S]*-- COMMAND/,
    moves: /usage: moves "<dfen with dice>"/,
    perft: /usage: perft "<fen>" <die 1\.\.6> <depth>/,
    roll: /usage: roll <server-seed-hex> <white-seed> <black-seed> <ply>/,
    commit: /usage: commit <server-seed-hex>/,
  };
  for (const [cmd, usage] of Object.entries(expect)) {
    for (const flag of ['--help', '-h']) {
      const r = dicechess(cmd, flag);
      t.equal(r.code, 0, `${cmd} ${flag}: exit 0`);
      t.match(r.out, usage, `${cmd} ${flag}: its usage on stdout`);
      t.equal(r.err, '', `${cmd} ${flag}: nothing on stderr`);
    }
  }
  const late = dicechess('serve', '--memory', '--help');
  t.equal(late.code, 0, '--help after other serve flags still only prints help');
  t.match(late.out, /usage: dicechess serve/);
});

t.test('mistakes: usage on stderr, exit 2', async (t) => {
  for (const args of [[], ['bogus'], ['serve', '--bogus'], ['serve', '--port'], ['moves'], ['bridge', '--bogus'], ['bridge', '--games', '2']]) {
    const r = dicechess(...args);
    t.equal(r.code, 2, `dicechess ${args.join(' ')}: exit 2`);
    t.equal(r.out, '', 'nothing on stdout');
    t.match(r.err, /usage/, 'the usage on stderr');
  }
});
