// The binary tree format and its readers (docs/ENGINE.md: the legal-move tree wire JSON, docs/ENGINE.md byte layout).
import t from 'tap';
import { START_FEN, legalTree, treeHasPath, treeLeafCount, treePaths, treeToJson, treeToObject } from '../../src/engine/index.js';
import { posWith } from '../helpers/engine.js';

const PROMO = '4k3/3P4/8/8/8/8/8/4K3 w - - 0 1';

t.test('header and node layout', async (t) => {
  const { bytes, leaves } = legalTree(posWith(PROMO, [1]));
  t.equal(leaves, 5);
  t.equal(bytes[0], 0xd7, 'magic');
  t.equal(bytes[1], 1, 'version');
  t.equal(bytes[2] | (bytes[3] << 8) | (bytes[4] << 16) | (bytes[5] << 24), 5, 'leaf count, u32 little-endian');
  t.equal(bytes[6] | (bytes[7] << 8), 5, 'root has five children');
  // root: 2 + 5×2 (codes) + 5×4 (offsets) = 32 bytes, then five 2-byte leaves
  t.equal(bytes.length, 6 + 32 + 5 * 2, 'one flat buffer, nothing else');
  t.equal(bytes.byteOffset, 0);
  t.equal(bytes.buffer.byteLength, bytes.length, 'owns its whole ArrayBuffer, so it can be transferred');
  t.equal(treeLeafCount(bytes), 5);
});

t.test('JSON text is the exact wire form', async (t) => {
  t.equal(treeToJson(legalTree(posWith(PROMO, [1])).bytes), '{"d7d8b":{},"d7d8n":{},"d7d8q":{},"d7d8r":{},"d7e8":{}}');
  t.equal(treeToJson(legalTree(posWith('4k3/8/8/8/8/8/8/N3K3 w - - 0 1', [2])).bytes), '{"a1b3":{},"a1c2":{}}');
  t.equal(treeToJson(legalTree(posWith(START_FEN, [4])).bytes), '{}');
  const nested = treeToJson(legalTree(posWith('8/8/8/8/pk6/8/P7/7K w - - 0 1', [1, 1])).bytes);
  t.equal(nested, '{"a2a3":{"a3b4":{}}}');
});

t.test('JSON text of a large tree, then a small one, from the reused scratch', async (t) => {
  // 44,794 leaves: its text is far larger than the encoder's first scratch buffer.
  const big = legalTree(posWith('3q4/8/1b5r/R7/2b1n3/8/N4Kk1/1r6 b - - 51 51', [3, 4, 5])).bytes;
  t.ok(big.length > 1 << 16, `tree of ${big.length} bytes`);
  t.equal(treeToJson(big), JSON.stringify(treeToObject(big)));
  const small = legalTree(posWith(PROMO, [1])).bytes;
  t.equal(treeToJson(small), JSON.stringify(treeToObject(small)), 'no bytes left over from the large one');
});

t.test('treeHasPath wants one exact root-to-leaf path (the legal-move tree)', async (t) => {
  const bytes = legalTree(posWith(START_FEN, [1, 2])).bytes;
  t.ok(treeHasPath(bytes, ['e2e4', 'g1e2']));
  t.ok(treeHasPath(bytes, ['g1f3', 'e2e4']));
  t.notOk(treeHasPath(bytes, ['e2e4']), 'prefix');
  t.notOk(treeHasPath(bytes, []), 'empty');
  t.notOk(treeHasPath(bytes, ['e2e4', 'g1e2', 'e4e5']), 'extra move');
  t.notOk(treeHasPath(bytes, ['E2E4', 'G1E2']), 'upper case');
  t.notOk(treeHasPath(bytes, ['e2e4', 'g1e2 ']), 'trailing space');
  t.notOk(treeHasPath(bytes, ['e2e4', 'b1d2']), 'not a continuation');
  t.notOk(treeHasPath(bytes, [42 as unknown as string, 'g1e2']), 'not a string');
  const promo = legalTree(posWith(PROMO, [1])).bytes;
  t.notOk(treeHasPath(promo, ['d7d8']), 'missing promotion suffix');
  t.notOk(treeHasPath(promo, ['d7d8Q']), 'upper-case suffix');
  t.notOk(treeHasPath(promo, ['d7e8q']), 'suffix on a king capture');
  t.ok(treeHasPath(promo, ['d7d8n']));
});

t.test('paths come out in key order; object keys sorted', async (t) => {
  const bytes = legalTree(posWith(START_FEN, [2, 2])).bytes;
  const paths = treePaths(bytes).map((p) => p.join(' '));
  t.same(paths, [...paths].sort());
  t.equal(paths.length, 24);
  t.same(Object.keys(treeToObject(bytes)), ['b1a3', 'b1c3', 'g1f3', 'g1h3']);
});

t.test('readers refuse bytes that are not a tree', async (t) => {
  t.throws(() => treeToJson(new Uint8Array([1, 2, 3])));
  t.throws(() => treeLeafCount(new Uint8Array(8)));
});
