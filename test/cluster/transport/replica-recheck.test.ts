// A node's replicas after a partition (src/cluster/transport/replica-recheck.ts over a node's
// ShardedGames, its shard a stand-in the test answers as the owner). While the node was cut off, the
// owners' `ended` messages (core NATS, at most once) did not reach it: its replicas of those games stay
// live, and nothing later names them, since the games ended under owners that have since handed their
// shards on. The partition test saw this on the node it cut off (every game it lost shown live after
// the heal). A recheck asks each live replica's owner again: an owner's answer is applied; a game its
// owner does not have (it failed the sync) ends here when the cluster's store holds its ending; a game
// neither answered nor ended is asked again after a pause, until it is settled.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { silentLogger } from '../../../src/domain/log.js';
import { SCHEMA_VERSION, type GameRecord } from '../../../src/domain/records.js';
import { DEFAULT_GAME_CONFIG } from '../../../src/game/game-config.js';
import { MemoryStore } from '../../../src/store/memory.js';
import type { Command, ShardReply } from '../../../src/shard/protocol/messages.js';
import { ShardedGames } from '../../../src/shard/main/sharded-games.js';
import { clusterGames } from '../../../src/cluster/transport/cluster-games.js';
import { ReplicaRecheck } from '../../../src/cluster/transport/replica-recheck.js';
import type { ShardEvents, ShardTransport } from '../../../src/shard/protocol/transport.js';
import { tick, until } from '../../helpers/poll.js';

const bot = (id: string) => ({ id, face: { kind: 'Bot' as const, name: `t ${id}` }, participant: { Bot: { team: 't', name: id } } });
const ENDED = { Ended: { result: 'WhiteWins', reason: 'Checkmate' } } as unknown as GameRecord['status'];

const rec = (id: string, version = 1, status: GameRecord['status'] = { Active: {} }): GameRecord => ({
  schema: SCHEMA_VERSION, id, white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false, createdAt: 1,
  serverSeed: '00'.repeat(32), commit: '11'.repeat(32), clientSeeds: { white: null, black: null }, ply: 1,
  fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', activeSeat: 'White', dice: [1, 2, 3],
  clocks: { white: null, black: null } as unknown as GameRecord['clocks'], clockStartedAt: 1, version, history: [],
  status, revealedSeeds: null, finishedAt: null, mirrorOf: null,
});

/** The shard as the node sees it: what the node sends is recorded, the test answers as the owner. */
class StandIn implements ShardTransport {
  events!: ShardEvents;
  sent: Command[][] = [];
  open(_index: number, events: ShardEvents) {
    this.events = events;
    return { send: (batch: Command[]) => void this.sent.push(batch), close: async () => {}, follow: async () => {}, followAll: async () => {} };
  }
  reply(...r: ShardReply[]): void {
    this.events.replies(r);
  }
  syncs(id: string): Extract<Command, { t: 'sync' }>[] {
    return this.sent.flat().filter((c): c is Extract<Command, { t: 'sync' }> => c.t === 'sync' && c.id === id);
  }
}

function node() {
  const transport = new StandIn();
  const clock = new ManualClock();
  const games = new ShardedGames({
    transport, shards: 1, store: new MemoryStore(), forwarded: true, clock, config: DEFAULT_GAME_CONFIG,
    listeners: [], newId: () => 'unused', log: silentLogger,
    cluster: clusterGames({ idleMs: 60_000, max: 10_000 }),
  });
  // The cluster's store: what the test puts there (the endings archived while the node was away).
  const stored = new Map<string, GameRecord>();
  const recheck = new ReplicaRecheck({
    clock, log: silentLogger, retryMs: 1000,
    live: () => games.live().map((g) => g.id),
    ask: (id) => games.feed.recheck(id),
    stored: async (id) => stored.get(id),
    ended: (rec) => games.feed.endedElsewhere(rec),
  });
  return { transport, clock, games, stored, recheck };
}

/** Announces live games to the node as their owner would (a replica of each, not followed). */
function announce(transport: StandIn, ...ids: string[]): void {
  for (const id of ids) transport.reply({ t: 'resumed', rid: 0, rec: rec(id), tree: null, seq: 5 });
}

const active = (games: ShardedGames, id: string): boolean => games.find(id)?.isActive() === true;

