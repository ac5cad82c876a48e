// The store of one shard's games over the game log, on a real three-server cluster: every field of a
// record comes back exactly when another node takes the shard over (history appended as deltas,
// mirror pairs, a withheld reveal), the old owner is fenced, and what a crash leaves half done (an
// ending not archived, a game listed before its first version) is settled by the next owner.
import t from 'tap';
import { connectCluster } from '../../../src/cluster/transport/nats.js';
import { GameLog, type GameWriter } from '../../../src/cluster/log/game-log.js';
import { openLiveIndex } from '../../../src/cluster/log/live-index.js';
import { FencedError, LogGameStore, type LogGameStoreOptions } from '../../../src/cluster/log/log-game-store.js';
import { encodeVersion, foldVersion } from '../../../src/cluster/log/record-codec.js';
import type { GameRecord, ResultRecord } from '../../../src/domain/records.js';
import { shardIndex, shardKey } from '../../../src/shard/protocol/messages.js';
import { ended, game, history, line } from '../../helpers/store-fixtures.js';
import { startNatsCluster } from '../../helpers/nats-cluster.js';

const SHARDS = 8;
const cluster = await startNatsCluster({ name: 'dc-lgs' });
const nc = await connectCluster(cluster.urls, 'lgs-test');
t.teardown(async () => {
  await nc.close();
  await cluster.stop();
});
const log = await GameLog.open(nc, { replicas: 3, timeoutMs: 3000 });
const index = await openLiveIndex(nc, { replicas: 3, timeoutMs: 3000 });

/** A fresh game id on `shard` (ids of one run never repeat). */
let counter = 0;
function idOn(shard: number): string {
  for (;;) {
    const id = `g${process.pid}x${counter++}`;
    if (shardIndex(id, SHARDS) === shard) return id;
  }
}

type Finished = { game: GameRecord; results: ResultRecord[] };

function open(shard: number, node: string, over: Partial<LogGameStoreOptions> = {}, gameLog: GameLog = log) {
  const finished: Finished[] = [];
  const fenced: string[] = [];
  const storeP = LogGameStore.open(gameLog, {
    node,
    shard,
    shards: SHARDS,
    index,
    onFenced: (id) => fenced.push(id),
    onFinished: async (g, results) => void finished.push({ game: g, results }),
    retryForMs: 2000,
    ...over,
  });
  return storeP.then((store) => ({ store, finished, fenced }));
}

/** A game after one more turn: a history entry added, the head moved on. */
function advance(g: GameRecord, at: number): GameRecord {
  const more = history(g.history.length + 1);
  return {
    ...g,
    version: g.version + 2,
    ply: g.ply + 1,
    history: [...g.history, more[more.length - 1]],
    activeSeat: g.activeSeat === 'White' ? 'Black' : 'White',
    dice: [1 + (g.ply % 6), 2, 4],
    clocks: g.clocks && { white: g.clocks.white - 1000, black: g.clocks.black + 500 },
    clockStartedAt: at,
    clientSeeds: { white: 'w-seed', black: 'b-seed' },
  };
}

t.test('the codec folds deltas back into every field, and refuses an entry that does not fit', async (t) => {
  const v0 = game('c1', { history: [], version: 0, ply: 0 });
  const v1 = advance(v0, 5);
  const v2 = { ...advance(v1, 7), revealHeld: true };
  const e1 = encodeVersion(v0, v1);
  const e2 = encodeVersion(v1, v2, [line('bot:team:a:b', 'c1', 9)]);
  t.ok(encodeVersion(v1, v2).length < encodeVersion(undefined, v2).length, 'a delta is smaller than the whole record');
  const s0 = foldVersion(undefined, encodeVersion(undefined, v0));
  const s2 = foldVersion(foldVersion(s0, e1), e2);
  t.strictSame(s2.rec, v2);
  t.strictSame(s2.results, [line('bot:team:a:b', 'c1', 9)]);
  t.throws(() => foldVersion(undefined, e2), /starts its history at 1/);
});

