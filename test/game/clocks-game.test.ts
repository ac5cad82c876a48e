// Clocks inside real games, per time control: they run only while a decision is pending, from the
// roll's publication to the move's receipt; passes are free; DiceRolled carries banks, state() live.
import t from 'tap';
import { ManualClock, type TimerHandle } from '../../src/domain/clock.js';
import type { Clocks, SeatControls, TimeControl } from '../../src/domain/types.js';
import { Recorder, bot, has, lacks, openWith, playRandom, rng, settle, setup } from '../helpers/game.js';

const BLOCKED = '7k/8/8/8/4p3/4P3/8/K7 w - - 0 1';

async function game(tc: TimeControl, o: { startFen?: string; clock?: ManualClock; timeControls?: SeatControls } = {}) {
  const s = setup({ clock: o.clock });
  const h = await s.registry.create({ white: bot('w'), black: bot('b'), timeControl: tc, timeControls: o.timeControls, rated: false, startFen: o.startFen });
  const rec = new Recorder();
  h.subscribe(rec);
  return { ...s, h, rec };
}

const rolledClocks = (rec: Recorder): (Clocks | null)[] =>
  rec.events().flatMap((e) => ('DiceRolled' in e ? [e.DiceRolled.clocks] : []));

t.test('SuddenDeath: only the pending decision costs time, up to the move receipt', async (t) => {
  const g = await game({ SuddenDeath: { initialSeconds: 60 } });
  g.clock.advance(2500);
  t.same(g.h.state().clocks, { white: 60_000, black: 60_000 }, 'the seed grace costs nobody');
  await openWith(g.h, has(1), 2); // pawn dice on both first rolls: real decisions, no passes
  t.same(rolledClocks(g.rec), [{ white: 60_000, black: 60_000 }]);
  g.clock.advance(1000);
  t.same(g.h.state().clocks, { white: 59_000, black: 60_000 }, 'live: the mover ticks');
  t.same(JSON.parse(g.h.stateJson()).clocks, { white: 59_000, black: 60_000 }, 'spliced into the cached JSON');
  t.same(g.h.summary().clocks, { white: 59_000, black: 60_000 });
  t.same(g.rec.last('DiceRolled')!.clocks, { white: 60_000, black: 60_000 }, 'the event keeps the banks at the roll');

  // The clock stops at receipt, even if the actor gets to the move later.
  const played = playRandom(g.h, rng(3));
  g.clock.advance(5000);
  await played;
  await settle();
  t.same(rolledClocks(g.rec)[1], { white: 59_000, black: 60_000 }, 'white charged 1 s, not 6 s');
  g.clock.advance(700);
  t.same(g.h.state().clocks, { white: 59_000, black: 59_300 });
});

t.test('Fischer: the increment follows each completed turn, never a forced pass', async (t) => {
  const g = await game({ Fischer: { initialSeconds: 10, incrementSeconds: 2 } }, { startFen: BLOCKED });
  // White's opening cannot move (no king die: a forced pass); Black has a king die.
  await openWith(g.h, (d, ply) => (ply === 0 ? lacks(6)(d) : d.filter((x) => x === 6).length === 1), 2);
  t.same(g.rec.kinds(), ['DiceRolled', 'TurnPlayed', 'DiceRolled']);
  t.same(g.rec.events()[0], { DiceRolled: { ...(g.rec.events()[0] as { DiceRolled: object }).DiceRolled, legalMoves: {} } });
  t.same(g.h.record().history[0].moves, [], 'the pass is in history with no moves');
  t.same(rolledClocks(g.rec), [{ white: 10_000, black: 10_000 }, { white: 10_000, black: 10_000 }], 'the pass cost nothing, earned nothing');
  g.clock.advance(3000);
  const v = await g.h.move('Black', ['h8g8']);
  t.same(v, { applied: true, version: 4, reason: null });
  await settle();
  t.same(g.h.record().clocks, { white: 10_000, black: 9_000 }, '10 - 3 + 2');
});