t.test('after a partition, replicas of games that ended meanwhile end; live ones take their owner\'s state', async (t) => {
  const { transport, games, stored, recheck } = node();
  announce(transport, 'a', 'b', 'c');
  t.ok(['a', 'b', 'c'].every((id) => active(games, id)), 'three live replicas');
  // The node is cut off: the owners' `ended` messages for a and b never arrive, c moves on.
  // Healed, nothing names a or b again (their owners have handed the shard on): without a recheck they stay live.
  recheck.start('shard lease lost');
  await until(() => ['a', 'b', 'c'].every((id) => transport.syncs(id).length > 0) || undefined, 'each replica is asked of its owner');
  // a: the shard's owner now never had it (it ended under an owner since gone); the store holds its end.
  stored.set('a', rec('a', 9, ENDED));
  transport.reply({ t: 'failed', rid: transport.syncs('a')[0].rid, error: 'game a is not on this shard' });
  // b: its owner still keeps its ending.
  transport.reply({ t: 'synced', rid: transport.syncs('b')[0].rid, rec: rec('b', 7, ENDED), tree: null, seq: 9 });
  // c: live, further on than this replica.
  transport.reply({ t: 'synced', rid: transport.syncs('c')[0].rid, rec: rec('c', 4), tree: null, seq: 8 });
  await until(() => recheck.size === 0 || undefined, 'every replica settled');
  t.notOk(active(games, 'a'), 'a ended: its ending read from the store');
  t.equal(games.find('a')?.record().version, 9, 'at its final version');
  t.notOk(active(games, 'b'), 'b ended: its owner said so');
  t.ok(active(games, 'c'), 'c is still live');
  t.equal(games.find('c')?.record().version, 4, 'at its owner\'s version');
  t.equal(recheck.endings, 1, 'one ending came from the store');
});

t.test('a game neither answered nor ended is asked again after a pause, until settled', async (t) => {
  const { transport, clock, games, stored, recheck } = node();
  announce(transport, 'd');
  recheck.start('shard lease lost');
  await until(() => transport.syncs('d').length > 0 || undefined, 'd is asked of its owner');
  // Still cut off: the transport found no owner; the store (its replica here) still has the game live.
  stored.set('d', rec('d'));
  transport.reply({ t: 'failed', rid: transport.syncs('d')[0].rid, error: 'shard 0: no responders' });
  await until(() => recheck.rounds === 1 || undefined, 'the first round is over');
  t.equal(recheck.size, 1, 'd is still to settle');
  t.ok(active(games, 'd'), 'and its replica is as it was');
  await tick();
  t.equal(transport.syncs('d').length, 1, 'not asked again before the pause');
  clock.advance(1000);
  await until(() => transport.syncs('d').length > 1 || undefined, 'asked again after the pause');
  // Healed: the owner that took the game over answers with its ending.
  transport.reply({ t: 'synced', rid: transport.syncs('d')[1].rid, rec: rec('d', 12, ENDED), tree: null, seq: 20 });
  await until(() => recheck.size === 0 || undefined, 'settled');
  t.notOk(active(games, 'd'), 'd ended');
  clock.advance(60_000);
  await tick();
  t.equal(transport.syncs('d').length, 2, 'nothing more is asked once every replica settled');
  recheck.stop();
});

t.test('a game that ends meanwhile is settled; the pause doubles up to its bound; stop ends the rounds', async (t) => {
  const { transport, clock, games, recheck } = node();
  announce(transport, 'e', 'f');
  recheck.start('NATS connection back');
  await until(() => transport.syncs('f').length > 0 || undefined, 'asked');
  transport.reply({ t: 'failed', rid: transport.syncs('e')[0].rid, error: 'shard 0: no responders' });
  transport.reply({ t: 'failed', rid: transport.syncs('f')[0].rid, error: 'shard 0: no responders' });
  await until(() => recheck.rounds === 1 || undefined, 'first round');
  // e's ending reaches the node by the ordinary way (its owner's `ended`): nothing more to ask of e.
  transport.reply({ t: 'ended', rec: rec('e', 3, ENDED) });
  t.notOk(active(games, 'e'), 'e ended');
  clock.advance(1000);
  await until(() => transport.syncs('f').length === 2 || undefined, 'f asked again after 1 s');
  t.equal(transport.syncs('e').length, 1, 'e, ended, is not asked again');
  transport.reply({ t: 'failed', rid: transport.syncs('f')[1].rid, error: 'shard 0: no responders' });
  await until(() => recheck.rounds === 2 || undefined, 'second round');
  clock.advance(1000);
  await tick();
  t.equal(transport.syncs('f').length, 2, 'the next pause is longer (2 s)');
  clock.advance(1000);
  await until(() => transport.syncs('f').length === 3 || undefined, 'f asked a third time after 2 s');
  transport.reply({ t: 'failed', rid: transport.syncs('f')[2].rid, error: 'shard 0: no responders' });
  await until(() => recheck.rounds === 3 || undefined, 'third round');
  recheck.stop();
  clock.advance(120_000);
  await tick();
  t.equal(transport.syncs('f').length, 3, 'stopped: no more rounds');
});