t.test('another node opening the shard gets every live game exactly as last committed', async (t) => {
  const shard = 1;
  const archived: GameRecord[] = [];
  const archive = { getGame: (id: string) => archived.findLast((r) => r.id === id), putGame: async (r: GameRecord) => void archived.push(r) };
  const a = await open(shard, 'node-a', { archive });
  const single = game(idOn(shard), { history: [], version: 0, ply: 0, rated: false, timeControl: { Unlimited: {} }, clocks: null });
  const first = idOn(shard);
  const second = `${first}z`; // sorts after: the pair's shard key is `first`
  const pairA = game(first, { mirrorOf: second, history: history(2) });
  const pairB = game(second, { mirrorOf: first, white: pairA.black, black: pairA.white, history: history(2) });
  await a.store.putGame(single);
  await Promise.all([a.store.putGame(pairA), a.store.putGame(pairB)]);
  let s = single;
  for (let i = 0; i < 5; i++) {
    s = advance(s, 1000 + i);
    await a.store.putGame(s);
  }
  const b1 = advance(pairB, 77);
  await a.store.putGame(b1);
  // pairA ends while its partner plays on: its reveal is withheld.
  const finalA = { ...ended(advance(pairA, 80), 90), revealHeld: true };
  const results = [line(pairA.white.id, first, 90), line(pairA.black.id, first, 90, { result: 'loss' })];
  await a.store.finishGame(finalA, results);
  t.strictSame(a.finished, [{ game: finalA, results }], 'the ending is handed to the archive once');
  t.strictSame(a.store.getGame(first), finalA, 'and stays readable here');
  t.strictSame(new Set(await index.list(shard)), new Set([single.id, second]), 'the ended game left the index');
  const lifted = { ...finalA, revealHeld: false };
  await a.store.putGame(lifted);
  t.strictSame(archived, [lifted], 'an ended record written again goes to the archive, not the log');
  t.strictSame(a.store.getGame(first), lifted);

  const b = await open(shard, 'node-b');
  const byId = new Map(b.store.listLiveGames().map((r) => [r.id, r]));
  t.equal(byId.size, 2);
  t.strictSame(byId.get(single.id), s, 'the single game, folded from its deltas');
  t.strictSame(byId.get(second), b1, 'the mirror partner still running');
  t.strictSame(b.finished, [], 'nothing left to finish');
  t.strictSame(a.store.listLiveGames().map((r) => r.id).sort(), [single.id, second].sort());
  await t.rejects(a.store.putGame(advance(s, 2000)), FencedError, 'the old owner is fenced');
  t.strictSame(a.fenced, [single.id], 'and told once');
  t.ok(a.store.fenced());
  await t.rejects(a.store.putGame(game(idOn(shard))), FencedError, 'a fenced store starts no game');
  t.strictSame(a.fenced, [single.id], 'still told only once');
  await t.rejects(a.store.putGame(lifted), FencedError, 'nor rewrites an ended record');
  t.equal(archived.length, 1);

  // The new owner goes on where the log is, and a third node sees its versions.
  const s2 = advance(s, 3000);
  await b.store.putGame(s2);
  const c = await open(shard, 'node-c');
  t.strictSame(c.store.getGame(single.id), s2);
  await t.rejects(b.store.putGame(advance(s2, 4000)), FencedError);
});

t.test('an ending whose archive write failed is finished by the next owner', async (t) => {
  const shard = 2;
  let attempts = 0;
  const a = await open(shard, 'node-a', {
    retryForMs: 0,
    onFinished: async () => {
      attempts++;
      throw new Error('archive down');
    },
  });
  const g = game(idOn(shard));
  await a.store.putGame(g);
  const final = ended(advance(g, 10), 20);
  const results = [line(g.white.id, g.id, 20)];
  await a.store.finishGame(final, results);
  t.strictSame(a.store.getGame(g.id), final, 'the ending is durable in the log: the game ends');
  t.strictSame(await index.list(shard), [g.id], 'the index still lists it');
  const b = await open(shard, 'node-b');
  t.strictSame(b.finished, [{ game: final, results }], 'the next owner stores the ending from the log');
  t.strictSame(b.store.endedOnOpen(), [final], 'and names the game, for every node to be told it ended');
  t.strictSame(a.store.endedOnOpen(), [], 'a store that found nothing ended names nothing');
  t.strictSame(b.store.listLiveGames(), []);
  t.strictSame(await index.list(shard), [], 'then drops it from the index');
  t.ok(attempts >= 1);
  await a.store.close();
});

t.test('a game listed before its first version landed is dropped by the next owner', async (t) => {
  const shard = 3;
  const id = idOn(shard);
  await index.add(shard, id);
  const b = await open(shard, 'node-b');
  t.strictSame(b.store.listLiveGames(), []);
  t.strictSame(await index.list(shard), []);
});

t.test('a game whose log cannot be read stays listed and untouched; the rest of the shard opens', async (t) => {
  const shard = 7;
  const bad = idOn(shard);
  await index.add(shard, bad);
  t.ok((await log.begin(bad).append(1, new Uint8Array([0xc1]))).ok, 'an entry that is not a version');
  const good = game(idOn(shard));
  const a = await open(shard, 'node-a');
  await a.store.putGame(good);
  const lines: string[] = [];
  const b = await open(shard, 'node-b', { log: { info() {}, warn() {}, error: (o, msg) => void lines.push(`${msg} ${String(o.gameId)}`) } });
  t.strictSame(b.store.listLiveGames(), [good]);
  t.strictSame(lines, [`live game not resumed: its log cannot be read ${bad}`]);
  t.strictSame(new Set(await index.list(shard)), new Set([bad, good.id]));
});

t.test('a new game is refused when the lease was no longer certain at its first append', async (t) => {
  const shard = 4;
  let certain = true;
  const a = await open(shard, 'node-a', { guard: () => certain });
  const ok = game(idOn(shard));
  await a.store.putGame(ok);
  certain = false;
  const late = game(idOn(shard));
  await t.rejects(a.store.putGame(late), FencedError);
  t.strictSame(a.fenced, [late.id]);
  t.equal(a.store.getGame(late.id), undefined, 'never live here');
  await t.rejects(a.store.putGame(game(idOn(5))), /belongs to shard 5/, 'a game of another shard is a caller bug');
});

