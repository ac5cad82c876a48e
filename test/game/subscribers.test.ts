// Subscribers: one serialisation shared by all, a throwing one is dropped without harm, unsubscribe
// works, and an ended game answers subscribe with its Snapshot and GameEnded only.
import t from 'tap';
import type { GameEvent } from '../../src/domain/types.js';
import type { GameSubscriber } from '../../src/game/types.js';
import { Recorder, bot, has, openWith, playRandom, rng, settle, setup } from '../helpers/game.js';

t.test('every subscriber gets the same frame; a throwing one is dropped', async (t) => {
  const s = setup();
  const h = await s.registry.create({ white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false });
  const a = new Recorder();
  const b = new Recorder();
  let calls = 0;
  let closed = false;
  const bad: GameSubscriber = {
    deliver() {
      calls++;
      throw new Error('socket gone');
    },
    close() {
      closed = true;
    },
  };
  h.subscribe(a);
  h.subscribe(bad);
  h.subscribe(b);
  await openWith(h, has(1), 2);
  await playRandom(h, rng(1));
  await settle();
  t.equal(calls, 1, 'the thrower saw one event and was dropped');
  t.ok(closed, 'and closed');
  t.ok(a.frames.length >= 3);
  t.equal(a.frames.length, b.frames.length);
  a.frames.forEach((f, i) => t.equal(f, b.frames[i], 'the very same frame object'));
  t.ok(h.isActive(), 'the actor carried on');
  t.ok(s.logs.lines.some((l) => l.level === 'warn' && l.msg?.includes('dropped')));
});

t.test('unsubscribe stops deliveries', async (t) => {
  const s = setup();
  const h = await s.registry.create({ white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false });
  const a = new Recorder();
  const sub = h.subscribe(a);
  sub.unsubscribe();
  await openWith(h, has(1));
  t.same(a.frames, []);
});

t.test('subscribing to an ended game: Snapshot and GameEnded, no subscription', async (t) => {
  const s = setup();
  const h = await s.registry.create({ white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false });
  const live = new Recorder();
  h.subscribe(live);
  await openWith(h, has(1), 2);
  await playRandom(h, rng(4));
  await settle();
  h.resign('Black');
  await settle();
  const late = new Recorder();
  const got = h.subscribe(late);
  const endedLive = live.frames.at(-1)!;
  t.ok(got.ended, 'GameEnded frame returned');
  t.equal(got.ended!.line, endedLive.line, 'the same GameEnded the live subscribers got');
  t.equal(got.snapshot.v, got.ended!.v);
  const snap = got.snapshot.event as Extract<GameEvent, { Snapshot: unknown }>;
  t.same(JSON.parse(got.snapshot.line), got.snapshot.event, 'snapshot line from the cached pieces equals the event');
  t.same(snap.Snapshot.state.status, { Ended: { over: { result: { Win: { side: 'White' } }, termination: 'Resign' } } });
  t.equal(snap.Snapshot.state.seed, h.record().serverSeed, 'revealed');
  t.equal(snap.Snapshot.state.dicePending, false);
  t.equal(snap.Snapshot.history.length, h.record().history.length);
  t.same(late.frames, [], 'nothing delivered');
});

t.test('Snapshot mid-game carries state and history consistent with v', async (t) => {
  const s = setup();
  const h = await s.registry.create({ white: bot('w'), black: bot('b'), timeControl: { Fischer: { initialSeconds: 60, incrementSeconds: 1 } }, rated: false });
  await openWith(h, has(1), 2);
  await playRandom(h, rng(9));
  await settle();
  s.clock.advance(1500);
  const { snapshot } = h.subscribe(new Recorder());
  const ev = snapshot.event as Extract<GameEvent, { Snapshot: unknown }>;
  t.equal(ev.Snapshot.v, h.record().version);
  t.equal(ev.Snapshot.state.version, ev.Snapshot.v);
  t.same(ev.Snapshot.history, h.history());
  t.same(JSON.parse(snapshot.line), snapshot.event);
  t.same(ev.Snapshot.state.clocks, h.state().clocks, 'live clocks in the snapshot');
});
