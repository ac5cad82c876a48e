// What a live game keeps between turns: the trees of rolls it has moved past must be collectable
// (they once stayed reachable for the game's whole life through the promise that cut waits short
// at shutdown), and stop() still cuts a wait for a tree short.
import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { RulesPort, TreeResult } from '../../src/pool/types.js';
import { InlineRules } from '../../src/pool/inline.js';
import { clearReadCaches } from '../../src/game/read-cache.js';
import { UNLIMITED, bot, playRandom, rng, settle, setup } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The in-thread rules, keeping a weak reference to every tree it hands out. */
class WatchedRules implements RulesPort {
  /** The bytes of every tree handed out, weakly. */
  readonly handed: WeakRef<Uint8Array>[] = [];
  private readonly inner = new InlineRules();
  async tree(dfen: string): Promise<TreeResult> {
    const r = await this.inner.tree(dfen);
    this.handed.push(new WeakRef(r.bytes));
    return r;
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const spec = { white: bot('w'), black: bot('b'), timeControl: UNLIMITED, rated: false };

t.test('the trees of past rolls are not kept by a live game', async (t) => {
  const rules = new WatchedRules();
  const s = setup({ rules });
  const g = await s.registry.create(spec);
  g.seed('White', 'seed-for-white-0123456789abcdef');
  g.seed('Black', 'seed-for-black-0123456789abcdef');
  await settle();
  const random = rng(7);
  for (let i = 0; i < 6 && g.isActive(); i++) {
    await playRandom(g, random);
    await settle();
  }
  t.ok(g.isActive(), 'the game is still live (else the test proves nothing)');
  t.ok(rules.handed.length >= 4, 'several rolls were made');
  // The shared read caches hold recently read trees (bounded); the question is what the game holds.
  clearReadCaches();
  for (let i = 0; i < 3; i++) {
    await settle(2);
    gc();
  }
  // The newest tree is the pending roll's: held, as it must be. Every older one is garbage.
  const kept = rules.handed.slice(0, -1).filter((w) => w.deref() !== undefined).length;
  t.equal(kept, 0, 'no tree of a past roll is still reachable');
  t.ok(g.state().dicePending && rules.handed.at(-1)!.deref(), 'the pending roll keeps its tree');
  await s.registry.stop();
});

t.test('stop() cuts a wait for a tree short', async (t) => {
  let asked = 0;
  const never: RulesPort = {
    tree: () => {
      asked++;
      return new Promise<TreeResult>(() => {});
    },
    close: async () => {},
  };
  const s = setup({ rules: never });
  const g = await s.registry.create(spec);
  g.seed('White', 'seed-for-white-0123456789abcdef');
  g.seed('Black', 'seed-for-black-0123456789abcdef');
  await settle();
  t.equal(asked, 1, 'the opening roll is waiting for its tree');
  await s.registry.stop();
  t.equal(s.logs.errors().length, 0, 'a stopped wait is not an error');
  t.ok(g.isActive(), 'the game stays as persisted');
});
