// The owner's side sends a game's updates only to the nodes that follow it (they tell it with their
// command batches), each node's in one message per host batch on its own subject, in the host's order
// around what every node hears; this node's own share is handed over locally, never published. A fake
// NATS connection stands in for the servers (the real cluster: test/server/cluster/node-follow.test.ts).
import t from 'tap';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { ManualClock } from '../../../src/domain/clock.js';
import { silentLogger } from '../../../src/domain/log.js';
import { OwnedShards } from '../../../src/cluster/coordination/owned-shards.js';
import { decodeReplies, encodeCommands, type FollowChange } from '../../../src/cluster/transport/nats-transport.js';
import type { Command, ShardReply } from '../../../src/shard/protocol/messages.js';

const flush = async (turns = 10) => {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
};

t.test('one message per following node per host batch, in order, and only to the nodes that follow the game', async (t) => {
  const callbacks = new Map<string, (err: Error | null, m: Msg) => void>();
  const published: { subject: string; kinds: string[]; to: string[]; from?: string }[] = [];
  const nc = {
    subscribe: (subject: string, o: { callback: (err: Error | null, m: Msg) => void }) => {
      callbacks.set(subject, o.callback);
      return { drain: async () => {}, unsubscribe: () => {} };
    },
    publish: (subject: string, data: Uint8Array, o?: { headers?: { get(k: string): string } }) => {
      const w = decodeReplies(data);
      published.push({ subject, kinds: w.r.map((r) => (r.t === 'update' ? `${r.id}@${r.seq}` : r.t)), to: w.to, from: o?.headers?.get('Dc-From') });
    },
  } as unknown as NatsConnection;
  let post: (b: ShardReply[]) => void = () => {};
  const local: string[][] = [];
  const hosts = new OwnedShards({
    nc, clock: new ManualClock(), log: silentLogger, node: 'a',
    leaseHeld: () => true,
    local: { deliver: (_s, r) => void local.push(r.map((x) => (x.t === 'update' ? `${x.id}@${x.seq}` : x.t))) },
    open: async (_shard, p) => {
      post = p;
      // The host answers its owner's stop, and nothing else here.
      const receive = (batch: Command[]) => {
        for (const c of batch) if (c.t === 'stop') queueMicrotask(() => post([{ t: 'done', rid: c.rid }]));
      };
      return { receive, live: [], close: async () => {} };
    },
  });
  hosts.gained(0);
  await flush();
  t.same(hosts.serving(), [0], 'shard 0 served');
  const tell = (node: string, f: FollowChange[]) =>
    callbacks.get('dc.shard.0')!(null, { data: encodeCommands({ n: node, c: [], f }), headers: undefined, respond: () => true } as unknown as Msg);
  tell('y', [['g1', true], ['g2', true], ['g3', true]]);
  tell('z', [['g2', true]]);
  await flush();

  const update = (id: string, seq: number, ended = false): ShardReply =>
    ({ t: 'update', id, seq, head: { status: ended ? { Ended: {} } : { Active: {} } }, from: 0, hist: [], tree: null, lines: [], turns: 0 }) as unknown as ShardReply;
  // One host batch: four updates of three games.
  post([update('g1', 1), update('g2', 1), update('g3', 1), update('g1', 2), update('g9', 1)]);
  t.same(published, [
    { subject: 'dc.node.y.0', kinds: ['g1@1', 'g2@1', 'g3@1', 'g1@2'], to: ['y', 'y', 'y', 'y'], from: 'a' },
    { subject: 'dc.node.z.0', kinds: ['g2@1'], to: ['z'], from: 'a' },
  ], "one message for each follower with its games' updates in the host's order; none for a game nobody follows");
  t.same(local, [['g1@1', 'g2@1', 'g3@1', 'g1@2', 'g9@1']], 'the owner itself takes every update locally, in one delivery');

  // Around an announcement every node hears, each node's messages keep the host's order.
  published.length = 0;
  post([update('g1', 3, true), { t: 'ended', rec: { id: 'g1' } } as unknown as ShardReply, update('g2', 2)]);
  t.same(published.map((p) => `${p.subject}: ${p.kinds.join(',')}`), [
    'dc.node.y.0: g1@3',
    'dc.out.0: ended',
    'dc.node.y.0: g2@2',
    'dc.node.z.0: g2@2',
  ], "a game's final update goes before its ending, the next update after it");

  // An ended game has no followers; a node that stops following gets nothing more of the game.
  published.length = 0;
  tell('y', [['g3', false]]);
  await flush();
  post([update('g1', 4), update('g3', 2)]);
  t.same(published, [], 'nothing for an ended game, nor for a game no longer followed');
  await hosts.stopAll();
});
