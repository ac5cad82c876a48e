// What an owner keeps of the requests other nodes send its shards (OwnedShards), on a ManualClock with
// a stand-in for the NATS connection that hands batches in and collects what is published: an
// answered request leaves the waiting map at once, its sender's id stays mapped only for the dedup
// window (a resend within it still gets the host's remembered reply, not a second action), and after
// the window nothing of it is left, however many requests were answered.
import t from 'tap';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { ManualClock } from '../../../src/domain/clock.js';
import { silentLogger } from '../../../src/domain/log.js';
import { OwnedShards, type HostedShard } from '../../../src/cluster/coordination/owned-shards.js';
import { decodeReplies, encodeCommands } from '../../../src/cluster/transport/nats-transport.js';
import type { Command, ShardReply } from '../../../src/shard/protocol/messages.js';

const flush = async (turns = 10) => {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
};

function setup(dedupMs = 60_000) {
  const clock = new ManualClock();
  const handlers = new Map<string, (err: Error | null, m: Msg) => void>();
  const published: { subject: string; r: ShardReply[] }[] = [];
  const nc = {
    subscribe: (subject: string, o: { callback: (err: Error | null, m: Msg) => void }) => {
      handlers.set(subject, o.callback);
      return { drain: async () => void handlers.delete(subject), unsubscribe: () => void handlers.delete(subject) };
    },
    publish: (subject: string, data: Uint8Array) => void published.push({ subject, r: decodeReplies(data).r }),
  } as unknown as NatsConnection;
  /** Rids the host acted on (a repeat of a rid it knows is answered from its memory instead). */
  const acted: number[] = [];
  const hosts = new OwnedShards({
    nc,
    clock,
    log: silentLogger,
    node: 'owner',
    dedupMs,
    leaseHeld: () => true,
    open: async (_shard, post) => {
      const replies = new Map<number, ShardReply>();
      const hosted: HostedShard = {
        receive: (batch: Command[]) => {
          const out: ShardReply[] = [];
          for (const c of batch) {
            if (!('rid' in c)) continue;
            let r = replies.get(c.rid);
            if (!r) {
              if (c.t !== 'stop') acted.push(c.rid);
              r = { t: 'done', rid: c.rid };
              replies.set(c.rid, r);
            }
            out.push(r);
          }
          if (out.length > 0) queueMicrotask(() => post(out));
        },
        live: [],
        close: async () => {},
      };
      return hosted;
    },
  });
  /** Node `from` sends shard 0 commands with its own rids (a batch of its own, as a ShardClient does). */
  const send = (from: string, rids: number[]): void => {
    const c: Command[] = rids.map((rid) => ({ t: 'sync', rid, id: `g${rid}` }) as Command);
    const m = { data: encodeCommands({ n: from, c }), headers: undefined, respond: () => true } as unknown as Msg;
    handlers.get('dc.shard.0')!(null, m);
  };
  return { clock, hosts, acted, published, send };
}

t.test('answered requests leave the waiting map; their ids go after the dedup window', async (t) => {
  const { clock, hosts, acted, published, send } = setup();
  hosts.gained(0);
  await flush();
  t.same(hosts.serving(), [0]);
  const rids = Array.from({ length: 2000 }, (_, i) => i + 1);
  for (let i = 0; i < rids.length; i += 100) send('x', rids.slice(i, i + 100));
  await flush();
  t.equal(acted.length, 2000, 'the host acted on each request once');
  const answered = published.filter((p) => p.subject === 'dc.node.x.0').flatMap((p) => p.r.map((r) => ('rid' in r ? r.rid : -1)));
  t.same(answered.sort((a, b) => a - b), rids, 'each answered under its sender\'s id');
  t.same(hosts.remembered(), { waiting: 0, mapped: 2000 }, 'nothing waits; the ids stay mapped for a resend');

  clock.advance(59_000);
  t.equal(hosts.remembered().mapped, 2000, 'still within the window');
  clock.advance(1_000);
  t.same(hosts.remembered(), { waiting: 0, mapped: 0 }, 'after the window nothing of them is left');
  await hosts.stopAll();
});

t.test('a resend after the answer, within the window, gets the remembered reply, not a second action', async (t) => {
  const { clock, hosts, acted, published, send } = setup();
  hosts.gained(0);
  await flush();
  send('x', [7]);
  await flush();
  t.equal(acted.length, 1);
  clock.advance(30_000);
  send('x', [7]); // the answer was lost: the sender sends the same request again
  await flush();
  t.equal(acted.length, 1, 'the host did not act again');
  const toX = published.filter((p) => p.subject === 'dc.node.x.0').flatMap((p) => p.r);
  t.equal(toX.length, 2, 'the resend is answered too');
  t.same(toX.map((r) => ('rid' in r ? r.rid : -1)), [7, 7], 'under the sender\'s id');
  t.same(hosts.remembered(), { waiting: 0, mapped: 1 }, 'answered again, nothing waits');
  // The same id from another node is another request.
  send('y', [7]);
  await flush();
  t.equal(acted.length, 2, 'ids are per sending node');
  await hosts.stopAll();
});

t.test('requests still unanswered wait; a stopped host answers them failed and forgets them', async (t) => {
  const clock = new ManualClock();
  const handlers = new Map<string, (err: Error | null, m: Msg) => void>();
  const published: { subject: string; r: ShardReply[] }[] = [];
  const nc = {
    subscribe: (subject: string, o: { callback: (err: Error | null, m: Msg) => void }) => {
      handlers.set(subject, o.callback);
      return { drain: async () => {}, unsubscribe: () => {} };
    },
    publish: (subject: string, data: Uint8Array) => void published.push({ subject, r: decodeReplies(data).r }),
  } as unknown as NatsConnection;
  const hosts = new OwnedShards({
    nc,
    clock,
    log: silentLogger,
    leaseHeld: () => true,
    open: async (_shard, post) => ({
      // Answers only its owner's stop: every other request stays unanswered.
      receive: (batch: Command[]) => {
        const out = batch.filter((c) => c.t === 'stop').map((c) => ({ t: 'done', rid: (c as { rid: number }).rid }) as ShardReply);
        if (out.length > 0) queueMicrotask(() => post(out));
      },
      live: [],
      close: async () => {},
    }),
  });
  hosts.gained(0);
  await flush();
  const c: Command[] = [1, 2, 3].map((rid) => ({ t: 'sync', rid, id: `g${rid}` }) as Command);
  handlers.get('dc.shard.0')!(null, { data: encodeCommands({ n: 'x', c }), headers: undefined, respond: () => true } as unknown as Msg);
  await flush();
  t.same(hosts.remembered(), { waiting: 3, mapped: 3 });
  await hosts.stop(0);
  t.same(hosts.remembered(), { waiting: 0, mapped: 0 });
  const failed = published.filter((p) => p.subject === 'dc.node.x.0').flatMap((p) => p.r);
  t.same(failed.map((r) => r.t), ['failed', 'failed', 'failed']);
});
