// The game log on a real three-server cluster (stream with three replicas): appends are fenced by the
// store once another writer took the game over, a retried append is stored once, and a replay gives
// back every version in order with the takeover markers between owners.
import t from 'tap';
import { connectCluster } from '../../src/cluster/nats.js';
import { GameLog } from '../../src/cluster/game-log.js';
import { startNatsCluster } from '../helpers/nats-cluster.js';

const cluster = await startNatsCluster({ name: 'dc-log' });
const nc = await connectCluster(cluster.urls, 'log-test');
t.teardown(async () => {
  await nc.close();
  await cluster.stop();
});
const log = await GameLog.open(nc, { replicas: 3, timeoutMs: 3000 });
const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

t.test('a second writer fences the first: its appends are refused, whatever their timing', async (t) => {
  const a = await log.takeOver('g1', 'node-a');
  t.same(await a.append(1, bytes('v1')), { ok: true, seq: a.lastSeq(), duplicate: false });
  t.ok((await a.append(2, bytes('v2'))).ok);
  const b = await log.takeOver('g1', 'node-b');
  t.ok(b.epoch > a.lastSeq(), 'the marker comes after the old owner entries');
  t.same(await a.append(3, bytes('stale')), { ok: false, fenced: true }, 'the old owner cannot append');
  t.ok(a.fenced());
  t.ok((await b.append(3, bytes('v3'))).ok, 'the new owner can');
  // The stale owner retrying the very same version is still refused (no message-id collision).
  t.same(await a.append(3, bytes('stale')), { ok: false, fenced: true });
  const entries = await log.replay('g1');
  t.same(
    entries.map((e) => (e.kind === 'version' ? `v${e.version}:${text(e.data)}` : `takeover:${e.node}`)),
    ['takeover:node-a', 'v1:v1', 'v2:v2', 'takeover:node-b', 'v3:v3'],
  );
});

t.test('two writers racing on one game: exactly one sequence of appends survives', async (t) => {
  const a = await log.takeOver('g2', 'node-a');
  const b = await log.takeOver('g2', 'node-b');
  const results = await Promise.all([a.append(1, bytes('a1')), b.append(1, bytes('b1'))]);
  t.same(
    results.map((r) => r.ok),
    [false, true],
    'the writer that took over last wins; the earlier one is fenced',
  );
  t.same(await log.fold('g2', [] as string[], (acc, v, d) => [...acc, `${v}:${text(d)}`]), ['1:b1']);
});

t.test('an append retried with the same version is stored once', async (t) => {
  const w = await log.takeOver('g3', 'node-a');
  const first = await w.append(1, bytes('once'));
  if (!first.ok) return t.fail('first append refused');
  // A retry after a lost answer: same writer, same version, sent again (the writer's expected last
  // sequence is rewound as it was before the first answer came back).
  (w as unknown as { last: number }).last = w.epoch;
  const retry = await w.append(1, bytes('once'));
  t.same(retry, { ok: true, seq: first.seq, duplicate: true }, 'answered with the first sequence');
  t.ok((await w.append(2, bytes('two'))).ok, 'and the writer goes on');
  t.same(await log.fold('g3', [] as number[], (acc, v) => [...acc, v]), [1, 2], 'one entry per version');
});

t.test('replay of a game with no entries, and of a long game', async (t) => {
  t.same(await log.replay('nothing-here'), []);
  const w = await log.takeOver('g4', 'node-a');
  const refused: number[] = [];
  for (let v = 1; v <= 300; v++) if (!(await w.append(v, bytes(`m${v}`))).ok) refused.push(v);
  t.same(refused, [], 'every append accepted');
  const versions = await log.fold('g4', [] as number[], (acc, v) => [...acc, v]);
  t.equal(versions.length, 300);
  t.same(versions, Array.from({ length: 300 }, (_, i) => i + 1), 'in order, contiguous');
});

t.test('a game id that is not one subject token is refused', async (t) => {
  t.throws(() => log.subject('a.b'));
  t.throws(() => log.subject('*'));
  t.throws(() => log.subject(''));
});
