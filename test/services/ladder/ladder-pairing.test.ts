// The pairing rule alone: deterministic for given candidates and random source, high deviations
// choose first, closest rating wins, a bot's previous opponent is never chosen again right away.
// Then the kind of game a pair plays: a mirror pair when both have two free seats, otherwise one
// game whose colours even out the bots' white and black counts.
import t from 'tap';
import { choosePairs, planGame, type Candidate, type Seating } from '../../../src/services/ladder-pairing.js';
import { prng } from '../../helpers/prng.js';

const c = (id: string, rating: number, rd: number, lastOpponent: string | null = null): Candidate => ({ id, rating, rd, lastOpponent });
const ids = (pairs: [Candidate, Candidate][]): string[][] => pairs.map(([a, b]) => [a.id, b.id]);

t.test('the pinned choice', async (t) => {
  const field = [
    c('a', 1500, 350), c('b', 1500, 350), c('c', 1700, 80), c('d', 1690, 60),
    c('e', 1400, 200), c('f', 1520, 100, 'a'),
  ];
  // a and b (rd 350) choose first, in the order of their draws; f may not meet a (last opponent);
  // e (rd 200) takes the closest free rating, f; c and d are left for each other.
  t.same(ids(choosePairs(field, prng(1))), [['b', 'a'], ['e', 'f'], ['c', 'd']]);
  t.same(ids(choosePairs(field, prng(1))), ids(choosePairs([...field].reverse(), prng(1))), 'input order does not matter');
});

t.test('equal candidates: the random source decides, reproducibly', async (t) => {
  const field = ['p', 'q', 'r', 's'].map((id) => c(id, 1500, 350));
  t.same(ids(choosePairs(field, prng(1))), ids(choosePairs(field, prng(1))), 'same random sequence, same pairs');
  const seen = new Set<string>();
  for (let seed = 1; seed <= 20; seed++) seen.add(JSON.stringify(ids(choosePairs(field, prng(seed)))));
  t.ok(seen.size > 1, 'different random sequences give different pairings');
});

t.test('properties over random fields', async (t) => {
  const rand = prng(42);
  for (let round = 0; round < 200; round++) {
    const n = 2 + Math.floor(rand() * 30);
    const field: Candidate[] = [];
    for (let i = 0; i < n; i++) field.push(c(`bot${i}`, 1200 + Math.round(rand() * 600), 50 + Math.round(rand() * 300)));
    for (const x of field) if (rand() < 0.5) x.lastOpponent = field[Math.floor(rand() * n)].id;
    const pairs = choosePairs(field, prng(round));
    const used = pairs.flat().map((x) => x.id);
    if (new Set(used).size !== used.length) t.fail(`round ${round}: a bot in two pairs`);
    for (const [a, b] of pairs) {
      if (a.lastOpponent === b.id || b.lastOpponent === a.id) t.fail(`round ${round}: ${a.id} meets its last opponent ${b.id}`);
    }
    // Maximal: two free bots that may meet are never both left out.
    const free = field.filter((x) => !used.includes(x.id));
    for (const x of free) {
      for (const y of free) {
        if (x.id < y.id && x.lastOpponent !== y.id && y.lastOpponent !== x.id) t.fail(`round ${round}: ${x.id} and ${y.id} left unpaired`);
      }
    }
    // The first chooser (highest deviation) gets the closest allowed rating.
    const first = [...field].sort((a, b) => b.rd - a.rd)[0];
    const mine = pairs.find((p) => p[0].id === first.id);
    if (field.filter((x) => x.rd === first.rd).length === 1 && mine) {
      const gap = Math.abs(mine[1].rating - first.rating);
      const best = Math.min(...field.filter((x) => x.id !== first.id && x.lastOpponent !== first.id && first.lastOpponent !== x.id).map((x) => Math.abs(x.rating - first.rating)));
      if (gap !== best) t.fail(`round ${round}: the first chooser did not get the closest rating`);
    }
  }
  t.pass('200 random fields checked');
});

t.test('two bots that just met are not paired again', async (t) => {
  t.same(choosePairs([c('x', 1500, 350, 'y'), c('y', 1500, 350, 'x')], prng(1)), []);
  t.same(ids(choosePairs([c('x', 1500, 350, 'y'), c('y', 1500, 350, 'x'), c('z', 2000, 350)], prng(1))).length, 1, 'one of them meets z instead');
});

/** A candidate with its seats (capacity, free now) and whether it has waited for a rematch. */
const cs = (id: string, capacity: number, free: number, lastOpponent: string | null = null, rematchReady = false): Candidate =>
  ({ id, rating: 1500, rd: 350, lastOpponent, capacity, free, rematchReady });

