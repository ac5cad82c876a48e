// Client seeds: the first valid one per seat before the opening roll wins; later ones are ignored;
// malformed ones are Rejected; the opening roll waits for both seeds or the grace period.
import t from 'tap';
import { hexToSeed, rollDice } from '../../src/fair/index.js';
import { Recorder, bot, settle, setup } from '../helpers/game.js';

const A16 = 'a'.repeat(16);
const B256 = 'b'.repeat(256);

/** The opening roll's dice (it may have been a forced pass, followed by more rolls). */
const firstRoll = (rec: Recorder): number[] => (rec.frames[0].event as { DiceRolled: { dice: number[] } }).DiceRolled.dice;

async function game() {
  const s = setup({ config: { seedGraceMs: 3000 } });
  const h = await s.registry.create({ white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false });
  const rec = new Recorder();
  h.subscribe(rec);
  return { ...s, h, rec };
}

t.test('both seats seeded: the opening roll comes at once, from the first seeds', async (t) => {
  const g = await game();
  g.h.seed('White', A16);
  g.h.seed('White', 'c'.repeat(20));
  await settle();
  t.same(g.store.getGame(g.h.id)!.clientSeeds, { white: A16, black: null }, 'accepted seed persisted');
  t.same(g.rec.frames, [], 'still waiting for black');
  g.h.seed('Black', B256);
  await settle();
  t.same(g.rec.kinds()[0], 'DiceRolled', 'no clock advance needed');
  const dice = firstRoll(g.rec);
  t.same(dice, rollDice(hexToSeed(g.h.record().serverSeed)!, A16, B256, 0), 'rolled from the first seeds');
  t.equal(g.clock.pending(), 1, 'the grace timer is gone; only the turn cap waits');
  g.h.seed('Black', 'd'.repeat(30));
  await settle();
  t.same(g.h.record().clientSeeds, { white: A16, black: B256 });
  g.h.resign('White');
  await settle();
  t.same(g.rec.last('GameEnded')!.clientSeeds, { white: A16, black: B256 });
});

t.test('no seeds: the grace period runs out and the ids stand in', async (t) => {
  const g = await game();
  g.clock.advance(2999);
  await settle();
  t.same(g.rec.frames, []);
  g.clock.advance(1);
  await settle();
  t.same(g.rec.kinds()[0], 'DiceRolled');
  const dice = firstRoll(g.rec);
  t.same(dice, rollDice(hexToSeed(g.h.record().serverSeed)!, bot('w').id, bot('b').id, 0));
});

t.test('a seed after the opening roll is ignored', async (t) => {
  const g = await game();
  g.h.seed('White', A16);
  g.clock.advance(3000);
  await settle();
  const v = g.h.state().version;
  g.h.seed('Black', B256);
  await settle();
  t.same(g.h.record().clientSeeds, { white: A16, black: null });
  t.equal(g.h.state().version, v, 'no event');
  g.h.resign('Black');
  await settle();
  t.same(g.rec.last('GameEnded')!.clientSeeds, { white: A16, black: bot('b').id });
});

t.test('malformed seeds are Rejected, take a version, and change nothing else', async (t) => {
  const g = await game();
  g.h.seed('White', 'too short');
  g.h.seed('Black', 'x'.repeat(257));
  g.h.seed('Black', 'y'.repeat(15));
  await settle();
  t.same(g.rec.events(), [
    { Rejected: { v: 1, seat: 'White', reason: 'seed must be 16..256 characters' } },
    { Rejected: { v: 2, seat: 'Black', reason: 'seed must be 16..256 characters' } },
    { Rejected: { v: 3, seat: 'Black', reason: 'seed must be 16..256 characters' } },
  ]);
  t.equal(g.store.getGame(g.h.id)!.version, 3, 'the versions are persisted');
  t.same(g.h.record().clientSeeds, { white: null, black: null });
  g.h.seed('White', 'z'.repeat(16));
  g.h.seed('Black', 'w'.repeat(256));
  await settle();
  t.same(g.rec.kinds()[3], 'DiceRolled', 'the boundaries 16 and 256 are valid: rolled at once');
  t.equal(g.rec.frames[3].v, 4);
  t.same(g.h.record().clientSeeds, { white: 'z'.repeat(16), black: 'w'.repeat(256) });
});
