// The requests between main and its shards over a transport that may lose or repeat them: main sends
// a command again (same rid) until answered, with a deadline, in a bounded map; the shard acts on a
// repeated command once and answers it with its first reply; a game whose announcement was lost is
// fetched whole; updates are applied only in order, a gap asks the owner for the whole state.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/domain/log.js';
import { SCHEMA_VERSION, type GameRecord } from '../../src/domain/records.js';
import { DEFAULT_GAME_CONFIG } from '../../src/game/game-config.js';
import { MemoryStore } from '../../src/store/memory.js';
import { ShardHost } from '../../src/shard/owner/host.js';
import type { Command, ShardReply } from '../../src/shard/protocol/messages.js';
import { ShardedGames } from '../../src/shard/main/sharded-games.js';
import type { ShardEvents, ShardTransport } from '../../src/shard/protocol/transport.js';
import { tick, until } from '../helpers/poll.js';
import { announce } from '../helpers/shard-announce.js';

const seat = (id: string) => ({ id, face: { kind: 'Bot' as const, name: `t ${id}` }, participant: { Bot: { team: 't', name: id } } });
const spec = { white: seat('w'), black: seat('b'), timeControl: { Unlimited: {} }, rated: false };

/** One shard that records what it is sent and answers only when the test says. */
class StandIn implements ShardTransport {
  events!: ShardEvents;
  sent: Command[] = [];
  open(_index: number, events: ShardEvents) {
    this.events = events;
    return { send: (batch: Command[]) => void this.sent.push(...batch), close: async () => {} };
  }
  reply(...r: ShardReply[]): void {
    this.events.replies(r);
  }
}

function liveRecord(id: string): GameRecord {
  return {
    schema: SCHEMA_VERSION, id, white: seat('w'), black: seat('b'), timeControl: { Unlimited: {} }, rated: false, createdAt: 1,
    serverSeed: '00'.repeat(32), commit: '11'.repeat(32), clientSeeds: { white: null, black: null }, ply: 1,
    fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', activeSeat: 'White', dice: [1, 2, 3],
    clocks: { white: null, black: null } as unknown as GameRecord['clocks'], clockStartedAt: 1, version: 1, history: [],
    status: { Active: {} }, revealedSeeds: null, finishedAt: null, mirrorOf: null,
  };
}

function standInGames(clock: ManualClock, more: Partial<ConstructorParameters<typeof ShardedGames>[0]> = {}) {
  const transport = new StandIn();
  const store = new MemoryStore();
  const started: string[] = [];
  const games = new ShardedGames({
    transport, shards: 1, store, forwarded: true, clock, config: DEFAULT_GAME_CONFIG, listeners: [{ gameStarted: (g) => void started.push(g.id) }],
    newId: () => 'g1', log: silentLogger, ...more,
  });
  const announced = (...recs: GameRecord[]) => announce(games, store, () => transport.sent, (r) => transport.reply(...r), ...recs.map((rec) => ({ rec })));
  return { transport, store, games, started, announced };
}

const ridOf = (c: Command | undefined): number => (c as { rid: number }).rid;

t.test('a move whose verdict never comes is sent again, then answered busy at its deadline; the waiting map empties; it is bounded', async (t) => {
  const clock = new ManualClock();
  const { transport, games, announced } = standInGames(clock, { verdictTimeoutMs: 5000, pendingMax: 3 });
  await announced(liveRecord('g1'));
  const g = games.get('g1')!;
  const moves = [g.move('White', ['e2e4']), g.move('White', ['e2e4']), g.move('White', ['e2e4'])];
  t.equal(await g.move('White', ['e2e4']), 'busy', 'past the bound, a move is answered at once');
  t.equal(games.waiting(), 3, 'three wait');
  await tick();
  const first = transport.sent.filter((c) => c.t === 'game').map(ridOf);
  t.equal(first.length, 3, 'each sent once');
  clock.advance(4000);
  await tick();
  t.equal(games.waiting(), 3, 'not answered before the deadline');
  const again = transport.sent.filter((c) => c.t === 'game').map(ridOf);
  t.ok(again.length > 3, `sent again while unanswered (${again.length} sends)`);
  t.same([...new Set(again)].sort(), [...first].sort(), 'with the same rids');
  clock.advance(2000);
  t.same(await Promise.all(moves), ['busy', 'busy', 'busy'], 'answered busy at the deadline');
  t.equal(games.waiting(), 0, 'the map behind them is empty');
});