t.test('a new game whose id holds only an earlier takeover marker starts after it while the lease is certain', async (t) => {
  const shard = 2;
  // Node b took the shard over while the game was listed but before its first version landed: b
  // dropped it, leaving a marker. The creation is tried again on this shard's owner, a.
  const id = idOn(shard);
  await index.add(shard, id);
  await open(shard, 'node-b');
  t.equal((await log.replay(id)).map((e) => e.kind).join(), 'takeover', 'only the marker is in the log');
  let certain = true;
  const a = await open(shard, 'node-a', { guard: () => certain });
  const g = game(id);
  await a.store.putGame(g);
  t.strictSame(a.fenced, [], 'the store is not fenced');
  t.strictSame(a.store.listLiveGames(), [g], 'the game is live');
  t.strictSame((await open(shard, 'node-c')).store.getGame(id), g, 'and the next owner resumes it from the log');
  // A version that counts means somebody made the game: that store is fenced, as before.
  const made = game(idOn(shard));
  const other = (await log.takeOver(made.id, 'node-d')).writer;
  t.ok((await other.append(1, encodeVersion(undefined, made))).ok);
  await t.rejects(a.store.putGame(made), FencedError, 'an id made elsewhere fences the store');
  t.equal((await log.replay(made.id)).filter((e) => e.kind === 'takeover').length, 1, 'and is not marked from here');
  // Without a certain lease, a marker-only id fences too.
  const id2 = idOn(shard);
  await index.add(shard, id2);
  await open(shard, 'node-e');
  certain = false;
  const late = await open(shard, 'node-f', { guard: () => certain });
  await t.rejects(late.store.putGame(game(id2)), FencedError, 'no lease: no takeover of the id');
});

/** The log, with every writer's appends failing as `mode` says: the answer lost, the entry landed or not. */
function lossyLog(mode: { now: 'fine' | 'lost' | 'landed' }): GameLog {
  const wrap = (w: GameWriter): GameWriter => {
    const real = w.append.bind(w);
    w.append = async (version, data) => {
      if (mode.now === 'fine') return real(version, data);
      if (mode.now === 'landed') await real(version, data);
      throw new Error('timed out (test)');
    };
    return w;
  };
  const lossy = Object.create(log) as GameLog;
  lossy.begin = (id, guard) => wrap(log.begin(id, guard));
  lossy.takeOver = async (...args) => {
    const r = await log.takeOver(...args);
    wrap(r.writer);
    return r;
  };
  return lossy;
}

for (const how of ['lost', 'landed'] as const) {
  t.test(`an append unanswered past retryForMs (${how}) gives the shard up; a new store resumes from the log`, async (t) => {
    const shard = 6;
    const mode: { now: 'fine' | 'lost' | 'landed' } = { now: 'fine' };
    const a = await open(shard, 'node-a', { retryForMs: 300 }, lossyLog(mode));
    const g = game(idOn(shard));
    await a.store.putGame(g);
    mode.now = how;
    const moved = advance(g, 50);
    const err = await a.store.putGame(moved).then(() => undefined, (e: unknown) => e);
    t.ok(err instanceof FencedError && err.why === 'unanswered', 'the store gives up');
    t.strictSame(a.fenced, [g.id], 'and says so');
    await t.rejects(a.store.putGame(advance(moved, 60)), FencedError, 'and writes nothing more');
    const again = await open(shard, 'node-a');
    t.strictSame(again.store.getGame(g.id), how === 'landed' ? moved : g, 'the reopened store has the game as the log holds it');
    const next = advance(again.store.getGame(g.id)!, 70);
    await again.store.putGame(next);
    t.strictSame((await open(shard, 'node-b')).store.getGame(g.id), next, 'and goes on writing it');
  });
}

// Found by the partition test (node-netns): a node whose nats-server was cut from the others went on
// sending an unanswered append there for retryForMs (30 s), long after its lease had run out and
// another node had taken the shard over. Once the lease is gone, the append is given up at once.
t.test('an unanswered append is not tried again once the lease is gone: the shard is given up', async (t) => {
  const shard = 7;
  const mode: { now: 'fine' | 'lost' | 'landed' } = { now: 'fine' };
  let held = true;
  const a = await open(shard, 'node-a', { retryForMs: 60_000, guard: () => held }, lossyLog(mode));
  const g = game(idOn(shard));
  await a.store.putGame(g);
  mode.now = 'lost';
  const started = Date.now();
  const write = a.store.putGame(advance(g, 50)).then(() => undefined, (e: unknown) => e);
  await new Promise((r) => setTimeout(r, 300));
  t.strictSame(a.fenced, [], 'retried while the lease is held');
  held = false;
  const err = await write;
  t.ok(err instanceof FencedError && err.why === 'unanswered', 'given up once the lease is gone');
  t.ok(Date.now() - started < 10_000, `well before retryForMs (${Date.now() - started} ms)`);
  t.strictSame(a.fenced, [g.id], 'and said so');
  await t.rejects(a.store.putGame(advance(g, 60)), FencedError, 'nothing more is written');
});
