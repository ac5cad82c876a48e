// The secured server configuration (src/cluster/security/nats-conf.ts, as `make cluster` writes it)
// against a real nats-server with JetStream (one server): no client gets in without credentials; the
// `monitor` user reads account and stream information but cannot publish on the nodes' subjects,
// write a bucket (a forged token), read a secret bucket's values (by get, consumer, subscription or
// the nodes' inboxes), nor delete a stream; the `node` user cannot delete a stream either.
// Before this change the cluster ran with no authorisation at all: the first test's anonymous
// connection was accepted (and everything below was open to it).
import t from 'tap';
import { connect, nkeyAuthenticator, nkeys, type NatsConnection, type Msg } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { openBucket } from '../../../src/cluster/transport/nats.js';
import { ResultsQueue } from '../../../src/cluster/store/results.js';
import { startSecureNats } from '../../helpers/nats-secure.js';

const nats = await startSecureNats({ name: 'dc-perm' });
const opened: NatsConnection[] = [];
t.teardown(async () => {
  for (const c of opened) await c.close().catch(() => {});
  await nats.stop();
});
const node = await nats.connectNode();
const monitor = await nats.connectMonitor();
opened.push(node, monitor);
const enc = new TextEncoder();

const bots = await openBucket(node, { bucket: 'dc_bots', replicas: 1 });
const tokens = await openBucket(node, { bucket: 'dc-tokens', replicas: 1, ttlMs: 3_600_000 });
await bots.put('bot.probe', enc.encode('{"webhookSecret":"s3cret"}'));

/** Messages a subscription got, by callback (a permission error ends it; that counts as nothing heard). */
function collect(nc: NatsConnection, subject: string): Msg[] {
  const got: Msg[] = [];
  nc.subscribe(subject, { callback: (err, m) => void (err === null && got.push(m)) });
  return got;
}

t.test('a client without credentials, or with wrong ones, is refused', async (t) => {
  const base = { servers: nats.urls, reconnect: false, timeout: 3000 };
  await t.rejects(connect(base), /authorization/i, 'anonymous');
  await t.rejects(connect({ ...base, authenticator: nkeyAuthenticator(nkeys.createUser().getSeed()) }), /authorization/i, 'an unknown nkey');
  await t.rejects(connect({ ...base, user: 'monitor', pass: 'wrong' }), /authorization/i, 'a wrong password');
});

t.test('the monitor reads account and stream information', async (t) => {
  const jsm = await jetstreamManager(monitor, { timeout: 3000 });
  t.ok((await jsm.getAccountInfo()).streams >= 2, 'account information');
  const info = await jsm.streams.info('KV_dc_bots');
  t.equal(info.state.messages, 1, 'stream information (message count) of dc_bots');
  const names: string[] = [];
  for await (const n of jsm.streams.names()) names.push(n);
  t.ok(names.includes('KV_dc-tokens'), 'stream names');
});

t.test('the monitor cannot read the values of dc_bots or dc-tokens', async (t) => {
  const jsm = await jetstreamManager(monitor, { timeout: 3000 });
  await t.rejects(jsm.streams.getMessage('KV_dc_bots', { last_by_subj: '$KV.dc_bots.bot.probe' }), /permission|timeout/i, 'no message get');
  const kv = await new Kvm(jetstream(monitor, { timeout: 3000 })).open('dc_bots');
  await t.rejects(kv.get('bot.probe'), /permission|timeout/i, 'no key get');
  await t.rejects(jsm.consumers.add('KV_dc_bots', { name: 'peek', filter_subject: '$KV.dc_bots.>' }), /permission|timeout/i, 'no consumer');
  // Listening: on the bucket's subjects, and on the nodes' inboxes (where their gets are answered).
  const onBucket = collect(monitor, '$KV.dc_bots.>');
  const onTokens = collect(monitor, '$KV.dc-tokens.>');
  const onInbox = collect(monitor, '_INBOX.>');
  await monitor.flush();
  await bots.put('bot.probe', enc.encode('{"webhookSecret":"s3cret2"}'));
  await tokens.put('hash1', enc.encode('{"p":"bot:x"}'));
  t.ok((await bots.get('bot.probe'))?.string().includes('s3cret2'), 'the node reads it');
  await monitor.flush();
  t.same([onBucket.length, onTokens.length, onInbox.length], [0, 0, 0], 'heard nothing');
});

t.test('the monitor cannot forge a token nor publish to a shard', async (t) => {
  await t.rejects(jetstream(monitor, { timeout: 2000 }).publish('$KV.dc-tokens.forged', enc.encode('{"p":"bot:x"}')), /permission|timeout/i, 'JetStream publish refused');
  monitor.publish('$KV.dc-tokens.forged2', enc.encode('{"p":"bot:x"}'));
  monitor.publish('$KV.dc-shards.0', enc.encode('monitor'));
  await monitor.flush();
  t.equal(await tokens.get('forged'), null, 'no forged token');
  t.equal(await tokens.get('forged2'), null, 'no forged token (core publish)');
  // A node listens on a shard's subject: the monitor's message never comes, the node's own does.
  const heard = collect(node, 'dc.shard.0');
  await node.flush();
  monitor.publish('dc.shard.0', enc.encode('forged move'));
  await monitor.flush();
  node.publish('dc.shard.0', enc.encode('sentinel'));
  await node.flush();
  for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(heard.map((m) => m.string()), ['sentinel'], 'only the node reached the shard');
});

t.test('a node queues a result and its rater takes and acknowledges it', async (t) => {
  const queue = await ResultsQueue.open(node, { replicas: 1, ackWaitMs: 5000 });
  await queue.publish('g1', enc.encode('result'));
  const taken: string[] = [];
  t.equal(await queue.rateOnce(10, 1000, async (batch) => void taken.push(...batch.map((r) => r.gameId))), 1, 'taken and acknowledged (ackAck answered)');
  t.same(taken, ['g1'], 'the result');
});

t.test('neither the monitor nor a node may delete a stream', async (t) => {
  for (const [who, nc] of [['monitor', monitor], ['node', node]] as const) {
    const jsm = await jetstreamManager(nc, { timeout: 2000 });
    await t.rejects(jsm.streams.delete('KV_dc_bots'), /permission|timeout/i, `${who}: refused`);
    await t.rejects(jsm.streams.purge('KV_dc_bots'), /permission|timeout/i, `${who}: purge of dc_bots refused`);
    // Nodes remove keys and trim logs by deleting messages one by one; nobody purges (GameLog.trim).
    await t.rejects(jsm.streams.purge('KV_dc-live'), /permission|timeout/i, `${who}: purge of dc-live refused`);
  }
  t.equal((await bots.get('bot.probe'))?.string().includes('s3cret'), true, 'the bucket and its value are still there');
});


t.test('the server logs each refusal (what the whole-node test looks for)', async (t) => {
  const log = nats.serverLog(0);
  t.match(log, /Publish Violation.*dc\.shard\.0/, 'the monitor publishing to a shard');
  t.match(log, /Subscription Violation.*\$KV\.dc_bots/, 'the monitor subscribing to a bucket');
});
