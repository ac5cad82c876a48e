// A legal-move tree over NATS's message limit (1 MiB by default) reaches a node that does not own the
// game, whole and identical. A real nats-server with its default max_payload; the owner's side is
// OwnedShards with a stand-in host that answers a `sync` with a 10 MB tree and posts an `update`
// carrying another; the reader is another connection's NatsShardTransport, as a node that does not
// own the shard has it. Before replies were sent in parts, the owner's publish was refused
// (MAX_PAYLOAD_EXCEEDED, logged) and the reader never got either reply. The assembler's bounds are
// checked on their own below.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { systemClock } from '../../../src/domain/clock.js';
import { silentLogger } from '../../../src/domain/log.js';
import type { GameRecord } from '../../../src/domain/records.js';
import { OwnedShards } from '../../../src/cluster/coordination/owned-shards.js';
import { NatsShardTransport } from '../../../src/cluster/transport/nats-transport.js';
import { PART_HEADER, PartsAssembler } from '../../../src/cluster/transport/reply-parts.js';
import type { ShardReply, TreeWire } from '../../../src/shard/protocol/messages.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';

const MB = 1024 * 1024;

/** A tree's JSON text of about `bytes` bytes (distinct content, so a misplaced part shows). */
function bigTree(bytes: number): Uint8Array {
  const keys = randomBytes(bytes / 2).toString('hex');
  const text = `{"${keys.slice(0, bytes - 8)}":{}}`;
  return new TextEncoder().encode(text);
}

t.test('a 10 MB tree reaches a node that does not own the game, whole and identical', async (t) => {
  const nats = await startNatsCluster({ size: 1, name: 'dc-bigtree' });
  const conns: NatsConnection[] = [];
  t.teardown(async () => {
    for (const c of conns) await c.close().catch(() => {});
    await nats.stop();
  });
  const ownerNc = await connect({ servers: nats.urls });
  const readerNc = await connect({ servers: nats.urls });
  conns.push(ownerNc, readerNc);
  t.ok((ownerNc.info?.max_payload ?? 0) <= MB, `the server's limit is ${ownerNc.info?.max_payload} bytes`);

  const synced = bigTree(10 * MB);
  const updated = bigTree(12 * MB);
  const rec = { id: 'g1', version: 4 } as unknown as GameRecord;
  let post: (batch: ShardReply[]) => void = () => {};
  const owner = new OwnedShards({
    nc: ownerNc,
    clock: systemClock,
    log: silentLogger,
    leaseHeld: () => true,
    open: async (_shard, p) => {
      post = p;
      return {
        receive: (batch) => {
          const out: ShardReply[] = [];
          for (const c of batch) {
            if (c.t === 'sync') out.push({ t: 'synced', rid: c.rid, rec, tree: { dfen: 'x', leaves: 999_999, text: synced }, seq: 7 });
            else if ('rid' in c) out.push({ t: 'done', rid: c.rid });
          }
          if (out.length > 0) setImmediate(() => post(out));
        },
        live: [],
        close: async () => {},
      };
    },
  });
  t.teardown(() => owner.stopAll());
  owner.gained(0);
  t.ok(await eventually(() => owner.serving().includes(0)), 'the owner serves shard 0');

  const got: ShardReply[] = [];
  const reader = new NatsShardTransport({ nc: readerNc, node: 'reader', clock: systemClock, deadlineMs: 10_000 });
  const channel = reader.open(0, { replies: (rs: ShardReply[]) => void got.push(...rs), died: () => {} });
  t.teardown(() => channel.close());
  await channel.follow!('g1', true);

  // The tree as a `sync` answers it (on the shard's subject, for this node).
  channel.send([{ t: 'sync', rid: 41, id: 'g1' }]);
  t.ok(await eventually(() => got.some((r) => r.t === 'synced'), 30_000), 'the sync is answered');
  const s = got.find((r) => r.t === 'synced') as Extract<ShardReply, { t: 'synced' }>;
  t.equal(s.rid, 41, 'under the reader\'s own request id');
  t.equal(s.tree?.text?.byteLength, synced.byteLength, `all ${synced.byteLength} bytes`);
  t.ok(Buffer.from(s.tree!.text!).equals(Buffer.from(synced)), 'identical');

  // The tree as a new roll's update carries it (on the game's own subject).
  post([{ t: 'update', id: 'g1', seq: 8, head: {} as never, from: 0, hist: [], tree: { dfen: 'y', leaves: 2_000_000, text: updated }, lines: [], turns: 0 }]);
  t.ok(await eventually(() => got.some((r) => r.t === 'update'), 30_000), 'the update arrives');
  const u = got.find((r) => r.t === 'update') as Extract<ShardReply, { t: 'update' }>;
  const tree = u.tree as TreeWire;
  t.equal(tree.text?.byteLength, updated.byteLength, `all ${updated.byteLength} bytes`);
  t.ok(Buffer.from(tree.text!).equals(Buffer.from(updated)), 'identical');
});

const part = (id: string, i: number, n: number, total: number) => {
  const h = headers();
  h.set(PART_HEADER, `${id} ${i} ${n} ${total}`);
  return h;
};

t.test('the assembler: order, duplicates, and its bounds on size, memory and time', async (t) => {
  let now = 0;
  const dropped: string[] = [];
  const a = new PartsAssembler({ maxBytes: 100, maxPendingBytes: 150, timeoutMs: 1000, now: () => now, onDrop: (w) => dropped.push(w) });
  const bytes = Uint8Array.from({ length: 90 }, (_, i) => i);
  const cut = [bytes.subarray(0, 40), bytes.subarray(40, 80), bytes.subarray(80)];
  t.equal(a.take('s', bytes, undefined), bytes, 'a whole message passes through');
  t.equal(a.take('s', cut[2], part('m', 2, 3, 90)), undefined, 'parts in any order');
  t.equal(a.take('s', cut[0], part('m', 0, 3, 90)), undefined);
  t.equal(a.take('s', cut[0], part('m', 0, 3, 90)), undefined, 'a duplicate is ignored');
  t.same(a.take('s', cut[1], part('m', 1, 3, 90)), bytes, 'complete: the message, identical');
  t.equal(a.assembling, 0, 'nothing left');

  t.equal(a.take('s', cut[0], part('big', 0, 3, 101)), undefined, 'over maxBytes');
  t.equal(a.assembling, 0, 'refused, nothing kept');

  a.take('s', cut[0], part('p', 0, 3, 90));
  a.take('s', cut[0], part('q', 0, 3, 90));
  t.equal(a.assembling, 1, 'two 90-byte messages do not fit a 150-byte budget: the older went');
  t.match(dropped, ['a message of 101 bytes, over 100', 'the assembly budget was full']);

  now += 1000;
  a.take('s', bytes.subarray(0, 10), part('r', 0, 2, 20));
  t.equal(a.assembling, 1, 'the one not complete in time is dropped');
  t.equal(dropped.at(-1), 'a message whose parts did not all come in time');

  t.equal(a.take('s', cut[0], part('x', 3, 3, 90)), undefined, 'an index past the count');
  t.equal(dropped.at(-1), 'a malformed part header');
  t.equal(a.take('t', bytes.subarray(0, 10), part('r', 1, 2, 20)), undefined, 'another subscription assembles apart');
  t.same(a.take('s', bytes.subarray(10, 20), part('r', 1, 2, 20)), bytes.subarray(0, 20));
});
