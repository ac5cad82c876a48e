// Restarts: a new registry on the same store continues every live game exactly where it was
// persisted: same dice, same versions, same history; downtime is not charged.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { hexToSeed, rollDice } from '../../src/fair/index.js';
import { effectiveSeeds } from '../../src/game/view.js';
import type { GameRecord } from '../../src/domain/records.js';
import { MemoryStore, Recorder, RecordingStore, bot, has, openWith, playRandom, rng, settle, setup } from '../helpers/game.js';

const HOUR = 3_600_000;

/** Every history entry's dice must be the roll of its ply. */
function diceMatchPlies(rec: GameRecord): boolean {
  const seeds = effectiveSeeds(rec);
  const seed = hexToSeed(rec.serverSeed)!;
  return rec.history.every((h, ply) => JSON.stringify(h.dice) === JSON.stringify(rollDice(seed, seeds.white, seeds.black, ply)));
}

t.test('stop mid-game, resume from the same store, finish the game', async (t) => {
  const store = new MemoryStore();
  const a = setup({ store });
  const random = rng(11);
  const h1 = await a.registry.create({ white: bot('w'), black: bot('b'), timeControl: { SuddenDeath: { initialSeconds: 600 } }, rated: true });
  const rec1 = new Recorder();
  h1.subscribe(rec1);
  await openWith(h1, has(1), 6);
  for (let i = 0; i < 4 && h1.isActive(); i++) {
    a.clock.advance(2000);
    await playRandom(h1, random);
    await settle();
  }
  t.ok(h1.isActive() && h1.state().dicePending, 'mid-game, a roll pending');
  a.clock.advance(5000); // the mover has used 5 s of this turn when the server stops
  const before = h1.record();
  await a.registry.stop();
  t.ok(rec1.closed, 'subscribers closed at stop');
  t.equal(a.clock.pending(), 0, 'no timers left');

  const clock = new ManualClock(a.clock.now() + HOUR);
  const b = setup({ store, clock });
  t.equal(await b.registry.resume(), 1, 'one live game resumed');
  const h2 = b.registry.get(h1.id)!;
  t.ok(h2, 'found under the same id');
  const rec2 = new Recorder();
  const snap = h2.subscribe(rec2).snapshot;
  t.equal(snap.v, before.version, 'versions continue');
  t.same(h2.history(), before.history);
  t.same(h2.record().dice, before.dice, 'the pending roll keeps its dice');
  t.ok(h2.state().dicePending);
  t.same(h2.state().clocks, before.clocks, 'downtime not charged: the banks as persisted');
  clock.advance(1000);
  const mover = h2.state().activeSeat === 'White' ? 'white' : 'black';
  t.equal(h2.state().clocks![mover], before.clocks![mover] - 1000, 'the clock runs again from the restart');

  for (let i = 0; i < 3000 && h2.isActive(); i++) {
    clock.advance(500);
    await playRandom(h2, random);
    await settle();
  }
  t.notOk(h2.isActive(), 'finished after the restart');
  const vs = rec2.frames.map((f) => f.v);
  t.same(vs, vs.map((_, i) => before.version + 1 + i), 'v rises by one from where it stopped');
  const final = store.getGame(h1.id)!;
  t.same(final.history.slice(0, before.history.length), before.history, 'history continues, unchanged');
  t.ok(diceMatchPlies(final), 'every roll is the roll of its ply');
  t.same(b.logs.errors(), []);
});

/** A store that keeps, in a second store, each game as it was written after its first TurnPlayed (a crash there). */
class TurnSnapshots extends RecordingStore {
  readonly atTurn = new MemoryStore();
  override async putGame(g: GameRecord): Promise<void> {
    await super.putGame(g);
    if (g.history.length === 1 && g.dice === null) await this.atTurn.putGame(g);
  }
}

t.test('a game persisted between a TurnPlayed and the next roll rolls next, with the same dice', async (t) => {
  const snapshots = new TurnSnapshots(new MemoryStore(), []);
  const a = setup({ store: snapshots });
  const h1 = await a.registry.create({ white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false });
  await openWith(h1, has(1), 2);
  const played = await playRandom(h1, rng(2));
  t.same((played!.verdict as { applied: boolean }).applied, true);
  await a.registry.stop();
  // The server as it would be had it crashed after writing the TurnPlayed, before the next roll.
  const store = snapshots.atTurn;
  const mid = store.getGame(h1.id)!;
  t.same([mid.dice, mid.ply, mid.history.length, 'Active' in mid.status], [null, 1, 1, true]);

  const b = setup({ store, clock: new ManualClock(a.clock.now() + HOUR) });
  await b.registry.resume();
  const h2 = b.registry.get(h1.id)!;
  t.equal(h2.record().version, mid.version + 1, 'rolled: one new event');
  const seeds = effectiveSeeds(mid);
  t.same(h2.record().dice, rollDice(hexToSeed(mid.serverSeed)!, seeds.white, seeds.black, 1), 'the roll of ply 1');
  t.ok(h2.state().dicePending);
});

t.test('a game stopped before its opening roll restarts the seed grace', async (t) => {
  const store = new MemoryStore();
  const a = setup({ store });
  const h1 = await a.registry.create({ white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false });
  h1.seed('White', 'white-seed-0123456789');
  await settle();
  a.clock.advance(2000);
  await a.registry.stop();
  const b = setup({ store });
  await b.registry.resume();
  const h2 = b.registry.get(h1.id)!;
  const rec = new Recorder();
  h2.subscribe(rec);
  b.clock.advance(2999);
  await settle();
  t.same(rec.frames, [], 'a full grace again');
  h2.seed('White', 'another-seed-0123456789');
  h2.seed('Black', 'black-seed-0123456789');
  await settle();
  t.same(rec.kinds()[0], 'DiceRolled', 'both seeded: roll at once');
  t.same(h2.record().clientSeeds, { white: 'white-seed-0123456789', black: 'black-seed-0123456789' }, 'the persisted seed kept');
});

t.test('a resumed pending turn expires on its bank', async (t) => {
  const store = new MemoryStore();
  const a = setup({ store });
  const h1 = await a.registry.create({ white: bot('w'), black: bot('b'), timeControl: { SuddenDeath: { initialSeconds: 30 } }, rated: false });
  await openWith(h1, has(1));
  await a.registry.stop();
  const b = setup({ store });
  await b.registry.resume();
  const h2 = b.registry.get(h1.id)!;
  const rec = new Recorder();
  h2.subscribe(rec);
  b.clock.advance(29_999);
  await settle();
  t.ok(h2.isActive());
  b.clock.advance(1);
  await settle();
  t.equal(rec.last('GameEnded')!.over.termination, 'Timeout');
  t.equal(b.registry.get(h1.id), undefined);
  t.equal(b.registry.finalRecord(h1.id)!.version, h2.record().version);
});
