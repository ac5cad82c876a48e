// What a live game keeps between turns: the trees of rolls it has moved past must be collectable
// (they once stayed reachable for the game's whole life through the promise that cut waits short
// at shutdown), and a pending tree dropped from the shared cache is rebuilt identical and still
// judges moves.
import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { clearReadCaches } from '../../src/game/read-cache.js';
import { leafPaths } from '../../src/game/house.js';
import { ILLEGAL_TURN } from '../../src/game/verdicts.js';
import type { LegalMoveTree } from '../../src/domain/types.js';
import { UNLIMITED, bot, playRandom, rng, settle, setup } from '../helpers/game.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Keeps a weak reference to every tree the actors build. */
class WatchedTrees {
  /** The bytes of every tree built, weakly. */
  readonly handed: WeakRef<Uint8Array>[] = [];
  readonly onTree = (_id: string, _seconds: number, bytes: Uint8Array): void => void this.handed.push(new WeakRef(bytes));
}

const spec = { white: bot('w'), black: bot('b'), timeControl: UNLIMITED, rated: false };

t.test('the trees of past rolls are not kept by a live game', async (t) => {
  const rules = new WatchedTrees();
  const s = setup({ onTree: rules.onTree });
  const random = rng(7);
  // The server seed is random, so a random game may end (a king taken) within six turns: such a
  // game proves nothing here, and the next one is played instead.
  let g = await s.registry.create(spec);
  for (let attempt = 0; attempt < 10; attempt++) {
    if (attempt > 0) g = await s.registry.create(spec);
    rules.handed.length = 0;
    g.seed('White', 'seed-for-white-0123456789abcdef');
    g.seed('Black', 'seed-for-black-0123456789abcdef');
    await settle();
    for (let i = 0; i < 6 && g.isActive(); i++) {
      await playRandom(g, random);
      await settle();
    }
    if (g.isActive()) break;
  }
  t.ok(g.isActive(), 'the game is still live (else the test proves nothing)');
  t.ok(rules.handed.length >= 4, 'several rolls were made');
  // The shared read caches hold recently read trees (bounded); the question is what the game holds.
  clearReadCaches();
  for (let i = 0; i < 3; i++) {
    await settle(2);
    gc();
  }
  // The newest tree is the pending roll's (the shared cache may hold it). Every older one is garbage.
  const kept = rules.handed.slice(0, -1).filter((w) => w.deref() !== undefined).length;
  t.equal(kept, 0, 'no tree of a past roll is still reachable');
  t.not(g.moves().legalMovesJson, '{}', 'the pending roll still has its tree (rebuilt if need be)');
  await s.registry.stop();
});

t.test('a pending tree that fell out of the shared cache is rebuilt the same, and still judges moves', async (t) => {
  const s = setup();
  const g = await s.registry.create(spec);
  g.seed('White', 'seed-for-white-0123456789abcdef');
  g.seed('Black', 'seed-for-black-0123456789abcdef');
  await settle();
  const before = g.moves();
  t.ok(before.dicePending, 'a roll is pending');
  clearReadCaches();
  const after = g.moves();
  t.equal(after.legalMovesJson, before.legalMovesJson, 'the rebuilt tree is the same tree');
  clearReadCaches();
  const seat = g.state().activeSeat;
  t.same(await g.move(seat, ['a1a1']), ILLEGAL_TURN, 'a path not in the tree is refused');
  clearReadCaches();
  const path = leafPaths(JSON.parse(before.legalMovesJson) as LegalMoveTree)[0];
  const v = await g.move(g.state().activeSeat, path);
  t.ok(v !== 'busy' && v.applied, 'a path of the tree is applied');
  await s.registry.stop();
});