t.test('PerMove: a fresh budget every turn', async (t) => {
  const g = await game({ PerMove: { secondsPerMove: 10 } });
  await openWith(g.h, has(1), 3);
  g.clock.advance(9_000);
  await playRandom(g.h, rng(1));
  await settle();
  t.same(rolledClocks(g.rec).at(-1), { white: 10_000, black: 10_000 }, 'black starts full');
  g.clock.advance(9_500);
  t.same(g.h.state().clocks, { white: 10_000, black: 500 });
  await playRandom(g.h, rng(2));
  await settle();
  t.same(rolledClocks(g.rec).at(-1), { white: 10_000, black: 10_000 }, 'white starts full again');
  g.clock.advance(9_999);
  await settle();
  t.ok(g.h.isActive());
  g.clock.advance(1);
  await settle();
  t.equal(g.rec.last('GameEnded')!.over.termination, 'Timeout', 'over the per-move budget');
});

t.test('Unlimited: no clocks, and a 120 s cap per pending turn', async (t) => {
  const g = await game({ Unlimited: {} });
  await openWith(g.h, has(1), 2);
  t.equal(g.rec.last('DiceRolled')!.clocks, null);
  t.equal(g.h.state().clocks, null);
  t.equal(JSON.parse(g.h.stateJson()).clocks, null);
  g.clock.advance(119_000);
  await playRandom(g.h, rng(1)); // white used most of its cap; the cap is per turn
  await settle();
  g.clock.advance(119_999);
  await settle();
  t.ok(g.h.isActive(), 'black still has a millisecond');
  g.clock.advance(1);
  await settle();
  t.same(g.rec.last('GameEnded')!.over, { result: { Win: { side: 'White' } }, termination: 'Timeout' });
  t.equal(g.h.record().clocks, null);
});

/** A clock whose timers never fire: only the receipt check can catch a late move. */
class DeafClock extends ManualClock {
  override schedule(): TimerHandle {
    return { cancel() {} };
  }
}

t.test('a move received after the bank ran out loses on time, verdict game is over', async (t) => {
  const g = await game({ SuddenDeath: { initialSeconds: 5 } }, { clock: new DeafClock() });
  await openWith(g.h, has(1));
  g.clock.advance(5_000);
  const played = await playRandom(g.h, rng(1));
  await settle();
  t.same(played?.verdict, { applied: false, version: null, reason: 'game is over' });
  t.same(g.rec.kinds(), ['DiceRolled', 'GameEnded']);
  t.same(g.rec.last('GameEnded')!.over, { result: { Win: { side: 'Black' } }, termination: 'Timeout' });
});

t.test('time odds: the side with less time flags first, after spending less than the other did', async (t) => {
  const odds: SeatControls = { white: { SuddenDeath: { initialSeconds: 60 } }, black: { SuddenDeath: { initialSeconds: 10 } } };
  const g = await game(odds.white, { timeControls: odds });
  t.same(g.h.state().timeControls, odds, 'the state shows each side its own');
  t.same(JSON.parse(g.h.stateJson()).timeControls, odds, 'and so does the cached JSON');
  t.same(g.h.state().timeControl, odds.white, 'timeControl: White’s');
  t.same(g.h.state().clocks, { white: 60_000, black: 10_000 });
  await openWith(g.h, has(1), 2);
  g.clock.advance(12_000); // more than Black's whole bank: White has 60 s
  await playRandom(g.h, rng(1), { spareKing: true });
  await settle();
  t.ok(g.h.isActive(), 'White spent 12 s of its 60 and plays on');
  t.same(rolledClocks(g.rec).at(-1), { white: 48_000, black: 10_000 });
  g.clock.advance(9_999);
  await settle();
  t.ok(g.h.isActive(), 'Black still has a millisecond');
  g.clock.advance(1);
  await settle();
  t.same(g.rec.last('GameEnded')!.over, { result: { Win: { side: 'White' } }, termination: 'Timeout' }, 'Black flags at its own 10 s');
  t.same(g.h.record().clocks, { white: 48_000, black: 0 });
});

t.test('a game made with the same control for both sides carries no timeControls', async (t) => {
  const tc: TimeControl = { SuddenDeath: { initialSeconds: 60 } };
  const g = await game(tc, { timeControls: { white: tc, black: { SuddenDeath: { initialSeconds: 60 } } } });
  t.notOk('timeControls' in g.h.record(), 'the record is as without odds');
  t.notOk('timeControls' in g.h.state());
  t.notOk('timeControls' in JSON.parse(g.h.stateJson()));
});
