// The ladder service's reads over a store that claims persistence (the memory store behind a
// proxy): leaderboard pages and their cache, profiles, and who may use capacity.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import type { Principal } from '../../src/domain/types.js';
import type { GameDirectory } from '../../src/game/types.js';
import { IdentityService } from '../../src/services/identity.js';
import { LadderService } from '../../src/services/ladder.js';
import { MemoryStore } from '../../src/store/memory.js';
import { StoreProxy } from '../helpers/store-proxy.js';
import { bot } from '../store/fixtures.js';

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

const page = (ladder: LadderService, offset: number, limit: number) => {
  const r = ladder.leaderboardJson(offset, limit);
  if (!r.ok) throw new Error(r.error.detail);
  return JSON.parse(r.value) as { leaders: { rank: number; name: string; onLadder: boolean }[]; total: number };
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
  t.match(ladder.leaderboardJson(0, 10), { ok: false, error: { kind: 'not_found', code: 'no_persistence' } });
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
