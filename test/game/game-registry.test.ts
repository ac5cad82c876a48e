// The registry as a directory: live lookups, the bounded archive of ended games, lifecycle hooks
// (a throwing listener is contained), and start positions checked at creation.
import t from 'tap';
import type { GameRecord } from '../../src/domain/records.js';
import { MemoryStore, RecordingStore, bot, settle, setup } from '../helpers/game.js';

const spec = (w: string, b: string) => ({ white: bot(w), black: bot(b), timeControl: { Unlimited: {} }, rated: false });

t.test('live, liveFor and get', async (t) => {
  const s = setup();
  const g1 = await s.registry.create(spec('ann', 'bob'));
  const g2 = await s.registry.create(spec('bob', 'cat'));
  t.same(s.registry.live().map((g) => g.id).sort(), [g1.id, g2.id].sort());
  t.same(s.registry.liveFor(bot('bob').id).length, 2);
  t.same(s.registry.liveFor(bot('ann').id).map((g) => g.id), [g1.id]);
  t.same(s.registry.liveFor(bot('nobody').id), []);
  t.equal(s.registry.get(g1.id), g1);
  t.equal(g2.seatOf(bot('bob').id), 'White');
  t.equal(g2.seatOf(bot('cat').id), 'Black');
  t.equal(g2.seatOf(bot('ann').id), null);
  g1.resign('White');
  await settle();
  t.same(s.registry.liveFor(bot('bob').id).map((g) => g.id), [g2.id], 'ended games leave the live set');
});

t.test('the archive keeps the most recent ended records when the store has none', async (t) => {
  // A store that forgets ended games, to exercise the in-memory archive on its own.
  const store = new RecordingStore(new MemoryStore(), []);
  store.getGame = (): GameRecord | undefined => undefined;
  const s = setup({ store, config: { archiveSize: 2 } });
  const games = [];
  for (let i = 0; i < 3; i++) {
    const g = await s.registry.create(spec(`w${i}`, `b${i}`));
    g.resign('Black');
    await settle();
    games.push(g);
  }
  t.equal(s.registry.finalRecord(games[0].id), undefined, 'oldest evicted');
  t.equal(s.registry.finalRecord(games[1].id)?.id, games[1].id);
  t.equal(s.registry.finalRecord(games[2].id)?.id, games[2].id);
  t.equal(s.registry.find(games[2].id)?.isActive(), false, 'find serves it read-only');
  t.same(await s.registry.find(games[2].id)!.move('White', ['e2e4']), { applied: false, version: null, reason: 'game is over' });
});

t.test('the archive is bounded in encoded bytes and gives back the records it kept', async (t) => {
  const forgetful = (): RecordingStore => {
    const store = new RecordingStore(new MemoryStore(), []);
    store.getGame = (): GameRecord | undefined => undefined;
    return store;
  };
  const endGames = async (s: ReturnType<typeof setup>, n: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const g = await s.registry.create(spec(`w${i}`, `b${i}`));
      g.resign('Black');
      await settle();
      ids.push(g.id);
    }
    return ids;
  };
  // One ended record's encoded size, with room to spare.
  const probe = setup({ store: forgetful(), config: { archiveSize: 100 } });
  await endGames(probe, 1);
  const one = probe.registry.archiveUse().bytes;
  t.ok(one > 0, `one record: ${one} bytes`);

  const bound = Math.floor(one * 2.5);
  const s = setup({ store: forgetful(), config: { archiveSize: 100, archiveBytes: bound } });
  const ids = await endGames(s, 5);
  const use = s.registry.archiveUse();
  t.ok(use.bytes <= bound, `${use.bytes} bytes kept, bound ${bound}`);
  t.equal(use.records, 2, 'two records fit');
  t.equal(s.registry.finalRecord(ids[2]), undefined, 'older ones went first');
  t.same(s.registry.finalRecord(ids[4]), s.endedRecords.find((r) => r.id === ids[4]), 'a kept record reads back whole');

  const tiny = setup({ store: forgetful(), config: { archiveSize: 100, archiveBytes: Math.floor(one / 2) } });
  await endGames(tiny, 2);
  t.same(tiny.registry.archiveUse(), { records: 0, bytes: 0 }, 'a record larger than the whole bound is not kept');
});

t.test('a throwing listener is logged and changes nothing', async (t) => {
  const resumed: string[] = [];
  const store = new MemoryStore();
  const s = setup({
    store,
    listeners: [{ gameStarted: () => { throw new Error('listener bug'); }, gameEnded: () => { throw new Error('listener bug'); } }],
  });
  const g = await s.registry.create(spec('a', 'b'));
  t.equal(s.started.length, 1, 'the other listeners still heard it');
  const g2 = await s.registry.create(spec('c', 'd'));
  g.resign('White');
  await settle();
  t.equal(s.endedRecords.length, 1);
  t.equal(s.logs.errors().filter((e) => e.includes('lifecycle listener threw')).length, 3);
  await s.registry.stop();
  const b = setup({ store, listeners: [{ gameResumed: (h) => void resumed.push(h.id) }] });
  await b.registry.resume();
  t.same(resumed, [g2.id], 'gameResumed for each live game rebuilt');
  t.equal(b.started.length, 0, 'no gameStarted for a resumed game');
});

t.test('start positions are checked at creation', async (t) => {
  const s = setup();
  await t.rejects(s.registry.create({ ...spec('a', 'b'), startFen: 'nonsense' }), /bad startFen/);
  await t.rejects(s.registry.create({ ...spec('a', 'b'), startFen: '4k3/8/8/8/8/8/8/4K3 w - - 0 1 PNB' }), /must not carry dice/);
  const g = await s.registry.create({ ...spec('a', 'b'), startFen: '4k3/8/8/8/8/8/8/4K3 b - - 0 1' });
  t.equal(g.state().activeSeat, 'Black', 'the side to move comes from the position');
  t.equal(g.state().dfen, '4k3/8/8/8/8/8/8/4K3 b - - 0 1');
  t.equal(g.state().version, 0);
  t.same(g.state().clocks, null);
  t.equal(g.state().seed, null, 'no reveal while running');
  t.match(g.state().commit, /^[0-9a-f]{64}$/);
});

t.test('reads of an ended game reuse one bounded set of handles', async (t) => {
  const s = setup({ config: { archiveSize: 2 } });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const g = await s.registry.create(spec(`w${i}`, `b${i}`));
    g.resign('White');
    await s.registry.idle();
    ids.push(g.id);
  }
  const first = s.registry.find(ids[2]);
  t.equal(s.registry.find(ids[2]), first, 'the same handle serves repeated reads');
  t.notOk(first?.isActive(), 'of an ended game');
  s.registry.find(ids[1]);
  s.registry.find(ids[0]);
  t.not(s.registry.find(ids[2]), first, 'the least recently read handle was dropped beyond the bound');
  t.equal(s.registry.find(ids[2])?.stateJson(), first?.stateJson(), 'and a fresh one reads the same game');
});

t.test('moveRefused: each refused move with its seat, not a refused seed', async (t) => {
  const refused: [string, string][] = [];
  const s = setup({ listeners: [{ moveRefused: (g, seat) => void refused.push([g.id, seat]) }] });
  const g = await s.registry.create(spec('a', 'b'));
  g.seed('White', 'short');
  await settle();
  t.same(refused, [], 'a malformed seed is Rejected but is no refused move');
  t.same((await g.move('Black', ['a1a1'])) as object, { applied: false, version: null, reason: 'not your turn' });
  await settle();
  t.same(refused, [[g.id, 'Black']]);
});
