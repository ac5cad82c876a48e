// How long a shard host keeps its replies for a repeated command (ShardHost, `repliesKeptMs`, as a
// cluster node sets it): a repeat within the window is answered with the first reply and acts once;
// under steady commands the host keeps only the last window's replies, not the last 10,000. Ended
// games kept for a late sync (`endedKeptMs`) likewise: the last window's, not the last 256.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/domain/log.js';
import { DEFAULT_GAME_CONFIG } from '../../src/game/game-config.js';
import { MemoryStore } from '../../src/store/memory.js';
import { ShardHost } from '../../src/shard/owner/host.js';
import type { Command, ShardReply } from '../../src/shard/protocol/messages.js';
import { tick, until } from '../helpers/poll.js';

const seat = (id: string) => ({ id, face: { kind: 'Bot' as const, name: `t ${id}` }, participant: { Bot: { team: 't', name: id } } });
const spec = { white: seat('w'), black: seat('b'), timeControl: { Unlimited: {} }, rated: false };

function host(repliesKeptMs?: number, endedKeptMs?: number) {
  const clock = new ManualClock();
  const store = new MemoryStore();
  const out: ShardReply[] = [];
  const h = new ShardHost({
    store: { mode: 'shared', games: store }, clock, config: { ...DEFAULT_GAME_CONFIG, seedGraceMs: 60_000 }, log: silentLogger,
    housePlayers: new Map(), statsEveryMs: 0, post: (b) => void out.push(...structuredClone(b)), later: (fn) => setImmediate(fn),
    repliesKeptMs,
    endedKeptMs,
  });
  return { h, store, out, clock };
}

t.test('a repeat within the window gets the first reply and makes no second game', async (t) => {
  const { h, store, out, clock } = host(60_000);
  let puts = 0;
  const put = store.putGame.bind(store);
  store.putGame = (g) => (puts++, put(g));
  const create: Command = { t: 'create', rid: 7, id: 'h1', spec };
  h.receive([create]);
  await until(() => (out.some((r) => r.t === 'done') ? true : undefined), 'the create answered');
  const writes = puts;
  clock.advance(59_000);
  h.receive([create]);
  await tick();
  t.equal(out.filter((r) => r.t === 'done' && r.rid === 7).length, 2, 'answered again');
  t.equal(out.filter((r) => r.t === 'started').length, 1, 'one game');
  t.equal(puts, writes, 'nothing written again');
});

t.test('under steady commands only the last window of replies is kept', async (t) => {
  const { h, out, clock } = host(60_000);
  // 20 commands a second for ten minutes (each a game command for a game the shard does not have:
  // answered at once), 12,000 in all.
  for (let rid = 1; rid <= 12_000; rid++) {
    h.receive([{ t: 'game', rid, id: 'none', name: 'seed', payload: { seat: 'White', seed: 'a'.repeat(32) } } as Command]);
    clock.advance(50);
  }
  await tick();
  t.equal(out.filter((r) => r.t === 'answer').length, 12_000, 'every command answered');
  t.ok(h.remembered() <= 1201, `a minute of replies kept (${h.remembered()}), not 10,000`);
  clock.advance(60_000);
  t.equal(h.remembered(), 0, 'none once the window has passed');
});

t.test('without a window (a single server), the count bounds them', async (t) => {
  const { h, clock } = host();
  for (let rid = 1; rid <= 10_500; rid++) h.receive([{ t: 'game', rid, id: 'none', name: 'seed', payload: { seat: 'White', seed: 'a'.repeat(32) } } as Command]);
  clock.advance(3_600_000);
  t.equal(h.remembered(), 10_000);
});

t.test('ended games are kept for a late sync within the window only, not the last 256', async (t) => {
  const { h, out, clock } = host(60_000, 60_000);
  const kept = () => (h as unknown as { ended: { entries(): Iterable<unknown> } }).ended;
  for (let i = 0; i < 40; i++) {
    const id = `x${i}`;
    h.receive([{ t: 'create', rid: 1000 + 2 * i, id, spec }]);
    await until(() => (out.some((r) => r.t === 'started' && r.rec.id === id) ? true : undefined), `${id} started`);
    h.receive([{ t: 'game', rid: 1001 + 2 * i, id, name: 'resign', payload: { seat: 'White' } } as Command]);
    await until(() => (out.some((r) => r.t === 'answer' && r.rid === 1001 + 2 * i) ? true : undefined), `${id} resigned`);
    await tick();
    clock.advance(10_000); // an ending every ten seconds
  }
  const inside = [...kept().entries()].length;
  t.ok(inside >= 5 && inside <= 6, `the last minute's endings kept (${inside}), not all 40`);
  t.equal((kept() as unknown as { size: number }).size <= 7, true, 'and no more held in memory');
  h.receive([{ t: 'sync', rid: 5000, id: 'x39' }]);
  await tick();
  t.ok(out.some((r) => r.t === 'synced' && r.rid === 5000), 'a late sync of the last one is answered');
  h.receive([{ t: 'sync', rid: 5001, id: 'x0' }]);
  await tick();
  t.ok(out.some((r) => r.t === 'failed' && r.rid === 5001), 'one ended long before is not (the cluster store has it)');
});