t.test('seats: pair bots meet only with two free seats each; a capacity-1 bot takes anyone’s one seat', async (t) => {
  t.same(choosePairs([cs('p', 4, 1), cs('q', 2, 2)], prng(1)), [], 'a pair bot with one seat left waits instead of a single');
  t.same(choosePairs([cs('p', 4, 1), cs('q', 4, 1)], prng(1)), [], 'two of them as well');
  const withOne = ids(choosePairs([cs('p', 4, 1), cs('q', 4, 2), cs('s', 1, 1)], prng(1)));
  t.ok(withOne.length === 1 && withOne[0].includes('s'), 'one single, against the capacity-1 bot; p and q may not meet, so the other waits');
  t.same(ids(choosePairs([cs('p', 2, 2), cs('q', 3, 2)], prng(1))).flat().sort(), ['p', 'q'], 'two free seats each: paired');
  t.same(ids(choosePairs([cs('s', 1, 1), cs('u', 1, 1)], prng(1))).flat().sort(), ['s', 'u'], 'two capacity-1 bots: paired');
  const rand = prng(5);
  for (let round = 0; round < 200; round++) {
    const field = Array.from({ length: 2 + Math.floor(rand() * 12) }, (_, i) => {
      const capacity = 1 + Math.floor(rand() * 4);
      return cs(`b${i}`, capacity, 1 + Math.floor(rand() * capacity));
    });
    for (const [a, b] of choosePairs(field, prng(round))) {
      const pairBots = a.capacity! >= 2 && b.capacity! >= 2;
      if (pairBots && (a.free! < 2 || b.free! < 2)) t.fail(`round ${round}: ${a.id} and ${b.id} paired short of seats`);
      const plan = planGame({ id: a.id, free: a.free!, colours: { white: 0, black: 0 } }, { id: b.id, free: b.free!, colours: { white: 0, black: 0 } }, prng(1));
      if (pairBots !== (plan.kind === 'mirror')) t.fail(`round ${round}: ${a.id} v ${b.id} plays ${plan.kind}`);
    }
  }
  t.pass('200 random fields: pair bots play each other only in mirror pairs');
});

t.test('a rematch: only when both have waited, and never before a new opponent', async (t) => {
  t.same(choosePairs([cs('x', 2, 2, 'y', true), cs('y', 2, 2, 'x', false)], prng(1)), [], 'one of them has not waited long enough');
  t.same(ids(choosePairs([cs('x', 2, 2, 'y', true), cs('y', 2, 2, 'x', true)], prng(1))).flat().sort(), ['x', 'y'], 'both have: they meet again');
  t.same(ids(choosePairs([cs('x', 2, 2, 'y', true), cs('y', 2, 2, 'x', true), cs('z', 2, 2, 'w', false)], prng(1))).length, 1,
    'a new opponent first: z meets one of them, the other waits');
  t.same(choosePairs([cs('x', 2, 1, 'y', true), cs('y', 2, 2, 'x', true)], prng(1)), [], 'a rematch needs the seats too');
});

const seat = (id: string, free: number, white = 0, black = 0): Seating => ({ id, free, colours: { white, black } });
const never = (): number => {
  throw new Error('no draw expected');
};

t.test('two free seats each: a mirror pair; otherwise a single game', async (t) => {
  t.same(planGame(seat('a', 2), seat('b', 5), never), { kind: 'mirror', white: 'a', black: 'b' });
  for (const [fa, fb] of [[1, 1], [1, 2], [2, 1], [1, 32], [32, 1]]) {
    t.equal(planGame(seat('a', fa), seat('b', fb), prng(3)).kind, 'single', `free ${fa} and ${fb}: a single game`);
  }
});

t.test('a single game gives White to the bot that has played White less', async (t) => {
  t.same(planGame(seat('a', 1, 3, 1), seat('b', 1, 0, 0), never), { kind: 'single', white: 'b', black: 'a' }, 'a has had White more often');
  t.same(planGame(seat('a', 1, 0, 2), seat('b', 2, 1, 1), never), { kind: 'single', white: 'a', black: 'b' }, 'a has had Black more often');
  t.same(planGame(seat('a', 1, 5, 4), seat('b', 1, 9, 6), never), { kind: 'single', white: 'a', black: 'b' }, 'the larger lean to White gets Black');
  const whites = new Set<string>();
  for (let s = 1; s <= 20; s++) whites.add(planGame(seat('a', 1, 2, 2), seat('b', 1, 1, 1), prng(s)).white);
  t.same([...whites].sort(), ['a', 'b'], 'equal leans: the draw decides, either way');
  t.same(planGame(seat('a', 1), seat('b', 1), prng(7)), planGame(seat('a', 1), seat('b', 1), prng(7)), 'reproducibly');
});

t.test('repeated single games keep a bot’s colours near even', async (t) => {
  // One bot meets a stream of fresh opponents; each game's colour is planned from its counts.
  const me = seat('me', 1);
  const rand = prng(11);
  for (let i = 0; i < 41; i++) {
    const opp = seat(`o${i}`, 1, Math.floor(rand() * 3), Math.floor(rand() * 3));
    const plan = planGame(me, opp, rand);
    if (plan.white === 'me') me.colours.white++;
    else me.colours.black++;
    if (Math.abs(me.colours.white - me.colours.black) > 3) t.fail(`game ${i}: colours drift to ${JSON.stringify(me.colours)}`);
  }
  t.ok(Math.abs(me.colours.white - me.colours.black) <= 3, `41 games: ${JSON.stringify(me.colours)}`);
});
