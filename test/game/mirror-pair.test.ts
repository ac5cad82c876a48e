// Mirror pairs (docs/ENGINE.md: mirror pairs) at the registry: identical dice with colours swapped, lockstep (roll N of
// either game only once both reached roll N or the partner ended), the mover's clock starting at
// publication, the reveal withheld until both games ended, and all of it across a restart.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import type { GameHandle } from '../../src/game/types.js';
import { reachedOf } from '../../src/game/mirror-pair.js';
import type { TimeControl } from '../../src/domain/types.js';
import { MemoryStore, Recorder, bot, playRandom, rng, settle, setup, type Setup } from '../helpers/game.js';

const LADDER: TimeControl = { Fischer: { initialSeconds: 300, incrementSeconds: 3 } };

/** A fixed server seed and client seeds, for tests whose steps need a game that lasts a few turns. */
const FIXED = {
  serverSeed: '5eed'.repeat(16),
  clientSeeds: { white: 'fixed-white-client-seed', black: 'fixed-black-client-seed' },
};

async function pair(s: Setup, fair?: typeof FIXED): Promise<[GameHandle, GameHandle, Recorder, Recorder]> {
  const [a, b] = await s.registry.createMirrorPair({ white: bot('alpha'), black: bot('beta'), timeControl: LADDER, rated: true, fair });
  const ra = new Recorder();
  const rb = new Recorder();
  a.subscribe(ra);
  b.subscribe(rb);
  await settle();
  return [a, b, ra, rb];
}

const rolls = (r: Recorder): number[][] =>
  r.events().flatMap((e) => ('DiceRolled' in e ? [e.DiceRolled.dice] : []));

t.test('a mirror pair: one seed, server-chosen client seeds, colours swapped, no seed grace', async (t) => {
  const s = setup({ config: { seedGraceMs: 3000 } });
  const [a, b] = await pair(s);
  const ra = a.record();
  const rb = b.record();
  t.equal(ra.mirrorOf, b.id);
  t.equal(rb.mirrorOf, a.id);
  t.equal(ra.serverSeed, rb.serverSeed, 'one server seed');
  t.equal(a.state().commit, b.state().commit, 'one commit');
  t.same(ra.clientSeeds, rb.clientSeeds, 'one pair of client seeds');
  t.ok(ra.clientSeeds.white && ra.clientSeeds.black && ra.clientSeeds.white !== ra.clientSeeds.black, 'both chosen by the server');
  t.same([ra.white.id, ra.black.id], [rb.black.id, rb.white.id], 'colours swapped');
  t.ok(a.rated && b.rated);
  t.same(a.timeControl, LADDER);
  t.ok(a.state().dicePending && b.state().dicePending, 'both opening rolls made at once: no grace wait');
  t.same(s.started.map((g) => g.id), [a.id, b.id], 'gameStarted for both');
  // A client seed sent now changes nothing.
  a.seed('White', 'my-own-client-seed-1234');
  await settle();
  t.same(a.record().clientSeeds, ra.clientSeeds, 'a submitted client seed is ignored');
});

t.test('lockstep: the game ahead waits with its clock stopped; identical dice ply by ply', async (t) => {
  const s = setup();
  const random = rng(5);
  // A fixed seed: with a random one, a random first turn now and then ends a game or leaves no
  // decision at roll 1, and the steps below would test nothing.
  const [a, b, ra, rb] = await pair(s, FIXED);
  // The first decision may come after forced passes, in both alike.
  t.same(rolls(ra), rolls(rb), 'the same rolls up to the first decision');
  const n0 = rolls(ra).length;
  const p0 = a.record().ply;
  s.clock.advance(1000);
  await playRandom(a, random);
  await settle();
  if (!a.isActive()) return t.fail('a king capture on the first turn (pick another rng seed)');
  t.notOk(a.state().dicePending, 'A played and waits: its next roll is not published');
  t.equal(rolls(ra).length, n0, 'no DiceRolled for the next roll yet');
  t.equal(a.record().ply, p0, 'A has reached the next roll and not made it');
  const waitingBanks = a.state().clocks!;
  s.clock.advance(7000);
  t.same(a.state().clocks, waitingBanks, 'no clock runs while A waits for its partner');
  await playRandom(b, random);
  await settle();
  t.ok(a.state().dicePending && b.state().dicePending, 'B reached roll 1: both publish it');
  t.equal(a.record().clockStartedAt, s.clock.now(), "the mover's clock started at publication");
  t.same(a.state().clocks, waitingBanks, 'nothing charged for the wait');
  // Play on, alternating which game runs ahead; every published roll matches the partner's.
  for (let i = 0; i < 60 && a.isActive() && b.isActive(); i++) {
    const [first, second] = i % 2 === 0 ? [b, a] : [a, b];
    // Both on the same roll (forced passes may have put one a roll ahead, already waiting).
    const level = first.state().dicePending && second.state().dicePending && first.record().ply === second.record().ply;
    s.clock.advance(500);
    await playRandom(first, random);
    await settle();
    if (level && first.isActive() && second.isActive()) {
      t.notOk(first.state().dicePending, `turn ${i}: the game ahead waits`);
    }
    // The invariant itself: no game has made a roll its running partner has not reached.
    for (const [x, y] of [[first, second], [second, first]]) {
      if (x.isActive() && y.isActive() && x.record().ply - 1 > reachedOf(y.record())) {
        t.fail(`turn ${i}: ${x.id} made roll ${x.record().ply - 1} before its partner reached it`);
      }
    }
    s.clock.advance(500);
    await playRandom(second, random);
    await settle();
  }
  const da = rolls(ra);
  const db = rolls(rb);
  const n = Math.min(da.length, db.length);
  t.ok(n > 2, 'several rolls were made');
  t.same(da.slice(0, n), db.slice(0, n), 'identical dice at every ply');
  t.ok(Math.abs(da.length - db.length) <= 1 || !a.isActive() || !b.isActive(), 'never more than one roll apart while both run');
  t.same(s.logs.errors(), []);
});

