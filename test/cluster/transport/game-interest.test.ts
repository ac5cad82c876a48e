// Which games a cluster node follows (src/cluster/transport/game-interest.ts), on a ManualClock: a game asked
// about is subscribed and caught up once, later asks wait for nothing; an idle one is dropped after
// idleMs unless something is subscribed to it; over `max` the least recently asked goes first; the
// games of an owned shard are never followed one by one.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { GameInterest } from '../../../src/cluster/transport/game-interest.js';

function setup(opts: { max?: number; owned?: Set<string> } = {}) {
  const clock = new ManualClock();
  const subs = new Map<string, number>();
  const calls: string[] = [];
  let release: () => void = () => {};
  const interest = new GameInterest({
    clock,
    idleMs: 1000,
    max: opts.max ?? 10,
    owned: (id) => opts.owned?.has(id) === true,
    subscribers: (id) => subs.get(id) ?? 0,
    subscribe: async (id, on) => void calls.push(`${on ? 'sub' : 'unsub'} ${id}`),
    catchUp: (id) => {
      calls.push(`catch-up ${id}`);
      return new Promise<void>((r) => (release = r));
    },
  });
  return { clock, subs, calls, interest, release: () => release() };
}

t.test('a game asked about is caught up once; reads wait for it, then for nothing', async (t) => {
  const { interest, calls, release } = setup();
  const first = interest.touch('g1');
  t.ok(first instanceof Promise, 'the first ask waits');
  t.equal(interest.touch('g1'), first, 'a second ask during the catch-up waits for the same');
  t.ok(interest.has('g1'), 'followed from the first ask (its updates are kept out until the answer)');
  release();
  await first;
  t.equal(interest.touch('g1'), undefined, 'once caught up, an ask waits for nothing');
  t.same(calls, ['catch-up g1'], 'caught up once');
  t.equal(interest.follows, 1);
});

t.test('an idle game is dropped after idleMs; a subscriber keeps it', async (t) => {
  const { interest, calls, release, clock, subs } = setup();
  const a = interest.touch('a');
  release();
  await a;
  const b = interest.touch('b');
  release();
  await b;
  subs.set('b', 1);
  clock.advance(600);
  t.ok(interest.has('a') && interest.has('b'), 'both followed before idleMs');
  clock.advance(1000);
  await Promise.resolve();
  t.notOk(interest.has('a'), 'a, asked about by nobody, was dropped');
  t.ok(interest.has('b'), 'b, with a stream on it, is kept');
  t.ok(calls.includes('unsub a') && !calls.includes('unsub b'), 'only a was unsubscribed');
  subs.set('b', 0);
  clock.advance(2000);
  await Promise.resolve();
  t.notOk(interest.has('b'), 'b is dropped once its stream is gone and idleMs passed');
  t.equal(interest.drops, 2);
  interest.stop();
});

t.test('over max the least recently asked goes first; an ended game is let go; owned shards are not followed one by one', async (t) => {
  const { interest, calls, release } = setup({ max: 2, owned: new Set(['mine']) });
  for (const id of ['x', 'y']) {
    const p = interest.touch(id);
    release();
    await p;
  }
  interest.touch('x'); // x asked again: y is now the least recently asked
  const z = interest.touch('z');
  release();
  await z;
  t.same([interest.has('x'), interest.has('y'), interest.has('z')], [true, false, true], 'y made room for z');
  interest.retire('x');
  t.notOk(interest.has('x'), 'an ended game is no longer followed');
  t.ok(calls.includes('unsub x'), 'and unsubscribed');
  t.equal(interest.touch('mine'), undefined, 'a game of an owned shard needs no catch-up');
  t.ok(interest.has('mine'), 'its updates arrive anyway');
  t.equal(interest.size, 1, 'only z is followed one by one');
  interest.stop();
});
