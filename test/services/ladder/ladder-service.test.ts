// The ladder service's reads over a store that claims persistence (the memory store behind a
// proxy): leaderboard pages and their cache, profiles, and who may use capacity.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import type { Principal } from '../../../src/domain/types.js';
import type { GameDirectory } from '../../../src/game/types.js';
import { IdentityService } from '../../../src/services/identity.js';
import { LadderService } from '../../../src/services/ladder.js';
import { MemoryStore } from '../../../src/store/memory.js';
import { StoreProxy } from '../../helpers/store-proxy.js';
import { bot } from '../../helpers/store-fixtures.js';

class Persistent extends StoreProxy {
  override get persistent(): boolean {
    return true;
  }
}

const noGames = { liveFor: () => [] } as unknown as GameDirectory;

async function setup(listed: number) {
  const store = new Persistent(new MemoryStore());
  for (let i = 0; i < listed; i++) await store.createBot(bot('t', `b${String(i).padStart(3, '0')}`, { rating: { rating: 2000 - i, rd: 60, volatility: 0.06 } }));
  await store.createBot(bot('t', 'fresh'));
  const identity = new IdentityService(store, new ManualClock());
  return { store, ladder: new LadderService({ store, games: noGames, identity }) };
}

type Row = { rank: number; name: string; onLadder: boolean; rd: number };
type Answer = { leaders: Row[]; total: number; provisional: Row[]; provisionalTotal: number };
const page = (ladder: LadderService, offset: number, limit: number, provisionalOffset = 0, provisionalLimit = 100) => {
  const r = ladder.leaderboardJson({ offset, limit, provisionalOffset, provisionalLimit });
  if (!r.ok) throw new Error(r.error.detail);
  return JSON.parse(r.value.toString('utf8')) as Answer;
};

t.test('pages carry global ranks; the page cache stays bounded and follows changes', async (t) => {
  const { store, ladder } = await setup(120);
  const first = page(ladder, 0, 100);
  t.equal(first.total, 120, 'the provisional bot is not counted');
  t.equal(first.leaders.length, 100);
  t.same(first.leaders.slice(0, 2).map((l) => [l.rank, l.name]), [[1, 'b000'], [2, 'b001']]);
  t.same(page(ladder, 110, 100).leaders.map((l) => l.rank), [111, 112, 113, 114, 115, 116, 117, 118, 119, 120], 'the last page');
  for (let i = 0; i < 100; i++) page(ladder, i, 1 + (i % 7));
  t.ok(ladder.cachedPages() <= 16, `${ladder.cachedPages()} pages cached after 100 different requests`);
  t.same(page(ladder, 5, 1).leaders.map((l) => [l.rank, l.name]), [[6, 'b005']], 'a cached page is still right');

  const b0 = store.getBot('bot:team:t:b000')!;
  await store.updateBot({ ...b0, onLadder: true });
  t.equal(page(ladder, 0, 1).leaders[0].onLadder, true, 'a changed record shows at once');
});

t.test('provisional bots on the ladder come apart, paged on their own, and move when they settle', async (t) => {
  const { store, ladder } = await setup(3);
  // 'fresh' (1500 / 350) is not on the ladder: a registered bot that never joined is in neither list.
  t.same(page(ladder, 0, 100).provisional, [], 'off the ladder: not provisional');
  for (const [name, rating, rd] of [['p-low', 1400, 200], ['p-top', 1700, 300], ['p-tie-b', 1600, 150], ['p-tie-a', 1600, 150], ['p-sure', 1600, 120]] as const) {
    await store.createBot(bot('t', name, { onLadder: true, rating: { rating, rd, volatility: 0.06 } }));
  }
  await store.modifyBot('bot:team:t:fresh', (b) => ({ ...b, onLadder: true }));
  const all = page(ladder, 0, 100);
  t.equal(all.total, 3, 'the provisional bots are not counted among the listed');
  t.same(all.leaders.map((l) => l.name), ['b000', 'b001', 'b002']);
  t.same(all.provisional.map((l) => [l.rank, l.name]), [[1, 'p-top'], [2, 'p-sure'], [3, 'p-tie-a'], [4, 'p-tie-b'], [5, 'fresh'], [6, 'p-low']],
    'by rating, then deviation, then name; ranks within the list');
  t.equal(all.provisionalTotal, 6);
  t.ok(all.provisional.every((l) => l.onLadder && l.rd > 110));
  const second = page(ladder, 0, 1, 2, 2);
  t.same(second.leaders.map((l) => l.name), ['b000'], 'the listed page is its own');
  t.same(second.provisional.map((l) => [l.rank, l.name]), [[3, 'p-tie-a'], [4, 'p-tie-b']], 'a middle page of the provisional list');
  t.same(page(ladder, 0, 1, 0, 0).provisional, [], 'a provisional limit of 0 leaves the list out');
  t.equal(page(ladder, 0, 1, 0, 0).provisionalTotal, 6, 'but still counts it');
  // Settling moves a bot across; leaving the ladder takes a provisional bot out of the list.
  await store.modifyBot('bot:team:t:p-top', (b) => ({ ...b, rating: { ...b.rating, rd: 100 } }));
  await store.modifyBot('bot:team:t:p-low', (b) => ({ ...b, onLadder: false }));
  const after = page(ladder, 0, 100);
  t.same(after.leaders.map((l) => l.name), ['b000', 'b001', 'b002', 'p-top'], 'settled: listed, ranked by rating');
  t.same(after.provisional.map((l) => l.name), ['p-sure', 'p-tie-a', 'p-tie-b', 'fresh'], 'left: gone from the provisional list');
});

t.test('profiles: provisional, history, offLadderReason', async (t) => {
  const { store, ladder } = await setup(1);
  const fresh = ladder.profile('t', 'fresh');
  t.match(fresh, { ok: true, value: { provisional: true, ratingHistory: [], offLadderReason: null, recent: [], games: 0 } });
  const b = store.getBot('bot:team:t:b000')!;
  await store.updateBot({ ...b, onLadder: false, offLadderReason: 'lost 4 ladder games in a row on time' });
  t.match(ladder.profile('t', 'b000'), { ok: true, value: { provisional: false, onLadder: false, offLadderReason: 'lost 4 ladder games in a row on time' } });
  t.match(ladder.profile('t', 'nobody'), { ok: false, error: { kind: 'not_found', code: 'unknown_bot' } });
});

t.test('without persistence both reads are 404', async (t) => {
  const store = new MemoryStore();
  const ladder = new LadderService({ store, games: noGames, identity: new IdentityService(store, new ManualClock()) });
  t.match(ladder.leaderboardJson({ offset: 0, limit: 10, provisionalOffset: 0, provisionalLimit: 10 }), { ok: false, error: { kind: 'not_found', code: 'no_persistence' } });
  t.match(ladder.profile('t', 'x'), { ok: false, error: { kind: 'not_found', code: 'no_persistence' } });
});

t.test('capacity is for registered bots only', async (t) => {
  const { ladder } = await setup(0);
  for (const tier of ['anonymous', 'static', 'guest'] as const) {
    const p: Principal = { id: `x:${tier}`, tier, team: 'x', name: tier };
    t.match(ladder.capacity(p), { ok: false, error: { kind: 'forbidden' } }, `${tier}: read`);
    t.match(await ladder.setCapacity(p, 2), { ok: false, error: { kind: 'forbidden' } }, `${tier}: write`);
  }
});