t.test('reveal withheld until both ended; the later GameEnded carries it; the survivor runs free', async (t) => {
  const s = setup();
  const random = rng(7);
  const [a, b, ra, rb] = await pair(s, FIXED);
  const seed = a.record().serverSeed;
  a.resign('White');
  await settle();
  t.notOk(a.isActive(), 'A ended');
  const endedA = ra.last('GameEnded')!;
  t.same([endedA.seed, endedA.clientSeeds], [null, null], 'GameEnded of the first game withholds the reveal');
  const readA = s.registry.find(a.id)!;
  t.same([readA.state().seed, readA.state().clientSeeds], [null, null], 'GET /games/{id} of A withholds it');
  t.notOk(readA.stateJson().includes(seed), 'the state JSON does not carry the seed');
  t.same(readA.subscribe(new Recorder()).ended?.event, { GameEnded: endedA }, 'a late stream of A withholds it');
  t.equal(s.registry.finalRecord(a.id)?.revealHeld, true);
  t.notOk(b.state().seed, 'B runs: no reveal');
  // B is no longer held back: it plays several turns in a row.
  for (let i = 0; i < 4 && b.isActive(); i++) {
    s.clock.advance(300);
    await playRandom(b, random);
    await settle();
  }
  t.ok(!b.isActive() || b.state().dicePending, 'B rolls on by itself');
  if (b.isActive()) b.resign(b.state().activeSeat);
  await settle();
  const endedB = rb.last('GameEnded')!;
  t.equal(endedB.seed, seed, 'the later GameEnded reveals the seed');
  t.same(endedB.clientSeeds, a.record().clientSeeds, 'and the client seeds');
  t.equal(s.registry.find(a.id)!.state().seed, seed, 'A shows the reveal now');
  t.same(s.registry.find(a.id)!.history().length, a.history().length);
  t.equal(s.registry.find(b.id)!.state().seed, seed, 'B shows it');
  await settle();
  t.equal(s.store.getGame(a.id)?.revealHeld, false, "A's stored record no longer holds the reveal");
});

t.test('both resign in the same instant: exactly the later GameEnded reveals', async (t) => {
  const s = setup();
  const [a, b, ra, rb] = await pair(s, FIXED);
  a.resign('Black');
  b.resign('White');
  await settle();
  t.same([ra.last('GameEnded')!.seed, rb.last('GameEnded')!.seed], [null, a.record().serverSeed]);
  t.equal(s.registry.find(a.id)!.state().seed, a.record().serverSeed, 'both read with the reveal');
});

t.test('the partner losing on time wakes the game that waits, and its clock starts then', async (t) => {
  const s = setup();
  const random = rng(9);
  const [a, b, ra] = await pair(s, FIXED);
  await playRandom(a, random);
  await settle();
  if (!a.isActive()) return t.fail('king captured at once');
  t.notOk(a.state().dicePending, 'A waits');
  const n0 = rolls(ra).length;
  s.clock.advance(301_000);
  await settle();
  t.notOk(b.isActive(), 'B lost on time');
  t.match(b.record().status, { Ended: { over: { termination: 'Timeout' } } });
  t.ok(a.state().dicePending, 'A rolls once its partner ended');
  t.equal(a.record().clockStartedAt, s.clock.now(), 'A clock starts at that publication');
  t.ok(rolls(ra).length > n0, 'A got a DiceRolled after B ended');
  t.same(rolls(ra).at(-1), a.record().dice, 'the last one is its pending roll');
});

