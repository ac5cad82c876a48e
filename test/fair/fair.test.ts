// Provably fair dice (docs/API.md, "Fair dice"), checked against fixed known answers.
import t from 'tap';
import { commitOf, hexToSeed, newServerSeed, rollDice, seedToHex } from '../../src/fair/index.js';

const SEED = Uint8Array.from({ length: 32 }, (_, i) => i);

t.test('commitment of the known seed', async (t) => {
  t.equal(commitOf(SEED), '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd');
});

t.test('rolls of plies 0..5 and 11 (ply 11 skips its first byte)', async (t) => {
  const expected = [[1, 2, 3], [2, 6, 6], [3, 1, 6], [5, 4, 3], [4, 5, 6], [6, 2, 4]];
  for (let ply = 0; ply < expected.length; ply++) t.same(rollDice(SEED, 'alice', 'bob', ply), expected[ply], `ply ${ply}`);
  t.same(rollDice(SEED, 'alice', 'bob', 11), [5, 2, 2]);
});

t.test('client seeds and their order matter; dice stay in 1..6', async (t) => {
  t.notSame(
    [0, 1, 2, 3].map((p) => rollDice(SEED, 'bob', 'alice', p)),
    [0, 1, 2, 3].map((p) => rollDice(SEED, 'alice', 'bob', p)),
  );
  for (let ply = 0; ply < 200; ply++) {
    const d = rollDice(SEED, 'bot:team:x:y', 'ünïcødé seed', ply);
    t.equal(d.length, 3);
    t.ok(d.every((x) => Number.isInteger(x) && x >= 1 && x <= 6));
  }
  t.throws(() => rollDice(SEED, 'a', 'b', -1));
});

t.test('seed hex round trip and validation', async (t) => {
  const hex = seedToHex(SEED);
  t.equal(hex, '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
  t.same(hexToSeed(hex), SEED);
  t.same(hexToSeed(hex.toUpperCase()), SEED, 'either case');
  t.equal(hexToSeed(hex.slice(2)), null, 'too short');
  t.equal(hexToSeed(hex + '00'), null, 'too long');
  t.equal(hexToSeed('zz' + hex.slice(2)), null, 'not hex');
  t.equal(hexToSeed(''), null);
});

t.test('fresh seeds are 32 bytes and differ', async (t) => {
  const a = newServerSeed();
  const b = newServerSeed();
  t.equal(a.length, 32);
  t.notSame(a, b);
  t.match(commitOf(a), /^[0-9a-f]{64}$/);
});
