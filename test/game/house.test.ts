// House players: random and greedy finish games against a scripted opponent; greedy takes a king
// when it can and the most valuable material otherwise; the house also plays over-cap trees, after
// a delay, and after a restart.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import type { Seat } from '../../src/domain/types.js';
import type { HouseKind } from '../../src/game/house.js';
import { chooseTurn, greedyChoice, leafPathAt, leafPaths } from '../../src/game/house.js';
import type { GameHandle } from '../../src/game/types.js';
import { hexToSeed, rollDice } from '../../src/fair/index.js';
import { MemoryStore, Recorder, bot, playRandom, rng, settle, setup } from '../helpers/game.js';

const HOUSE_RANDOM = bot('random', 'house');
const HOUSE_GREEDY = bot('greedy', 'house');
const houses = new Map<string, HouseKind>([[HOUSE_RANDOM.id, 'random'], [HOUSE_GREEDY.id, 'greedy']]);

/** Seeds the scripted seat with a seed chosen so the opening roll (from the house seed) fits `want`. */
async function openAgainstHouse(h: GameHandle, scripted: Seat, want: (d: number[], ply: number) => boolean, plies = 1) {
  const houseSeed = h.record().clientSeeds[scripted === 'White' ? 'black' : 'white'];
  if (houseSeed === null) throw new Error('the house should have seeded at once');
  // The house's seed is fixed; search the scripted seat's seed.
  const seed = hexToSeed(h.record().serverSeed)!;
  for (let i = 0; i < 200_000; i++) {
    const mine = `scripted-seed-${i.toString().padStart(6, '0')}`;
    const [w, b] = scripted === 'White' ? [mine, houseSeed] : [houseSeed, mine];
    let ok = true;
    for (let ply = 0; ok && ply < plies; ply++) ok = want(rollDice(seed, w, b, ply), ply);
    if (ok) {
      h.seed(scripted, mine);
      await settle();
      return;
    }
  }
  throw new Error('no seed found');
}

for (const kind of ['random', 'greedy'] as const) {
  t.test(`the ${kind} house player finishes a game against a scripted player`, async (t) => {
    const s = setup({ housePlayers: houses, random: rng(21) });
    const house = kind === 'random' ? HOUSE_RANDOM : HOUSE_GREEDY;
    const h = await s.registry.create({ white: house, black: bot('scripted'), timeControl: { Fischer: { initialSeconds: 60, incrementSeconds: 1 } }, rated: false });
    const rec = new Recorder();
    h.subscribe(rec);
    await settle();
    t.match(h.record().clientSeeds.white, /^house-seed:/, 'the house seeds at once');
    h.seed('Black', 'scripted-seed-0123456789');
    await settle();
    t.ok(rec.frames.length > 0, 'both seeded: the game started without the grace');
    const random = rng(5);
    for (let i = 0; i < 3000 && h.isActive(); i++) {
      s.clock.advance(100);
      if (h.state().dicePending && h.state().activeSeat === 'Black') await playRandom(h, random);
      await settle();
    }
    t.notOk(h.isActive(), 'the game ended');
    t.ok(['KingCaptured', 'Draw'].includes(rec.last('GameEnded')!.over.termination), 'played to a natural end');
    const houseTurns = h.record().history.filter((e) => e.seat === 'White' && e.moves.length > 0);
    t.ok(houseTurns.length > 0, 'the house played');
    t.same(s.logs.lines.filter((l) => l.msg?.startsWith('house')), [], 'every house move was applied');
  });
}

t.test('greedy captures the king whenever it can', async (t) => {
  const s = setup({ housePlayers: houses, random: rng(1) });
  // Queen h5 can take the king on e8 or the rook on h7.
  const h = await s.registry.create({ white: HOUSE_GREEDY, black: bot('b'), timeControl: { Unlimited: {} }, rated: false, startFen: '4k3/7r/8/7Q/8/8/8/4K3 w - - 0 1' });
  const rec = new Recorder();
  h.subscribe(rec);
  await settle();
  await openAgainstHouse(h, 'Black', (d) => d.includes(5));
  await settle();
  // Any king-capturing path will do (with two queen dice, h5e2 e2e8 also takes it).
  t.match(rec.last('TurnPlayed')!.moves.at(-1), /^[a-h][1-8]e8$/, 'the turn ends on the king');
  t.same(rec.last('GameEnded')!.over, { result: { Win: { side: 'White' } }, termination: 'KingCaptured' });
});

t.test('greedy takes the most valuable capture otherwise', async (t) => {
  const s = setup({ housePlayers: houses, random: rng(2) });
  // Queen d4 can take the rook on d7 (5) or the knight on b4 (3); the king on g8 is out of reach.
  const h = await s.registry.create({ white: HOUSE_GREEDY, black: bot('b'), timeControl: { Unlimited: {} }, rated: false, startFen: '6k1/3r4/8/8/1n1Q4/8/8/K7 w - - 0 1' });
  const rec = new Recorder();
  h.subscribe(rec);
  await settle();
  await openAgainstHouse(h, 'Black', (d) => d.filter((x) => x === 5).length === 1 && !d.includes(6));
  await settle();
  const first = rec.frames.find((f) => 'TurnPlayed' in f.event)!.event as { TurnPlayed: { seat: string; moves: string[] } };
  t.same(first.TurnPlayed, { ...first.TurnPlayed, seat: 'White', moves: ['d4d7'] });
});

