// Every way a game ends: KingCaptured, Resign, Timeout, Draw (halfmove and roll count), Aborted.
import t from 'tap';
import type { GameRecord, ResultRecord } from '../../src/domain/records.js';
import {
  MemoryStore, Recorder, RecordingStore, bot, has, lacks, openWith, rng, playRandom, settle, setup,
} from '../helpers/game.js';

const KINGS_AND_QUEEN = '4k3/8/8/7Q/8/8/8/4K3 w - - 0 1';
const BLOCKED = '7k/8/8/8/4p3/4P3/8/K7 w - - 0 1';

t.test('KingCaptured: the capture ends the game, the capturer wins and stays to move', async (t) => {
  const s = setup();
  const h = await s.registry.create({
    white: bot('w'), black: bot('b'), timeControl: { SuddenDeath: { initialSeconds: 60 } }, rated: true, startFen: KINGS_AND_QUEEN,
  });
  const rec = new Recorder();
  h.subscribe(rec);
  await openWith(h, has(5));
  t.ok(h.state().dicePending);
  const verdict = await h.move('White', ['h5e8']);
  await settle();
  t.same(rec.kinds(), ['DiceRolled', 'TurnPlayed', 'GameEnded']);
  const played = rec.last('TurnPlayed')!;
  t.same(verdict, { applied: true, version: played.v, reason: null });
  t.same(rec.last('GameEnded')!.over, { result: { Win: { side: 'White' } }, termination: 'KingCaptured' });
  t.equal(h.record().activeSeat, 'White', 'the position is not turned over');
  t.match(played.fenAfter, /^4Q3\/8\/8\/8\/8\/8\/8\/4K3 w /);
  t.equal(h.record().history.at(-1)!.fenAfter, played.fenAfter);
  t.same(await h.move('Black', ['e8e7']), { applied: false, version: null, reason: 'game is over' });
});

t.test('Resign: the other seat wins; later resignations are ignored', async (t) => {
  const s = setup();
  const h = await s.registry.create({ white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: true });
  const rec = new Recorder();
  h.subscribe(rec);
  await openWith(h, has(1)); // a pawn die: the start position can move, no forced pass
  h.resign('Black');
  h.resign('Black');
  await settle();
  h.resign('White');
  await settle();
  t.same(rec.kinds(), ['DiceRolled', 'GameEnded']);
  t.same(rec.last('GameEnded')!.over, { result: { Win: { side: 'White' } }, termination: 'Resign' });
  t.equal(s.clock.pending(), 0, 'no timer left behind');
  const results = s.store.resultsOf(bot('b').id, 5);
  t.same(results.map((r: ResultRecord) => [r.result, r.termination, r.rated]), [['loss', 'Resign', true]]);
});

t.test('Resign before the opening roll', async (t) => {
  const s = setup();
  const h = await s.registry.create({ white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false });
  h.resign('White');
  await settle();
  t.notOk(h.isActive());
  t.same(h.record().status, { Ended: { over: { result: { Win: { side: 'Black' } }, termination: 'Resign' } } });
  t.equal(h.record().version, 1, 'GameEnded is the first event');
  t.equal(s.clock.pending(), 0, 'the grace timer is gone');
});

t.test('Timeout: the bank runs out while the decision is pending', async (t) => {
  const s = setup();
  const h = await s.registry.create({ white: bot('w'), black: bot('b'), timeControl: { SuddenDeath: { initialSeconds: 5 } }, rated: true });
  const rec = new Recorder();
  h.subscribe(rec);
  s.clock.advance(3000);
  await settle();
  const mover = h.state().activeSeat;
  s.clock.advance(4999);
  await settle();
  t.ok(h.isActive(), 'one millisecond left');
  s.clock.advance(1);
  await settle();
  t.notOk(h.isActive());
  const winner = mover === 'White' ? 'Black' : 'White';
  t.same(rec.last('GameEnded')!.over, { result: { Win: { side: winner } }, termination: 'Timeout' });
  const clocks = h.record().clocks!;
  t.equal(mover === 'White' ? clocks.white : clocks.black, 0, 'the loser shows zero');
  t.equal(mover === 'White' ? clocks.black : clocks.white, 5000, 'the winner kept its bank');
});

t.test('Draw: halfmove 99 plus one quiet micro-move', async (t) => {
  const s = setup();
  const h = await s.registry.create({
    white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: true, startFen: '4k3/8/8/8/8/8/8/4K3 w - - 99 60',
  });
  const rec = new Recorder();
  h.subscribe(rec);
  // Exactly one king die: with two, the maximum rule would make a single step a mere prefix.
  await openWith(h, (d) => d.filter((x) => x === 6).length === 1);
  const v = await h.move('White', ['e1d1']);
  await settle();
  t.same(rec.kinds(), ['DiceRolled', 'TurnPlayed', 'GameEnded']);
  t.same(v, { applied: true, version: 2, reason: null });
  t.same(rec.last('GameEnded')!.over, { result: { Draw: {} }, termination: 'Draw' });
  t.same(s.store.resultsOf(bot('w').id, 5).map((r: ResultRecord) => r.result), ['draw']);
});

t.test('Draw: the roll limit (configured small), reached through forced passes', async (t) => {
  const s = setup({ config: { maxRolls: 4 } });
  const h = await s.registry.create({
    white: bot('w'), black: bot('b'), timeControl: { Fischer: { initialSeconds: 10, incrementSeconds: 2 } }, rated: true, startFen: BLOCKED,
  });
  const rec = new Recorder();
  h.subscribe(rec);
  await openWith(h, lacks(6), 4);
  t.same(rec.kinds(), ['DiceRolled', 'TurnPlayed', 'DiceRolled', 'TurnPlayed', 'DiceRolled', 'TurnPlayed', 'DiceRolled', 'TurnPlayed', 'GameEnded']);
  t.equal(h.record().history.length, 4);
  t.equal(h.record().ply, 4);
  t.same(rec.last('GameEnded')!.over.termination, 'Draw');
  t.same(h.record().clocks, { white: 10_000, black: 10_000 }, 'passes cost nothing and earn nothing');
});

t.test('an unexpected failure inside a command aborts the game; the verdict says game is over', async (t) => {
  const inner = new MemoryStore();
  const store = new RecordingStore(inner, []);
  let failAt = -1;
  const put = store.putGame.bind(store);
  store.putGame = async (g: GameRecord) => {
    if (g.version === failAt) throw new Error('disk on fire');
    return put(g);
  };
  const s = setup({ store });
  const h = await s.registry.create({ white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: true });
  const rec = new Recorder();
  h.subscribe(rec);
  await openWith(h, has(1));
  failAt = h.record().version + 1;
  const played = await playRandom(h, rng(1));
  await settle();
  t.same(played?.verdict, { applied: false, version: null, reason: 'game is over' });
  t.same(rec.kinds(), ['DiceRolled', 'GameEnded'], 'the failed turn was never published');
  t.equal(rec.last('GameEnded')!.v, 2, 'GameEnded takes the next version after the last published event');
  t.equal(rec.last('GameEnded')!.over.termination, 'Aborted');
  t.equal(inner.getGame(h.id)!.history.length, 0, 'the store holds the game as it was');
  t.ok('Ended' in inner.getGame(h.id)!.status);
});
