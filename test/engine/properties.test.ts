// Property tests (fast-check) over positions reached by random playouts: DFEN round trips (DFEN) and
// the legal-move tree's invariants (the legal-move tree).
import t from 'tap';
import fc from 'fast-check';
import {
  applyTurn, formatDfen, legalTree, parseDfen, treeHasPath, treeLeafCount, treePaths, treeToJson, treeToObject,
} from '../../src/engine/index.js';
import { KIWIPETE, START_FEN, playout, posWith, prng } from '../helpers/engine.js';

const STARTS = [START_FEN, KIWIPETE, 'r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1'];

/** A random position and roll: a playout of 0..60 turns from one of the starts. */
const visitArb = fc
  .record({ seed: fc.integer(), start: fc.nat(STARTS.length - 1), plies: fc.integer({ min: 1, max: 60 }) })
  .map(({ seed, start, plies }) => {
    const seen = playout(STARTS[start], plies, prng(seed));
    return seen[seen.length - 1];
  });

t.test('DFEN round-trips on playout positions, with and without dice (DFEN)', async (t) => {
  fc.assert(
    fc.property(visitArb, (v) => {
      const six = parseDfen(v.fen);
      if (!six.ok || formatDfen(six.value) !== v.fen) return false;
      const withRoll = formatDfen(posWith(v.fen, v.dice));
      const again = parseDfen(withRoll);
      return again.ok && formatDfen(again.value) === withRoll && again.value.dice.length === 3;
    }),
    { numRuns: 150 },
  );
  t.pass('round trips hold');
});

t.test('every leaf path replays through applyTurn (the turn, the legal-move tree)', async (t) => {
  fc.assert(
    fc.property(visitArb, (v) => {
      const pos = posWith(v.fen, v.dice);
      const paths = treePaths(legalTree(pos).bytes);
      // Bounded: all paths of small trees, an even sample of big ones.
      const step = Math.max(1, Math.floor(paths.length / 200));
      for (let i = 0; i < paths.length; i += step) {
        const r = applyTurn(pos, paths[i]);
        if (!r.ok) return false;
        // The side flips unless the king fell, and a king can only fall on the last micro-move.
        if (r.value.kingCaptured !== (r.value.fenAfter.split(' ')[1] === v.fen.split(' ')[1])) return false;
        const before = applyTurn(pos, paths[i].slice(0, -1));
        if (!before.ok || before.value.kingCaptured) return false;
      }
      return true;
    }),
    { numRuns: 120 },
  );
  t.pass('paths replay');
});

t.test('treeHasPath accepts exactly the leaf paths (the legal-move tree)', async (t) => {
  fc.assert(
    fc.property(visitArb, fc.integer(), (v, seed) => {
      const bytes = legalTree(posWith(v.fen, v.dice)).bytes;
      const paths = treePaths(bytes);
      const leaves = new Set(paths.map((p) => p.join(' ')));
      const rnd = prng(seed);
      for (let k = 0; k < Math.min(20, paths.length); k++) {
        const p = paths[Math.floor(rnd() * paths.length)];
        if (!treeHasPath(bytes, p)) return false;
        for (let i = 0; i < p.length; i++) if (treeHasPath(bytes, p.slice(0, i))) return false; // proper prefixes
        const variants = [
          [...p, p[0]],
          [...p].reverse(),
          p.map((m) => m.toUpperCase()),
          p.map((m) => (m.length === 5 ? m.slice(0, 4) : m)),
          p.map((m) => ` ${m}`),
        ];
        for (const q of variants) if (treeHasPath(bytes, q) && !leaves.has(q.join(' '))) return false;
      }
      return true;
    }),
    { numRuns: 120 },
  );
  t.pass('only leaves accepted');
});

t.test('JSON encoder, object form, paths and leaf count agree (the legal-move tree)', async (t) => {
  fc.assert(
    fc.property(visitArb, (v) => {
      const r = legalTree(posWith(v.fen, v.dice));
      const json = treeToJson(r.bytes);
      const obj = treeToObject(r.bytes);
      if (json !== JSON.stringify(obj)) return false;
      if (JSON.stringify(JSON.parse(json)) !== json) return false;
      const paths = treePaths(r.bytes);
      return paths.length === r.leaves && treeLeafCount(r.bytes) === r.leaves;
    }),
    { numRuns: 150 },
  );
  t.pass('encodings agree');
});
