// The engine CLI subcommands, called in-process with captured output.
import t from 'tap';
import { engineCommand } from '../../src/cli/engine.js';
import { START_FEN } from '../../src/engine/index.js';

function run(...argv: string[]): { code: number | null; out: string; err: string } {
  let out = '';
  let err = '';
  const code = engineCommand(argv, (s) => (out += s), (s) => (err += s));
  return { code, out, err };
}

t.test('moves prints the tree JSON', async (t) => {
  const r = run('moves', '4k3/3P4/8/8/8/8/8/4K3 w - - 0 1 P');
  t.equal(r.code, 0);
  t.equal(r.out, '{"d7d8b":{},"d7d8n":{},"d7d8q":{},"d7d8r":{},"d7e8":{}}');
  t.equal(r.err, '');
  t.equal(run('moves', `${START_FEN} BRQ`).out, '{}', 'forced pass');
});

t.test('moves errors exit 2 naming the problem', async (t) => {
  const bad = run('moves', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1 P');
  t.equal(bad.code, 2);
  t.match(bad.err, /bad_rank_count/);
  t.match(bad.err, /8 ranks/);
  t.equal(bad.out, '');
  const noDice = run('moves', START_FEN);
  t.equal(noDice.code, 2);
  t.match(noDice.err, /no dice pending/);
  t.equal(run('moves').code, 2);
});

t.test('perft prints the node count', async (t) => {
  t.same(run('perft', START_FEN, '1', '1'), { code: 0, out: '16', err: '' });
  t.same(run('perft', START_FEN, '2', '2'), { code: 0, out: '16', err: '' });
  for (const args of [['x', '1', '1'], [START_FEN, '7', '1'], [START_FEN, '0', '1'], [START_FEN, '1', '-1'], [START_FEN, '1']]) {
    const r = run('perft', ...args);
    t.equal(r.code, 2, `perft ${args.join(' ')}`);
    t.match(r.err, /usage: perft/);
  }
});

const SEED = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
t.test('roll and commit reproduce the fair-dice known answers', async (t) => {
  t.same(run('roll', SEED, 'alice', 'bob', '0'), { code: 0, out: '[1,2,3]', err: '' });
  t.same(run('roll', SEED, 'alice', 'bob', '11'), { code: 0, out: '[5,2,2]', err: '' });
  t.same(run('commit', SEED), { code: 0, out: '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd', err: '' });
  t.equal(run('roll', 'abc', 'alice', 'bob', '0').code, 2);
  t.equal(run('roll', SEED, 'alice', 'bob', 'x').code, 2);
  t.equal(run('roll', SEED, 'alice', 'bob').code, 2);
  const c = run('commit', 'zz');
  t.equal(c.code, 2);
  t.match(c.err, /usage: commit/);
});

t.test('other subcommands are not ours', async (t) => {
  t.equal(run('serve').code, null);
  t.equal(run().code, null);
  t.equal(run('toString').code, null);
});
