// The load drivers read legal-move trees and ndjson lines without parsing them (bench/driver-common.ts).
// These helpers decide which moves the benchmarks submit, so they must agree with the plain JSON way:
// same path for the same random numbers, on the engine's own tree text and on arbitrary trees.
import t from 'tap';
import fc from 'fast-check';
import { buildCorpus, xorshift } from '../../bench/engine-corpus.js';
import { byteLineSplitter, intAfter, randomPath, randomPathIn, type Tree } from '../../bench/driver-common.js';
import { legalTree, treeToJson } from '../../src/engine/index.js';

/** Runs `f` with Math.random replaced by a seeded generator. */
function seeded<T>(seed: number, f: () => T): T {
  const real = Math.random;
  Math.random = xorshift(seed);
  try {
    return f();
  } finally {
    Math.random = real;
  }
}

t.test('randomPathIn picks the path randomPath picks, on engine trees', async (t) => {
  let nonEmpty = 0;
  for (const [i, pos] of buildCorpus(150, 60, 7).entries()) {
    const text = treeToJson(legalTree(pos).bytes);
    const tree = JSON.parse(text) as Tree;
    if (Object.keys(tree).length) nonEmpty++;
    const a = seeded(i + 1, () => randomPathIn(Buffer.from(text), 0));
    const b = seeded(i + 1, () => randomPath(tree));
    if (!t.same(a, b, `position ${i}`)) break;
  }
  t.ok(nonEmpty > 100, 'most corpus trees have moves');
});

t.test('randomPathIn reads a tree inside a larger text, and refuses what is not the compact form', async (t) => {
  const line = Buffer.from('{"DiceRolled":{"v":7,"seat":"White","legalMoves":{"e2e4":{"d2d4":{}},"g1f3":{}}}}');
  const at = line.indexOf('"legalMoves":') + '"legalMoves":'.length;
  const path = seeded(3, () => randomPathIn(line, at));
  t.ok(path && (path.join() === 'e2e4,d2d4' || path.join() === 'g1f3'), `a root-to-leaf path: ${path}`);
  const b = (s: string) => Buffer.from(s);
  t.same(randomPathIn(b('{}'), 0), [], 'the empty tree is a forced pass');
  t.equal(randomPathIn(b('{ "e2e4": {} }'), 0), undefined, 'whitespace: not the compact form');
  t.equal(randomPathIn(b('null'), 0), undefined);
  t.equal(randomPathIn(b('{"e2e4":{'), 0), undefined, 'truncated');
  t.equal(randomPathIn(b('{"e2e4":{}'), 0), undefined, 'unclosed root');
  t.equal(intAfter(line, '"v":'), 7);
  t.ok(Number.isNaN(intAfter(line, '"version":')));
});

const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small' },
    fc.constant({}),
    fc.dictionary(fc.stringMatching(/^[a-h][1-8][a-h][1-8][qrbn]?$/), tie('tree'), { maxKeys: 4 }),
  ),
})).tree;

t.test('randomPathIn agrees with randomPath on arbitrary trees', async (t) => {
  fc.assert(
    fc.property(treeArb, fc.integer({ min: 1, max: 2 ** 31 }), (tree, seed) => {
      const text = Buffer.from(JSON.stringify(tree));
      const a = seeded(seed, () => randomPathIn(text, 0));
      const b = seeded(seed, () => randomPath(tree));
      return JSON.stringify(a) === JSON.stringify(b);
    }),
  );
  t.pass('property held');
});

t.test('byteLineSplitter yields every non-empty line whatever the chunking', async (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.stringMatching(/^[a-z{}":,0-9]{0,12}$/), { maxLength: 8 }),
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 10 }),
      (lines, cuts) => {
        const text = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        const seen: string[] = [];
        const feed = byteLineSplitter((buf, s, e) => seen.push(buf.toString('latin1', s, e)));
        let at = 0;
        for (let k = 0; at < text.length; k++) {
          const n = cuts[k % cuts.length];
          feed(text.subarray(at, at + n));
          at += n;
        }
        return JSON.stringify(seen) === JSON.stringify(lines.filter((l) => l.length > 0));
      },
    ),
  );
  t.pass('property held');
});
