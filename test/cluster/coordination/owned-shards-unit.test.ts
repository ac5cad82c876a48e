// The owner's side of the shards (OwnedShards) on a ManualClock, with fake shard hosts and a stand-in
// for the NATS connection: a shard won back while its old host is still stopping opens only once the
// old store is closed (one store per shard at a time), a second stop waits for the first, and a store
// fenced while the lease is still held is opened again from the log. The real-cluster behaviour is in
// the node-* tests.
import t from 'tap';
import type { NatsConnection } from '@nats-io/transport-node';
import { ManualClock } from '../../../src/domain/clock.js';
import { silentLogger } from '../../../src/domain/log.js';
import { OwnedShards, type HostedShard } from '../../../src/cluster/coordination/owned-shards.js';
import type { Command, ShardReply } from '../../../src/shard/protocol/messages.js';

const flush = async (turns = 10) => {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
};

/** Enough of a connection for OwnedShards: subscriptions that drain at once, publishes dropped. */
const fakeNc = {
  subscribe: () => ({ drain: async () => {}, unsubscribe: () => {} }),
  publish: () => {},
} as unknown as NatsConnection;

interface Opened {
  shard: number;
  fenced: () => void;
  /** Resolves the store's close (each close waits for it). */
  finishClose: () => void;
}

function setup() {
  const clock = new ManualClock();
  const events: string[] = [];
  const opened: Opened[] = [];
  const held = new Set<number>();
  const hosts = new OwnedShards({
    nc: fakeNc,
    clock,
    log: silentLogger,
    leaseHeld: (s) => held.has(s),
    open: async (shard, post, fenced) => {
      const n = opened.length;
      events.push(`open ${shard}#${n}`);
      let finishClose = (): void => {};
      const closing = new Promise<void>((r) => (finishClose = r));
      opened.push({ shard, fenced, finishClose });
      const hosted: HostedShard = {
        // The host answers its owner's stop at once.
        receive: (batch: Command[]) => {
          const replies: ShardReply[] = [];
          for (const c of batch) if (c.t === 'stop') replies.push({ t: 'done', rid: c.rid });
          if (replies.length > 0) queueMicrotask(() => post(replies));
        },
        live: [],
        close: async () => {
          events.push(`closing ${shard}#${n}`);
          await closing;
          events.push(`closed ${shard}#${n}`);
        },
      };
      return hosted;
    },
  });
  return { clock, events, opened, held, hosts };
}

t.test('a shard won back while its old host stops opens after the old store is closed', async (t) => {
  const { events, opened, held, hosts } = setup();
  held.add(1);
  hosts.gained(1);
  await flush();
  t.same(hosts.serving(), [1]);
  // The lease is lost for a moment (onLost: stop, not awaited), then won back (gained).
  const stopping = hosts.stop(1);
  await flush();
  hosts.gained(1);
  await flush();
  t.same(events, ['open 1#0', 'closing 1#0'], 'the new host waits while the old store closes');
  t.same(hosts.serving(), [], 'and nothing serves the shard meanwhile');
  opened[0].finishClose();
  await stopping;
  await flush();
  t.same(events, ['open 1#0', 'closing 1#0', 'closed 1#0', 'open 1#1'], 'then it opens');
  t.same(hosts.serving(), [1]);
});

t.test('a stop asked while another is under way waits for it (a drain after a loss)', async (t) => {
  const { events, opened, held, hosts } = setup();
  held.add(2);
  hosts.gained(2);
  await flush();
  const first = hosts.stop(2);
  await flush();
  let secondDone = false;
  const second = hosts.stop(2).then(() => (secondDone = true));
  await flush();
  t.notOk(secondDone, 'the second stop is not done before the store is closed');
  opened[0].finishClose();
  await Promise.all([first, second]);
  t.ok(secondDone);
  t.same(events, ['open 2#0', 'closing 2#0', 'closed 2#0']);
});

t.test('a store fenced while the lease is held is opened again; not once the lease is gone', async (t) => {
  const { clock, events, opened, held, hosts } = setup();
  held.add(3);
  hosts.gained(3);
  await flush();
  opened[0].fenced();
  await flush();
  opened[0].finishClose();
  await flush();
  t.same(hosts.serving(), [], 'stopped at once');
  clock.advance(250);
  await flush();
  t.same(events, ['open 3#0', 'closing 3#0', 'closed 3#0', 'open 3#1'], 'taken over again after a pause');
  t.same(hosts.serving(), [3]);

  // The same with the lease gone: no new host.
  held.delete(3);
  opened[1].fenced();
  await flush();
  opened[1].finishClose();
  await flush();
  clock.advance(10_000);
  await flush();
  t.equal(opened.length, 2, 'no third host');
  t.same(hosts.serving(), []);
});