t.test('a control command is sent again until answered, a bounded number of times, and answered once', async (t) => {
  const clock = new ManualClock();
  const { transport, games, started } = standInGames(clock, { maxSends: 4, requestTimeoutMs: 60_000 });
  const made = games.create(spec);
  await tick();
  clock.advance(30_000);
  await tick();
  const creates = transport.sent.filter((c) => c.t === 'create');
  t.equal(creates.length, 4, 'sent at most maxSends times while unanswered');
  t.equal(new Set(creates.map(ridOf)).size, 1, 'always as the same command (one rid)');
  const rid = ridOf(creates[0]);
  const rec = { ...liveRecord('g1'), ply: 0, dice: null, version: 0 };
  transport.reply({ t: 'started', rid, rec }, { t: 'started', rid, rec }, { t: 'done', rid }, { t: 'done', rid });
  const h = await made;
  t.equal(h.id, 'g1');
  t.same(started, ['g1'], 'a repeated announcement and a repeated reply are taken once');
  t.equal(games.waiting(), 0, 'nothing waits');
  clock.advance(60_000);
  await tick();
  t.equal(transport.sent.filter((c) => c.t === 'create').length, 4, 'nothing sent after the answer');
});

t.test('a control command never answered fails at its deadline', async (t) => {
  const clock = new ManualClock();
  const { games } = standInGames(clock, { requestTimeoutMs: 10_000 });
  const made = games.create(spec);
  await tick();
  clock.advance(10_000);
  await t.rejects(made, /did not answer in time/);
  t.equal(games.waiting(), 0);
});

t.test('a lost announcement: main asks the shard for the game once the create is answered; a late one is ignored', async (t) => {
  const clock = new ManualClock();
  const { transport, games, started } = standInGames(clock);
  const made = games.create(spec);
  await tick();
  const rid = ridOf(transport.sent.find((c) => c.t === 'create'));
  transport.reply({ t: 'done', rid });
  const sync = await until(() => transport.sent.find((c): c is Extract<Command, { t: 'sync' }> => c.t === 'sync'), 'the sync');
  t.equal(sync.id, 'g1', 'the game is asked of its shard');
  const rec = { ...liveRecord('g1'), version: 4 };
  transport.reply({ t: 'synced', rid: sync.rid, rec, tree: null, seq: 3 });
  const h = await made;
  t.equal(h.record().version, 4, 'taken at the state the shard has');
  t.same(started, ['g1'], 'announced to the listeners once');
  transport.reply({ t: 'started', rid, rec: { ...rec, version: 0 } });
  t.equal(games.get('g1')!.record().version, 4, 'the late announcement changes nothing');
  t.same(started, ['g1']);
  transport.reply({ t: 'update', id: 'g1', seq: 4, head: { ...rec, version: 5 }, from: 0, hist: [], lines: [], turns: 0 });
  t.equal(games.get('g1')!.record().version, 5, 'updates follow on from the fetched state');
  t.equal(games.waiting(), 0);
});

t.test('updates: a repeat or an old one is ignored, a gap asks the owner for the whole state and closes the streams', async (t) => {
  const clock = new ManualClock();
  const { transport, games, announced } = standInGames(clock);
  const base = liveRecord('g1');
  await announced(base);
  const g = games.get('g1')!;
  const seen: number[] = [];
  let closed = 0;
  g.subscribe({ deliver: (f) => void seen.push(f.v), close: () => closed++ });
  const update = (seq: number, version: number): ShardReply => ({
    t: 'update', id: 'g1', seq, head: { ...base, version }, from: 0, hist: [], lines: [[version, `{"Rejected":{"v":${version},"seat":"White","reason":"not your turn"}}\n`]], turns: 0,
  });
  transport.reply(update(1, 2), update(1, 2), update(2, 3));
  t.same(seen, [2, 3], 'a repeated update is published once');
  transport.reply(update(1, 2));
  t.same(seen, [2, 3], 'an old one is ignored');
  t.equal(g.record().version, 3);
  transport.reply(update(4, 5));
  t.equal(g.record().version, 3, 'an update after a gap is not spliced in');
  t.equal(closed, 1, 'the streams that missed an event end');
  const sync = await until(() => transport.sent.find((c): c is Extract<Command, { t: 'sync' }> => c.t === 'sync'), 'the sync');
  t.equal(sync.id, 'g1', 'the owner is asked for the game');
  transport.reply(update(5, 6));
  t.equal(g.record().version, 3, 'updates wait for the sync');
  // A stream joining while the sync is on its way gets its Snapshot at v3.
  let lateClosed = 0;
  const late: number[] = [];
  late.push(g.subscribe({ deliver: (f) => void late.push(f.v), close: () => lateClosed++ }).snapshot.v);
  transport.reply({ t: 'synced', rid: sync.rid, rec: { ...base, version: 6 }, tree: null, seq: 5 });
  t.equal(g.record().version, 6, 'the whole state adopted');
  t.equal(lateClosed, 1, 'a stream that joined during the sync ends: it would skip from v3 to v7');
  transport.reply(update(6, 7));
  t.equal(g.record().version, 7, 'and the next update applies on top of it');
  t.equal(games.waiting(), 0);
});

/** A shard host on its own, its replies collected. */
function lonelyHost() {
  const clock = new ManualClock();
  const store = new MemoryStore();
  const out: ShardReply[] = [];
  const host = new ShardHost({
    store: { mode: 'shared', games: store }, clock, config: { ...DEFAULT_GAME_CONFIG, seedGraceMs: 60_000 }, log: silentLogger,
    housePlayers: new Map(), statsEveryMs: 0, post: (b) => void out.push(...structuredClone(b)), later: (fn) => setImmediate(fn),
  });
  return { host, store, out, clock };
}

