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
import type { Command, ShardReply } from '../../src/shard/protocol.js';
import { AWAITED_MS } from '../../src/shard/replica-feed.js';
import { ShardedGames } from '../../src/shard/sharded-games.js';
import type { ShardEvents, ShardTransport } from '../../src/shard/transport.js';
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
    listeners: [], newId: () => 'unused', log: silentLogger, adoptUnknown: true,
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
  games.adopt('g1', 0);
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
  games.adopt('g2', 0);
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
  games.adopt('g3', 0);
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
  games.adopt('g4', 0);
  games.adopt('g5', 0);
  await until(() => transport.syncs('g5').length > 0 || undefined, 'the owner is asked');
  transport.reply({ t: 'ended', rec: { ...rec('g4', { Ended: {} } as unknown as GameRecord['status']), version: 9 } });
  t.notOk(games.awaiting('g4'), 'its final record ends the wait');
  transport.reply({ t: 'heads', seqs: [['g5', 4, 1]] });
  t.notOk(games.awaiting('g5'), 'so does its owner naming it ended');
});
