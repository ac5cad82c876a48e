// Cluster mode: a game the cluster lists as live but that a node has no replica of yet (after a
// whole-cluster restart, its shard waits for the dead owner's lease to run out) is not unknown. Its
// reads wait for the owner's answer (ShardedGames.ready) and, while it cannot be had, the node says
// it is awaited (the routes answer 503, not 404); a game nobody listed stays unknown. A node that
// answered 404 there sent the bots of node-restart away from live games, which then never ended.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/domain/log.js';
import { SCHEMA_VERSION, type GameRecord } from '../../src/domain/records.js';
import { DEFAULT_GAME_CONFIG } from '../../src/game/game-config.js';
import { MemoryStore } from '../../src/store/memory.js';
import { headOf, type Command, type ShardReply } from '../../src/shard/protocol/messages.js';
import { AWAITED_MS } from '../../src/shard/main/replica-feed.js';
import { ShardedGames } from '../../src/shard/main/sharded-games.js';
import { clusterGames } from '../../src/cluster/transport/cluster-games.js';
import type { ShardEvents, ShardTransport } from '../../src/shard/protocol/transport.js';
import { tick, until } from '../helpers/poll.js';

const bot = (id: string) => ({ id, face: { kind: 'Bot' as const, name: `t ${id}` }, participant: { Bot: { team: 't', name: id } } });

const rec = (id: string, status: GameRecord['status'] = { Active: {} }): GameRecord => ({
  schema: SCHEMA_VERSION, id, white: bot('w'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false, createdAt: 1,
  serverSeed: '00'.repeat(32), commit: '11'.repeat(32), clientSeeds: { white: null, black: null }, ply: 1,
  fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', activeSeat: 'White', dice: [1, 2, 3],
  clocks: { white: null, black: null } as unknown as GameRecord['clocks'], clockStartedAt: 1, version: 1, history: [],
  status, revealedSeeds: null, finishedAt: null, mirrorOf: null,
});

/** A cluster's shard as a node sees it: what the node sends is recorded, the test answers as the owner. */
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
  return { transport, clock, games };
}

