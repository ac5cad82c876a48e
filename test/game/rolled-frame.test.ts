// The DiceRolled line spliced from the tree's JSON text is byte for byte the line JSON.stringify
// makes of the event, for trees under and over the inline cap, with and without clocks, along real
// games; and its event object (built only on demand) is that event.
import t from 'tap';
import { applyTurn, legalTree, parseDfen, passTurn, START_FEN, treePaths, withDice } from '../../src/engine/index.js';
import { eventLine } from '../../src/wire/encode.js';
import { PendingTree, rolledFrame } from '../../src/game/view.js';
import { treeJsonOfLine } from '../../src/shard/protocol/messages.js';
import type { Clocks } from '../../src/domain/types.js';
import { prng as rng } from '../helpers/prng.js';

t.test('a spliced DiceRolled line is the stringified event, along random games', async (t) => {
  const random = rng(77);
  const clockSets: (Clocks | null)[] = [null, { white: 59_000, black: 61_250 } as unknown as Clocks];
  let fen = START_FEN;
  let checked = 0;
  for (let ply = 0; ply < 400; ply++) {
    const dice = [1, 2, 3].map(() => 1 + Math.floor(random() * 6));
    const dfen = withDice(fen, dice);
    if (!dfen.ok) throw new Error(dfen.error.message);
    const pos = parseDfen(dfen.value);
    if (!pos.ok) throw new Error(pos.error.message);
    const tree = legalTree(pos.value);
    const pending = new PendingTree(dfen.value, tree.bytes, tree.leaves);
    for (const cap of [0, tree.leaves, 1000]) {
      for (const clocks of clockSets) {
        const f = rolledFrame(ply + 1, ply % 2 === 0 ? 'White' : 'Black', dice, clocks, pending, cap);
        t.equal(f.line, eventLine(f.event), `ply ${ply}, ${tree.leaves} leaves, cap ${cap}`);
        // What main's mirror reads back from the line instead of receiving the tree's bytes.
        t.equal(treeJsonOfLine(f.line), tree.leaves > cap ? undefined : pending.fullJson());
        checked++;
      }
    }
    const paths = treePaths(tree.bytes);
    if (paths.length === 0) {
      fen = passTurn(pos.value).fenAfter;
      continue;
    }
    const out = applyTurn(pos.value, paths[Math.floor(random() * paths.length)]);
    if (!out.ok) throw new Error(out.error.message);
    if (out.value.kingCaptured) {
      fen = START_FEN;
      continue;
    }
    fen = out.value.fenAfter;
  }
  t.ok(checked > 1000, `${checked} lines compared`);
});