t.test('the owner acts on a repeated command once and answers it with its first reply', async (t) => {
  const { host, store, out } = lonelyHost();
  let puts = 0;
  const put = store.putGame.bind(store);
  store.putGame = (g) => (puts++, put(g));
  const create: Command = { t: 'create', rid: 7, id: 'h1', spec };
  host.receive([create, create]);
  await until(() => (out.some((r) => r.t === 'done') ? true : undefined), 'the create answered');
  await tick();
  t.equal(out.filter((r) => r.t === 'done').length, 1, 'a repeat while it runs is not answered twice');
  t.equal(out.filter((r) => r.t === 'started').length, 1, 'one game announced');
  host.receive([create]);
  await tick();
  t.equal(out.filter((r) => r.t === 'done' && r.rid === 7).length, 2, 'a repeat after it is answered again');
  t.equal(out.filter((r) => r.t === 'started').length, 1, 'and still one game');
  // A create the owner no longer remembers (another rid, the same game) makes no second game.
  const writes = puts;
  host.receive([{ t: 'create', rid: 8, id: 'h1', spec }]);
  await until(() => (out.some((r) => r.t === 'done' && r.rid === 8) ? true : undefined), 'the second create');
  t.equal(puts, writes, 'nothing written for it');
  t.equal(out.filter((r) => r.t === 'started').length, 1, 'no second game');

  const seeds: Command[] = [
    { t: 'game', rid: 9, id: 'h1', name: 'seed', payload: { seat: 'White', seed: 'a'.repeat(32) } },
    { t: 'game', rid: 10, id: 'h1', name: 'resign', payload: { seat: 'Black' } },
  ];
  host.receive([...seeds, ...seeds]);
  await until(() => (out.filter((r) => r.t === 'answer').length >= 2 && store.getGame('h1')!.finishedAt !== null ? true : undefined), 'the answers');
  await tick();
  t.equal(out.filter((r) => r.t === 'answer').length, 2, 'each game command answered once');
  t.equal(store.getGame('h1')!.clientSeeds.white, 'a'.repeat(32), 'the seed taken');
  t.match(store.getGame('h1')!.status, { Ended: { over: { termination: 'Resign' } } }, 'the resignation taken');
  host.receive([{ t: 'game', rid: 11, id: 'h1', name: 'nonsense', payload: {} }]);
  await until(() => out.find((r) => r.t === 'failed' && r.rid === 11), 'an unknown command refused');
});

t.test('a create retried after its game started makes no second game; a lost reply is answered by the repeat', async (t) => {
  const { host, store, out, clock } = lonelyHost();
  const create: Command = { t: 'create', rid: 21, id: 'h2', spec };
  host.receive([create]);
  await until(() => (out.some((r) => r.t === 'done') ? true : undefined), 'the create answered');
  out.length = 0; // its reply lost
  host.receive([{ t: 'game', rid: 22, id: 'h2', name: 'seed', payload: { seat: 'White', seed: 'b'.repeat(32) } }]);
  clock.advance(0);
  await until(() => (out.some((r) => r.t === 'answer') ? true : undefined), 'the seed answered');
  const version = store.getGame('h2')!.version;
  host.receive([create]);
  await until(() => (out.some((r) => r.t === 'done') ? true : undefined), 'the repeat answered');
  t.equal(out.filter((r) => r.t === 'started').length, 0, 'not announced again');
  t.equal(store.getGame('h2')!.version, version, 'the game is as it was');
  t.equal(store.getGame('h2')!.clientSeeds.white, 'b'.repeat(32));
});

t.test('a late sync of a game that ended on the owner gets its whole record back from the compact copy', async (t) => {
  const { host, store, out } = lonelyHost();
  host.receive([{ t: 'create', rid: 31, id: 'h3', spec }]);
  await until(() => (out.some((r) => r.t === 'done') ? true : undefined), 'the create answered');
  host.receive([
    { t: 'game', rid: 32, id: 'h3', name: 'seed', payload: { seat: 'White', seed: 'c'.repeat(32) } },
    { t: 'game', rid: 33, id: 'h3', name: 'resign', payload: { seat: 'White' } },
  ]);
  await until(() => (store.getGame('h3')?.finishedAt != null ? true : undefined), 'the game ended');
  await tick();
  host.receive([{ t: 'sync', rid: 34, id: 'h3' }]);
  const synced = await until(() => out.find((r): r is Extract<ShardReply, { t: 'synced' }> => r.t === 'synced' && r.rid === 34), 'the sync answered');
  t.same(synced.rec, store.getGame('h3'), 'the record as stored, history and all');
  t.match(synced.rec.status, { Ended: { over: { termination: 'Resign' } } });
  t.equal(synced.tree, null, 'no tree for an ended game');
});