/** Whether a promise has settled by the next few event-loop turns. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await tick();
  return done;
}

t.test('a listed game with no replica yet is waited for, then served; an unlisted one stays unknown', async (t) => {
  const { transport, games } = node();
  // At start the node lists the cluster's live games (ClusterNode.start); the shard has no owner yet.
  games.requestGame('g1', 0);
  await until(() => transport.syncs('g1').length > 0 || undefined, 'the owner is asked for g1');
  t.equal(games.find('g1'), undefined, 'no replica yet');
  t.ok(games.awaiting('g1'), 'but the game is awaited: a route answers 503, not 404');
  const read = games.ready('g1');
  t.ok(read instanceof Promise, 'a read of it waits');
  t.notOk(await settled(read!), 'while the shard has no owner');
  t.equal(games.ready('nope'), undefined, 'a game nobody listed is not waited for');
  t.notOk(games.awaiting('nope'), 'and is unknown (404)');

  // The shard's new owner takes it over and announces the game to every node.
  transport.reply({ t: 'resumed', rid: 0, rec: rec('g1'), tree: null, seq: 7 });
  t.ok(await settled(read!), 'the waiting read goes on once the game is announced');
  t.ok(games.find('g1')?.isActive(), 'and finds the live game');
  t.notOk(games.awaiting('g1'), 'no longer awaited');
});

t.test('an owner that cannot be reached: the read goes on, the game stays awaited until named no more', async (t) => {
  const { transport, clock, games } = node();
  games.requestGame('g2', 0);
  await until(() => transport.syncs('g2').length > 0 || undefined, 'the owner is asked for g2');
  const read = games.ready('g2')!;
  const ask = transport.syncs('g2')[0];
  // The transport gave up reaching an owner (no node served the shard in time).
  transport.reply({ t: 'failed', rid: ask.rid, error: 'shard 0: no owner' });
  t.ok(await settled(read), 'the read goes on');
  t.equal(games.find('g2'), undefined, 'without a replica');
  t.ok(games.awaiting('g2'), 'the game is still live for the cluster: 503, retry');
  // The next read asks the owner again.
  const again = games.ready('g2');
  t.ok(again instanceof Promise, 'a later read waits again');
  await until(() => transport.syncs('g2').length > 1 || undefined, 'the owner is asked again');
  const second = transport.syncs('g2')[1];
  transport.reply({ t: 'synced', rid: second.rid, rec: rec('g2'), tree: null, seq: 3 });
  await again;
  t.ok(games.find('g2')?.isActive(), 'its answer makes the replica');
  t.notOk(games.awaiting('g2'), 'no longer awaited');

  // A game named once and never again (its key was dropped: it never had a version) lapses.
  games.requestGame('g3', 0);
  await until(() => transport.syncs('g3').length > 0 || undefined, 'the owner is asked for g3');
  transport.reply({ t: 'failed', rid: transport.syncs('g3')[0].rid, error: 'game g3 is not on this shard' });
  await tick();
  t.ok(games.awaiting('g3'), 'awaited at first');
  clock.advance(AWAITED_MS);
  t.notOk(games.awaiting('g3'), `unknown once not named for ${AWAITED_MS} ms`);
  t.equal(games.ready('g3'), undefined, 'and no longer waited for');
});

t.test('a game that ended meanwhile is no longer awaited', async (t) => {
  const { transport, games } = node();
  games.requestGame('g4', 0);
  games.requestGame('g5', 0);
  await until(() => transport.syncs('g5').length > 0 || undefined, 'the owner is asked');
  transport.reply({ t: 'ended', rec: { ...rec('g4', { Ended: {} } as unknown as GameRecord['status']), version: 9 } });
  t.notOk(games.awaiting('g4'), 'its final record ends the wait');
  transport.reply({ t: 'heads', seqs: [['g5', 4, 1]] });
  t.notOk(games.awaiting('g5'), 'so does its owner naming it ended');
});

// A bot told of a roll by the owner (its webhook) may fetch the roll's tree from another node, whose
// replica can be an update behind: the tree read waits until the replica shows the owner's version.
t.test('a tree read on a node that does not own the game waits for the owner\'s version', async (t) => {
  const { transport, clock, games } = node();
  const at = (version: number): GameRecord => ({ ...rec('g6'), version });
  games.requestGame('g6', 0);
  await until(() => transport.syncs('g6').length > 0 || undefined, 'the owner is asked for g6');
  transport.reply({ t: 'synced', rid: transport.syncs('g6')[0].rid, rec: at(1), tree: null, seq: 1 });
  // Read once, so this node follows the game (its updates are applied here from now on).
  const follow = games.ready('g6');
  if (follow) {
    await until(() => transport.syncs('g6').length > 1 || undefined, 'the follow catches up');
    transport.reply({ t: 'synced', rid: transport.syncs('g6')[1].rid, rec: at(1), tree: null, seq: 1 });
    await follow;
  }
  const asked = (): number => transport.syncs('g6').length;

  // The owner is at seq 2 (version 2); its update is still on its way here.
  let before = asked();
  const read = games.current('g6');
  t.ok(read instanceof Promise, 'the read of a game owned elsewhere waits');
  await until(() => asked() > before || undefined, 'the owner is asked how far the game is');
  transport.reply({ t: 'synced', rid: transport.syncs('g6')[before].rid, rec: at(2), tree: null, seq: 2 });
  t.notOk(await settled(read!), 'while the replica is behind the owner');
  t.equal(games.find('g6')!.record().version, 1, 'the owner\'s answer is not applied (streams here stay open)');
  transport.reply({ t: 'update', id: 'g6', seq: 2, head: headOf(at(2)), from: 0, hist: [], lines: [], turns: 0 });
  t.ok(await settled(read!), 'the update that brings the owner\'s version lets it go on');
  t.equal(games.find('g6')!.record().version, 2, 'at the owner\'s version');

  // Current already: the read goes on as soon as the owner answers.
  before = asked();
  const again = games.current('g6')!;
  await until(() => asked() > before || undefined, 'asked again');
  transport.reply({ t: 'synced', rid: transport.syncs('g6')[before].rid, rec: at(2), tree: null, seq: 2 });
  t.ok(await settled(again), 'a current replica is read at once');

  // An update that never comes: the read goes on after the sync's deadline, as the replica is.
  before = asked();
  const lost = games.current('g6')!;
  await until(() => asked() > before || undefined, 'asked once more');
  transport.reply({ t: 'synced', rid: transport.syncs('g6')[before].rid, rec: at(3), tree: null, seq: 3 });
  t.notOk(await settled(lost), 'waits for the update');
  clock.advance(60_000);
  t.ok(await settled(lost), 'not for ever');

  // The owner itself reads its own replica, which is the game.
  await games.followShard(0, true);
  t.equal(games.current('g6'), undefined, 'an owned game is read at once');
});
