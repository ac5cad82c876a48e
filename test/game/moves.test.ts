// Move refusals and verdicts: not your turn, illegal turn (every way a path can be wrong), game is
// over; each refusal of a live game is a Rejected event with its own version. And 'busy'.
import t from 'tap';
import { leafPaths } from '../../src/game/house.js';
import { Recorder, bot, has, openWith, pendingTree, settle, setup } from '../helpers/game.js';

async function game(o: { startFen?: string; mailboxSize?: number } = {}) {
  const s = setup({ config: o.mailboxSize ? { mailboxSize: o.mailboxSize } : {} });
  const h = await s.registry.create({
    white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false, startFen: o.startFen,
  });
  const rec = new Recorder();
  h.subscribe(rec);
  return { ...s, h, rec };
}

t.test('not your turn: before any roll, and for the waiting seat', async (t) => {
  const g = await game();
  t.same(await g.h.move('White', ['e2e4']), { applied: false, version: null, reason: 'not your turn' });
  await openWith(g.h, has(1));
  const before = g.h.state().version;
  t.same(await g.h.move('Black', ['e7e5']), { applied: false, version: null, reason: 'not your turn' });
  t.same(g.rec.events().at(-1), { Rejected: { v: before + 1, seat: 'Black', reason: 'not your turn' } });
  t.same(g.rec.events()[0], { Rejected: { v: 1, seat: 'White', reason: 'not your turn' } }, 'the early refusal took v 1');
  t.equal(g.store.getGame(g.h.id)!.version, before + 1, 'persisted');
  t.ok(g.h.state().dicePending, 'the roll is still pending');
});

t.test('illegal turns: prefix, extra move, reordered, upper-case, junk', async (t) => {
  const g = await game();
  await openWith(g.h, (d) => d.includes(1) && d.includes(2));
  const tree = pendingTree(g.h)!;
  const paths = leafPaths(tree);
  const known = new Set(paths.map((p) => p.join(' ')));
  const long = paths.find((p) => p.length >= 2)!;
  const reordered = paths.map((p) => [...p].reverse()).find((p) => !known.has(p.join(' ')))!;
  t.ok(long && reordered, 'found test paths');
  const bad: string[][] = [
    long.slice(0, -1),
    [...long, 'a2a3'],
    reordered,
    long.map((m) => m.toUpperCase()),
    [],
    ['zz'],
  ];
  let v = g.h.state().version;
  for (const moves of bad) {
    const verdict = await g.h.move('White', moves);
    t.same(verdict, { applied: false, version: null, reason: 'illegal turn' }, JSON.stringify(moves));
    const ev = g.rec.events().at(-1)!;
    t.same(ev, { Rejected: { v: ++v, seat: 'White', reason: `illegal turn: ${moves.length ? moves.join(' ') : '(no moves)'}` } });
  }
  const good = paths[0];
  const verdict = await g.h.move('White', good);
  await settle();
  const played = g.rec.events().find((e) => 'TurnPlayed' in e) as { TurnPlayed: { v: number; moves: string[] } };
  t.same(played.TurnPlayed.moves, good);
  t.same(verdict, { applied: true, version: played.TurnPlayed.v, reason: null }, 'verdict.version is the TurnPlayed v');
  t.equal(played.TurnPlayed.v, v + 1);
});

t.test('a promotion without its suffix is illegal', async (t) => {
  const g = await game({ startFen: '4k3/P7/8/8/8/8/8/4K3 w - - 0 1' });
  await openWith(g.h, has(1));
  const path = leafPaths(pendingTree(g.h)!).find((p) => p.some((m) => m.startsWith('a7a8')))!;
  t.ok(path, 'a promotion is legal');
  const stripped = path.map((m) => (m.startsWith('a7a8') ? 'a7a8' : m));
  t.same(await g.h.move('White', stripped), { applied: false, version: null, reason: 'illegal turn' });
  t.same((await g.h.move('White', path) as { applied: boolean }).applied, true);
});

t.test('game is over: the verdict only (nobody is listening any more)', async (t) => {
  const g = await game();
  await openWith(g.h, has(1));
  g.h.resign('White');
  await settle();
  const last = g.h.state().version;
  t.same(await g.h.move('White', ['e2e4']), { applied: false, version: null, reason: 'game is over' });
  t.same(await g.h.move('Black', ['e7e5']), { applied: false, version: null, reason: 'game is over' });
  t.equal(g.h.state().version, last, 'the final record stays final');
  t.equal(g.rec.kinds().at(-1), 'GameEnded');
});

t.test('a full mailbox answers busy', async (t) => {
  const g = await game({ mailboxSize: 2 });
  await openWith(g.h, has(1));
  const verdicts = await Promise.all([1, 2, 3, 4].map(() => g.h.move('Black', ['e7e5'])));
  t.same(verdicts.slice(2), ['busy', 'busy']);
  t.same((verdicts[0] as { reason: string }).reason, 'not your turn');
  t.ok(g.h.isActive());
});
