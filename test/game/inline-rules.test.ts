// The in-thread rules port: the engine's tree for a DFEN with dice; malformed input rejects.
import t from 'tap';
import { parseDfen, legalTree, START_FEN, withDice } from '../../src/engine/index.js';
import { InlineRules } from '../../src/pool/inline.js';

t.test('returns the engine tree and its leaf count', async (t) => {
  const rules = new InlineRules();
  const dfen = (withDice(START_FEN, [1, 2, 3]) as { value: string }).value;
  const got = await rules.tree(dfen);
  const want = legalTree((parseDfen(dfen) as { value: Parameters<typeof legalTree>[0] }).value);
  t.equal(got.leaves, want.leaves);
  t.same(Buffer.from(got.bytes), Buffer.from(want.bytes));
  t.ok(got.leaves > 0);
});

t.test('rejects a malformed DFEN, a DFEN without dice, and after close', async (t) => {
  const rules = new InlineRules();
  await t.rejects(rules.tree('not a position'), /malformed dfen/);
  await t.rejects(rules.tree(START_FEN), /without dice/);
  await rules.close();
  await t.rejects(rules.tree((withDice(START_FEN, [1, 1, 1]) as { value: string }).value), /closed/);
});
