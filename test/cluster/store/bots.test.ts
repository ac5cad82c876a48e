// Bots shared across a cluster: two nodes (two connections, two replicas of one three-replica bucket)
// see each other's registrations and token rotations, one wins a registration race, and concurrent
// read-modify-writes from both lose nothing.
import t from 'tap';
import { connectCluster, openBucket } from '../../../src/cluster/transport/nats.js';
import { KvBotStore, TICKET_TTL_MS } from '../../../src/cluster/store/bots.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';
import { bot } from '../../helpers/store-fixtures.js';

const cluster = await startNatsCluster({ name: 'dc-bots' });
const ncA = await connectCluster([cluster.urls[0]], 'node-a');
const ncB = await connectCluster([cluster.urls[1]], 'node-b');
const bucket = { bucket: 'bots', replicas: 3, timeoutMs: 3000 };
const tickets = { bucket: 'bot-tickets', replicas: 3, timeoutMs: 3000, ttlMs: TICKET_TTL_MS };
const open = async (nc: typeof ncA) => KvBotStore.open(await openBucket(nc, bucket), await openBucket(nc, tickets));
const a = await open(ncA);
const b = await open(ncB);
t.teardown(async () => {
  a.close();
  b.close();
  await ncA.close();
  await ncB.close();
  await cluster.stop();
});

t.test('a bot registered on one node authenticates on the other', async (t) => {
  const alice = bot('red', 'alice');
  t.ok(await a.createBot(alice));
  t.same(a.getBot(alice.id), alice, 'the writer reads its own write at once');
  t.ok(await eventually(() => b.getBotByTokenHash(alice.tokenHash) !== undefined), 'the other node sees it');
  t.same(b.getBotByTokenHash(alice.tokenHash), alice);
  t.ok(b.botsRevision() > 0);
});

t.test('two nodes registering the same bot: exactly one wins, every time', async (t) => {
  for (let round = 0; round < 20; round++) {
    const x = bot('blue', `twin${round}`, { tokenHash: 'a'.repeat(64) });
    const y = bot('blue', `twin${round}`, { tokenHash: 'b'.repeat(64) });
    const won = await Promise.all([a.createBot(x), b.createBot(y)]);
    t.equal(won.filter(Boolean).length, 1, `round ${round}: one winner`);
    const winner = won[0] ? x : y;
    t.ok(await eventually(() => a.getBot(x.id)?.tokenHash === winner.tokenHash && b.getBot(x.id)?.tokenHash === winner.tokenHash));
  }
});

t.test('token rotation on one node: the old token stops working on both, the new one works on both', async (t) => {
  const carol = bot('green', 'carol');
  t.ok(await a.createBot(carol));
  t.ok(await eventually(() => b.getBot(carol.id) !== undefined));
  const rotated = await b.modifyBot(carol.id, (r) => ({ ...r, tokenHash: 'c'.repeat(64) }));
  t.equal(rotated?.tokenHash, 'c'.repeat(64));
  t.ok(await eventually(() => a.getBotByTokenHash('c'.repeat(64))?.id === carol.id), 'new token on the other node');
  t.equal(a.getBotByTokenHash(carol.tokenHash), undefined, 'old token gone on the other node');
  t.equal(b.getBotByTokenHash(carol.tokenHash), undefined, 'and on the writer');
  t.equal(await a.modifyBot('bot:team:none:here', (r) => r), undefined, 'no such bot');
});

t.test('concurrent read-modify-writes from both nodes lose no update', async (t) => {
  // Plain updates by revision would lose some of these on nats-server 2.9 (both of two concurrent
  // updates naming the same revision may be stored); the tickets serialise them.
  const dave = bot('gold', 'dave', { ladderTimeLosses: 0 });
  t.ok(await a.createBot(dave));
  const bump = (s: KvBotStore) => s.modifyBot(dave.id, (r) => ({ ...r, ladderTimeLosses: (r.ladderTimeLosses ?? 0) + 1 }));
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < 15; i++) work.push(bump(a), bump(b));
  await Promise.all(work);
  t.ok(await eventually(() => a.getBot(dave.id)?.ladderTimeLosses === 30 && b.getBot(dave.id)?.ladderTimeLosses === 30));
  t.equal(a.getBot(dave.id)?.ladderTimeLosses, 30, 'thirty increments, thirty counted');
  t.equal(b.getBot(dave.id)?.ladderTimeLosses, 30, 'on both nodes');
});

t.test('a node opening later loads every bot before it answers', async (t) => {
  const ncC = await connectCluster([cluster.urls[2]], 'node-c');
  t.teardown(() => ncC.close());
  const c = await open(ncC);
  t.teardown(() => c.close());
  t.same(
    c.listBots().map((r) => r.id),
    a.listBots().map((r) => r.id),
  );
  t.equal(c.listBots().length, 23);
});