t.test('greedyChoice and chooseTurn on their own', async (t) => {
  const dfen = '6k1/3r4/8/8/1n1Q4/8/8/K7 w - - 0 1 PNQ';
  const tree = { d4b4: {}, d4c4: {}, d4d7: {}, d4e5: {} };
  t.same(greedyChoice(dfen, leafPaths(tree), rng(1)), ['d4d7']);
  t.same(chooseTurn('greedy', dfen, tree, rng(3)), ['d4d7']);
  const seen = new Set<string>();
  const r = rng(4);
  for (let i = 0; i < 200; i++) seen.add(chooseTurn('random', dfen, tree, r)!.join());
  t.equal(seen.size, 4, 'random reaches every leaf');
  t.equal(chooseTurn('random', dfen, {}, r), null, 'nothing to play on an empty tree');
  const ties = new Set<string>();
  for (let i = 0; i < 100; i++) ties.add(greedyChoice(dfen, [['d4c4'], ['d4e5']], r)!.join());
  t.equal(ties.size, 2, 'ties broken at random');
});

t.test('over the inline cap the house reads the full tree', async (t) => {
  const s = setup({ housePlayers: houses, random: rng(3) });
  const h = await s.registry.create({ white: HOUSE_RANDOM, black: bot('b'), timeControl: { Unlimited: {} }, rated: false, startFen: '4k3/8/8/8/3QQ3/8/8/4K3 w - - 0 1' });
  const rec = new Recorder();
  h.subscribe(rec);
  await settle();
  await openAgainstHouse(h, 'Black', (d) => d.filter((x) => x === 5).length >= 2);
  await settle();
  const rolled = rec.frames.find((f) => 'DiceRolled' in f.event)!.event as { DiceRolled: { legalMoves: unknown } };
  t.equal(rolled.DiceRolled.legalMoves, null, 'inline tree was null');
  t.ok(rec.kinds().includes('TurnPlayed'), 'the house played anyway');
});

t.test('the house waits houseMoveDelayMs on the injected clock', async (t) => {
  const s = setup({ housePlayers: houses, random: rng(3), config: { houseMoveDelayMs: 800 } });
  const h = await s.registry.create({ white: HOUSE_RANDOM, black: bot('b'), timeControl: { Unlimited: {} }, rated: false });
  const rec = new Recorder();
  h.subscribe(rec);
  await settle();
  await openAgainstHouse(h, 'Black', (d) => d.includes(1));
  s.clock.advance(799);
  await settle();
  t.same(rec.kinds(), ['DiceRolled'], 'not yet');
  s.clock.advance(1);
  await settle();
  t.equal(rec.kinds()[1], 'TurnPlayed', 'played after the delay');
});

t.test('after a restart the house plays the roll that was pending', async (t) => {
  const store = new MemoryStore();
  const a = setup({ store, housePlayers: houses, random: rng(3), config: { houseMoveDelayMs: 1000 } });
  const h1 = await a.registry.create({ white: HOUSE_GREEDY, black: bot('b'), timeControl: { Unlimited: {} }, rated: false });
  await settle();
  // Pawn dice for both first rolls: after the house's move Black has a real decision.
  await openAgainstHouse(h1, 'Black', (d) => d.includes(1), 2);
  t.ok(h1.state().dicePending && h1.state().activeSeat === 'White');
  await a.registry.stop(); // before the house's delay ran out
  const b = setup({ store, housePlayers: houses, random: rng(3), clock: new ManualClock(a.clock.now() + 60_000) });
  await b.registry.resume();
  await settle();
  const h2 = b.registry.get(h1.id)!;
  t.equal(h2.state().activeSeat, 'Black', 'the house moved');
  t.ok(h2.state().dicePending, 'and Black has its roll');
  t.equal(h2.history().length, 1);
});

t.test('the random house draws one path by index, as from the list of every path', async (t) => {
  const { legalTree, parseDfen, treeToObject } = await import('../../src/engine/index.js');
  const fens = [
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 PNB',
    'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 PQK',
    '4k3/3P4/8/8/8/8/8/4K3 w - - 0 1 P',
  ];
  for (const fen of fens) {
    const pos = parseDfen(fen);
    if (!pos.ok) throw new Error(pos.error.message);
    const tree = treeToObject(legalTree(pos.value).bytes);
    const paths = leafPaths(tree);
    t.ok(paths.length > 1, `${fen}: ${paths.length} paths`);
    const step = Math.max(1, Math.floor(paths.length / 200));
    let same = true;
    for (let i = 0; i < paths.length; i += step) same &&= JSON.stringify(leafPathAt(tree, i)) === JSON.stringify(paths[i]);
    same &&= JSON.stringify(leafPathAt(tree, paths.length - 1)) === JSON.stringify(paths[paths.length - 1]);
    t.ok(same, 'leafPathAt(i) is the i-th path in key order');
    const a = rng(7);
    const b = rng(7);
    for (let k = 0; k < 20; k++) {
      t.same(chooseTurn('random', fen, tree, a), paths[Math.floor(b() * paths.length)], 'the same draw as picking from the list');
    }
  }
  t.equal(chooseTurn('random', '4k3/8/8/8/8/8/8/4K3 w - - 0 1 P', {}, rng(1)), null, 'no path, no turn');
});
