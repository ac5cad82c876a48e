// Pure clock arithmetic, one time control at a time, and with time odds (each side its own).
import t from 'tap';
import {
  banksAfterTurn, banksAtEnd, banksAtRoll, decisionLimitMs, elapsedMs, initialBanks, liveClocks, outOfTime,
} from '../../src/game/clocks.js';
import type { SeatControls, TimeControl } from '../../src/domain/types.js';

const same = (tc: TimeControl): SeatControls => ({ white: tc, black: tc });
const SD = same({ SuddenDeath: { initialSeconds: 60 } });
const FI = same({ Fischer: { initialSeconds: 300, incrementSeconds: 3 } });
const PM = same({ PerMove: { secondsPerMove: 10 } });
const UN = same({ Unlimited: {} });

t.test('initial banks', async (t) => {
  t.same(initialBanks(SD), { white: 60_000, black: 60_000 });
  t.same(initialBanks(FI), { white: 300_000, black: 300_000 });
  t.same(initialBanks(PM), { white: 10_000, black: 10_000 });
  t.equal(initialBanks(UN), null);
});

t.test('banks at roll: carried over, except PerMove which is fresh', async (t) => {
  t.same(banksAtRoll(SD, { white: 5, black: 7 }), { white: 5, black: 7 });
  t.same(banksAtRoll(FI, { white: 5, black: 7 }), { white: 5, black: 7 });
  t.same(banksAtRoll(PM, { white: 5, black: 7 }), { white: 10_000, black: 10_000 });
  t.equal(banksAtRoll(UN, null), null);
  const b = { white: 1, black: 2 };
  t.not(banksAtRoll(SD, b), b, 'a copy, never the same object');
});

t.test('decision limit and running out', async (t) => {
  t.equal(decisionLimitMs({ white: 900, black: 5 }, 'White', 120_000), 900);
  t.equal(decisionLimitMs({ white: 900, black: 5 }, 'Black', 120_000), 5);
  t.equal(decisionLimitMs(null, 'Black', 120_000), 120_000, 'Unlimited: the cap');
  t.notOk(outOfTime(1000, 0, 999));
  t.ok(outOfTime(1000, 0, 1000), 'reaching zero is out');
  t.notOk(outOfTime(1000, null, 5000), 'no clock running, never out');
  t.equal(elapsedMs(100, 50), 0, 'a clock going backwards never gives time back');
  t.equal(elapsedMs(null, 50), 0);
});

t.test('live values subtract the mover only', async (t) => {
  t.same(liveClocks({ white: 10_000, black: 8_000 }, 'White', 1000, 3500), { white: 7_500, black: 8_000 });
  t.same(liveClocks({ white: 10_000, black: 8_000 }, 'Black', 1000, 3500), { white: 10_000, black: 5_500 });
  t.same(liveClocks({ white: 10_000, black: 8_000 }, 'Black', 1000, 99_999), { white: 10_000, black: 0 }, 'floored');
  t.same(liveClocks({ white: 10_000, black: 8_000 }, 'White', null, 99_999), { white: 10_000, black: 8_000 }, 'stopped');
  t.equal(liveClocks(null, 'White', 0, 5), null);
});

t.test('after a completed turn', async (t) => {
  t.same(banksAfterTurn(SD, { white: 10_000, black: 8_000 }, 'White', 2_500), { white: 7_500, black: 8_000 });
  t.same(banksAfterTurn(FI, { white: 10_000, black: 8_000 }, 'Black', 2_500), { white: 10_000, black: 8_500 }, 'increment added');
  t.same(banksAfterTurn(PM, { white: 1_000, black: 8_000 }, 'White', 900), { white: 10_000, black: 10_000 }, 'fresh budget');
  t.equal(banksAfterTurn(UN, null, 'White', 2_500), null);
  t.same(banksAfterTurn(SD, { white: 1_000, black: 8_000 }, 'White', 5_000), { white: 0, black: 8_000 }, 'never negative');
});

t.test('at the end: the running time charged, no increment', async (t) => {
  t.same(banksAtEnd({ white: 10_000, black: 8_000 }, 'White', 0, 4_000), { white: 6_000, black: 8_000 });
  t.same(banksAtEnd({ white: 10_000, black: 8_000 }, 'White', null, 4_000), { white: 10_000, black: 8_000 });
});

t.test('time odds: each side starts, spends and earns by its own control', async (t) => {
  const odds: SeatControls = { white: { SuddenDeath: { initialSeconds: 60 } }, black: { Fischer: { initialSeconds: 10, incrementSeconds: 2 } } };
  t.same(initialBanks(odds), { white: 60_000, black: 10_000 });
  t.same(banksAtRoll(odds, { white: 5, black: 7 }), { white: 5, black: 7 }, 'nothing refreshed');
  t.same(banksAfterTurn(odds, { white: 60_000, black: 10_000 }, 'White', 1_000), { white: 59_000, black: 10_000 }, 'White: no increment');
  t.same(banksAfterTurn(odds, { white: 59_000, black: 10_000 }, 'Black', 1_000), { white: 59_000, black: 11_000 }, 'Black: its increment');
  const perMove: SeatControls = { white: { PerMove: { secondsPerMove: 5 } }, black: { SuddenDeath: { initialSeconds: 30 } } };
  t.same(initialBanks(perMove), { white: 5_000, black: 30_000 });
  t.same(banksAtRoll(perMove, { white: 1_000, black: 20_000 }), { white: 5_000, black: 20_000 }, 'only the PerMove side refreshed');
  t.same(banksAfterTurn(perMove, { white: 5_000, black: 20_000 }, 'Black', 4_000), { white: 5_000, black: 16_000 });
  t.same(banksAfterTurn(perMove, { white: 5_000, black: 16_000 }, 'White', 4_000), { white: 5_000, black: 16_000 }, 'PerMove spent budget not kept');
  t.equal(initialBanks({ white: { Unlimited: {} }, black: { SuddenDeath: { initialSeconds: 30 } } }), null, 'an Unlimited side: no banks');
});