t.test('restart: both games resume in lockstep and still withhold', async (t) => {
  const store = new MemoryStore();
  const s1 = setup({ store });
  const random = rng(3);
  const [a1, b1] = await pair(s1, FIXED);
  s1.clock.advance(1000);
  await playRandom(a1, random, { spareKing: true });
  await settle();
  if (!a1.isActive()) return t.fail('king captured at once');
  const pendingB = b1.record().dice;
  await s1.registry.stop();

  const s2 = setup({ store, clock: new ManualClock(s1.clock.now() + 3_600_000) });
  t.equal(await s2.registry.resume(), 2, 'both games resumed');
  const a = s2.registry.get(a1.id)!;
  const b = s2.registry.get(b1.id)!;
  const ra = new Recorder();
  a.subscribe(ra);
  await settle();
  t.notOk(a.state().dicePending, 'A still waits for B after the restart');
  t.same(b.record().dice, pendingB, 'B keeps its pending roll');
  await playRandom(b, random, { spareKing: true });
  await settle();
  t.ok(b.isActive(), 'B goes on (its turn spared the king)');
  t.ok(a.state().dicePending && b.state().dicePending, 'B caught up: both publish the next roll');
  t.same(rolls(ra).at(-1), a.record().dice, 'A got its next roll on its stream');
  t.same(a.record().dice, b.record().dice, 'identical dice after the restart');
  a.resign(a.state().activeSeat);
  await settle();
  t.equal(s2.registry.find(a.id)!.state().seed, null, 'A ended: withheld while B runs');

  // A second restart with A ended and B live: B runs free, A stays withheld until B ends.
  await s2.registry.stop();
  const s3 = setup({ store, clock: new ManualClock(s2.clock.now() + 1000) });
  t.equal(await s3.registry.resume(), 1, 'only B is live');
  t.equal(s3.registry.find(a.id)!.state().seed, null, 'A withheld after the restart');
  const b3 = s3.registry.get(b.id)!;
  for (let i = 0; i < 3 && b3.isActive(); i++) {
    await playRandom(b3, random);
    await settle();
  }
  t.ok(!b3.isActive() || b3.state().dicePending, 'B is not held back by its ended partner');
  if (b3.isActive()) b3.resign('White');
  await settle();
  t.equal(s3.registry.find(a.id)!.state().seed, a.record().serverSeed, 'both ended: A reveals');
  t.same(s1.logs.errors().concat(s2.logs.errors(), s3.logs.errors()), []);
});

t.test('a partner not live at resume (ended, or never stored after a crash) holds nothing back', async (t) => {
  const store = new MemoryStore();
  const s1 = setup({ store });
  const [a1, b1] = await pair(s1, FIXED);
  await s1.registry.stop();
  // B is not live any more: the same resume path as a B that was never stored.
  await store.putGame({ ...store.getGame(b1.id)!, status: { Ended: { over: { result: { Draw: {} }, termination: 'Aborted' } } } });
  const s2 = setup({ store });
  t.equal(await s2.registry.resume(), 1);
  const a = s2.registry.get(a1.id)!;
  const random = rng(4);
  await playRandom(a, random);
  await settle();
  t.ok(!a.isActive() || a.state().dicePending, 'A rolls on alone');
});

t.test('time odds in a mirror pair: each player keeps its own control on either colour', async (t) => {
  const s = setup();
  const fast: TimeControl = { SuddenDeath: { initialSeconds: 10 } };
  const slow: TimeControl = { SuddenDeath: { initialSeconds: 60 } };
  const [a, b] = await s.registry.createMirrorPair({
    white: bot('alpha'), black: bot('beta'), timeControl: slow, timeControls: { white: slow, black: fast }, rated: false,
  });
  t.same(a.state().timeControls, { white: slow, black: fast }, 'game 1: alpha White with 60 s');
  t.same(a.state().clocks, { white: 60_000, black: 10_000 });
  t.same(b.state().timeControls, { white: fast, black: slow }, 'game 2: beta White, still with 10 s');
  t.same(b.state().clocks, { white: 10_000, black: 60_000 });
  t.same(b.state().timeControl, fast, 'timeControl is White’s');
});
