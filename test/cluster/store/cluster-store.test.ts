// The cluster's Store against three real nats-server processes: first the behavioural suites the
// memory and LMDB stores pass (each subtest on buckets of its own), then what only a store shared by
// several nodes has: one node's writes read on another, a node opening later loads everything, a
// finishGame repeated after a crash, a rating batch a dead node left half-done finished by the next,
// and one batch applied by two nodes at once counted once.
import t from 'tap';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectCluster, openBucket } from '../../../src/cluster/transport/nats.js';
import { ClusterStore, CHUNK, encode, keys } from '../../../src/cluster/store/cluster-store.js';
import { batchId, journalKey } from '../../../src/cluster/store/ratings.js';
import { tournamentKeys } from '../../../src/cluster/store/tournaments.js';
import type { GameRecord, Rating } from '../../../src/domain/records.js';
import type { RatingBatch } from '../../../src/domain/ratings.js';
import { eventually, startNatsCluster } from '../../helpers/nats-cluster.js';
import { storeSuite } from '../../helpers/store-suite.js';
import { ratingsSuite } from '../../helpers/store-ratings-suite.js';
import { tournamentsSuite } from '../../helpers/store-tournaments-suite.js';
import { bot, ended, game, history, linesFor, tournament } from '../../helpers/store-fixtures.js';

const cluster = await startNatsCluster({ name: 'dc-cstore' });
const ncA = await connectCluster([cluster.urls[0]], 'node-a');
const ncB = await connectCluster([cluster.urls[1]], 'node-b');
t.teardown(async () => {
  await ncA.close();
  await ncB.close();
  await cluster.stop();
});

let buckets = 0;
const jsm = await jetstreamManager(ncA, { timeout: 20_000 });
/**
 * A store on buckets no other test uses, closed when `t` ends; the buckets are then removed, so the
 * servers do not carry every earlier test's streams (creating a stream slows down as they pile up).
 * Three replicas unless told otherwise.
 */
async function fresh(t: Parameters<Parameters<typeof storeSuite>[1]>[0], prefix = `t${++buckets}_`, nc = ncA, replicas = 3): Promise<ClusterStore> {
  const s = await ClusterStore.open(nc, { replicas, prefix, timeoutMs: 20_000 });
  t.teardown(async () => {
    await s.close();
    if (!removing.has(prefix)) {
      removing.add(prefix);
      for (const b of ['store', 'bots', 'tickets']) await jsm.streams.delete(`KV_${prefix}${b}`).catch(() => false);
    }
  });
  return s;
}
const removing = new Set<string>();

// The behavioural suites check what the store does, not how NATS replicates it: their buckets have
// one replica (on whichever server NATS places them, reached through server A), which spares the
// cluster dozens of three-way stream groups. Replication is what the tests after them are about.
t.test('shared store suite', async (t) => {
  storeSuite(t, async (t) => {
    const s = await fresh(t, undefined, ncA, 1);
    t.equal(s.persistent, true);
    return s;
  });
});

t.test('ratings suite', async (t) => ratingsSuite(t, (t) => fresh(t, undefined, ncA, 1)));
t.test('events suite', async (t) => tournamentsSuite(t, (t) => fresh(t, undefined, ncA, 1)));

const A = bot('alpha', 'one');
const B = bot('beta', 'two');
const r = (rating: number, rd: number, volatility = 0.06): Rating => ({ rating, rd, volatility });
function batchFor(g: GameRecord, at: number, after: [Rating, Rating]): RatingBatch {
  return {
    at,
    games: [{ gameId: g.id, whiteId: g.white.id, blackId: g.black.id, whiteScore: 1, finishedAt: g.finishedAt ?? at }],
    updates: [
      { botId: A.id, before: A.rating, after: after[0], counts: { games: 1, wins: 1, draws: 0, losses: 0 } },
      { botId: B.id, before: B.rating, after: after[1], counts: { games: 1, wins: 0, draws: 0, losses: 1 } },
    ],
  };
}

/** Two nodes on one set of buckets, through two connections to two different servers. */
async function pair(t: Parameters<typeof fresh>[0]): Promise<[ClusterStore, ClusterStore, string]> {
  const prefix = `p${++buckets}_`;
  const a = await fresh(t, prefix, ncA);
  const b = await fresh(t, prefix, ncB);
  return [a, b, prefix];
}

t.test('one node writes, the other reads: games, results, ratings, events', async (t) => {
  const [a, b] = await pair(t);
  t.ok(await a.createBot(A));
  t.ok(await a.createBot(B));
  const g = game('g1', { history: history(3) });
  await a.putGame(g);
  t.ok(await eventually(() => b.getGame('g1') !== undefined), 'the live game reaches the other node');
  t.same(b.listLiveGames(), [g], 'exactly as written');
  // A long game grows turn by turn across chunk boundaries; every version reads back exactly.
  let cur = g;
  for (let n = 4; n <= 2 * CHUNK + 3; n++) {
    cur = { ...cur, ply: n, version: cur.version + 1, history: history(n) };
    await a.putGame(cur);
    t.same(a.getGame('g1'), cur, `the writer reads version ${cur.version}`);
  }
  t.ok(await eventually(() => b.getGame('g1')?.version === cur.version));
  t.same(b.getGame('g1'), cur, `the other node reads ${cur.history.length} turns exactly`);
  await a.putGame({ ...g, version: 1 });
  t.same(a.getGame('g1'), cur, 'an older version never replaces a newer one');

  const final = ended(cur, 5_000);
  await b.finishGame(final, linesFor(final, 5_000));
  // An ended game is read on demand on a node that did not write it (finished-games.ts).
  t.ok(await eventually(async () => a.listLiveGames().length === 0 && (await a.loadGame('g1'))?.finishedAt === 5_000), 'finished on b, seen on a');
  t.same(a.getGame('g1'), final, 'then read from the cache');
  t.same(a.listLiveGames(), [], 'no longer live anywhere');
  t.same(a.resultsOf(A.id, 10), [linesFor(final, 5_000)[0]], 'result lines');
  t.same(a.pendingRatings(10).map((p) => p.gameId), ['g1'], 'pending on a');

  t.equal(await a.applyRatingBatch(batchFor(final, 9_000, [r(1600, 300), r(1400, 300)])), true);
  t.ok(await eventually(() => b.getBot(A.id)?.rating.rating === 1600 && b.pendingRatings(10).length === 0 && b.ladderStats(B.id).games === 1));
  t.same(b.ratingHistory(A.id), [{ at: 9_000, rating: 1600, rd: 300 }], 'history on b');
  t.same(b.ladderStats(A.id), { games: 1, wins: 1, draws: 0, losses: 0 }, 'counts on b');

  const ev = tournament('ev1', { pairs: 3, finished: 1, queued: 2 });
  await b.putTournament(ev);
  t.ok(await eventually(() => a.getTournament('ev1') !== undefined), 'events too');
  t.same(a.getTournament('ev1'), ev, 'whole');
  t.same(a.recentTournaments(10), ['ev1'], 'and in the index');
  t.same(a.openTournaments().map((e) => e.id), ['ev1']);
});

t.test('webhook marks: kept for live games only, on every node', async (t) => {
  const [a, b] = await pair(t);
  const g = game('w1');
  await a.putGame(g);
  t.ok(await eventually(() => b.listLiveGames().length === 1));
  await b.markWebhookDelivered('w1', 6);
  t.equal(b.webhookDelivered('w1'), 6);
  t.ok(await eventually(() => a.webhookDelivered('w1') === 6), 'seen on a');
  await b.markWebhookDelivered('nope', 3);
  t.equal(b.webhookDelivered('nope'), undefined, 'no marker for a game that is not live');
  await a.finishGame(ended(g, 10), linesFor(g, 10));
  t.equal(a.webhookDelivered('w1'), undefined, 'cleared by the finish');
  t.ok(await eventually(() => b.webhookDelivered('w1') === undefined), 'everywhere');
});

t.test('finished games leave the replica: memory follows the live games, reads go through a bounded cache', async (t) => {
  const [a, , prefix] = await pair(t);
  await a.createBot(A);
  await a.createBot(B);
  const before = a.memoryUse().replica.bytes;
  const games: GameRecord[] = [];
  for (let i = 0; i < 30; i++) {
    const g = ended(game(`fin${i}`, { history: history(3 * CHUNK + 5) }), 1000 + i);
    games.push(g);
    await a.finishGame(g, linesFor(g, 1000 + i));
  }
  const historyBytes = encode(games[0].history).length;
  const grown = (a.memoryUse().replica.bytes - before) / games.length;
  t.ok(grown < historyBytes / 4, `the writer's replica grew ${grown.toFixed(0)} B per finished game (its history: ${historyBytes} B)`);
  const c = await ClusterStore.open(ncB, { replicas: 3, prefix, timeoutMs: 20_000, finishedCache: { entries: 4, bytes: 1 << 20 } });
  t.teardown(() => c.close());
  t.ok(c.memoryUse().replica.bytes < a.memoryUse().replica.bytes + 1024, 'a node opening later holds no more than the writer');
  for (const g of games) t.same(await c.loadGame(g.id), g, `${g.id} read on demand, exactly`);
  t.ok(c.memoryUse().finished.records <= 4, `the cache holds ${c.memoryUse().finished.records} records (bound 4)`);
  t.same(c.getGame(games[29].id), games[29], 'the last one read is cached');
  t.equal(c.getGame(games[0].id), undefined, 'the first one read went out of the cache');
  t.same(c.resultsOf(A.id, 100).length, 30, 'every result line is still in memory');
});

t.test('a node opening later loads every kind of record before it answers', async (t) => {
  const [a, , prefix] = await pair(t);
  await a.createBot(A);
  await a.createBot(B);
  const long = game('long', { history: history(2 * CHUNK + 5) });
  await a.putGame(long);
  const done = ended(game('done'), 100);
  await a.finishGame(done, linesFor(done, 100));
  const rated = ended(game('rated'), 50);
  await a.finishGame(rated, linesFor(rated, 50));
  await a.applyRatingBatch(batchFor(rated, 200, [r(1510, 340), r(1490, 340)]));
  await a.putTournament(tournament('e1', { pairs: 2, queued: 70 }));
  const c = await fresh(t, prefix, ncB);
  t.same(c.listLiveGames(), [long], 'live games, long history included');
  t.same(c.getGame('done'), undefined, 'a finished game is not in the replica');
  t.same(await c.loadGame('done'), done, 'finished games, read on demand');
  t.same(c.getGame('done'), done, 'then from the cache');
  t.same(c.allResults(), a.allResults(), 'result lines');
  t.same(c.pendingRatings(10).map((p) => p.gameId), ['done'], 'pending ratings');
  t.same(c.ladderStats(A.id), a.ladderStats(A.id), 'counts');
  t.same(c.ratingHistory(B.id), a.ratingHistory(B.id), 'history');
  t.same(c.leaderboard(0, 10), a.leaderboard(0, 10));
  t.same(c.getTournament('e1'), a.getTournament('e1'), 'events');
  t.same(c.openTournaments(), a.openTournaments(), 'and their index');
});

t.test('events: one stored whole by the previous version is read; another node\'s write changes the revision', async (t) => {
  const [a, b, prefix] = await pair(t);
  const old = tournament('old', { pairs: 2, finished: 1, queued: 3 });
  const raw = await openBucket(ncA, { bucket: `${prefix}store`, replicas: 3 });
  await raw.put(tournamentKeys.head('old'), encode({ ...old, pairs: old.pairs.map((p, i) => ({ ...p, refusals: i === 0 ? [1] : [] })) }));
  t.ok(await eventually(() => a.getTournament('old') !== undefined && b.getTournament('old') !== undefined));
  t.same(a.getTournament('old'), { ...old, refused: [0, 1] }, 'read in today\'s shape, refusals counted per player');
  t.same(b.openTournaments().map((e) => e.id), ['old'], 'indexed on every node');
  const rev = a.tournamentRevision('old');
  const read = b.getTournament('old')!;
  const next = { ...read, pairs: [...read.pairs, { ...read.pairs[1], index: 2, games: ['x', 'y'] as [string, string] }] };
  await b.putTournament(next, read);
  t.ok(await eventually(() => a.getTournamentHead('old')?.pairCount === 3), 'a sees b\'s write');
  t.not(a.tournamentRevision('old'), rev, 'in the revision too');
  t.same(a.getTournament('old'), next, 'and reads the event in parts');
});

t.test('finishGame repeated on another node (a crash before it returned) changes nothing', async (t) => {
  const [a, b] = await pair(t);
  await a.createBot(A);
  await a.createBot(B);
  const g = ended(game('again'), 100);
  await a.finishGame(g, linesFor(g, 100));
  t.ok(await eventually(() => b.pendingRatings(10).length === 1));
  await b.finishGame(g, linesFor(g, 100));
  t.equal(b.allResults().length, 2, 'no duplicated lines');
  t.equal(b.pendingRatings(10).length, 1, 'pending once');
  t.equal(await b.applyRatingBatch(batchFor(g, 300, [r(1600, 300), r(1400, 300)])), true);
  // a's copy of the bucket learns of b's batch a moment later: the repeat comes once it has.
  t.ok(await eventually(() => a.pendingRatings(10).length === 0), 'a sees the game rated');
  await a.finishGame(g, linesFor(g, 100));
  t.same(a.pendingRatings(10), [], 'a rated game finished again does not become pending again');
  t.ok(await eventually(() => b.pendingRatings(10).length === 0 && a.getBot(A.id)?.rating.rating === 1600));
  t.same(b.pendingRatings(10), [], 'on either node');
});

for (const layout of ['in its head', 'in parts'] as const) {
  t.test(`a batch a dead node left half-applied (journal ${layout}) is completed by the next applier, once`, async (t) => {
    const [a, b, prefix] = await pair(t);
    await a.createBot(A);
    await a.createBot(B);
    const g = ended(game('half'), 100);
    await a.finishGame(g, linesFor(g, 100));
    const batch = batchFor(g, 400, [r(1650, 280), r(1350, 280)]);
    // What a node dying mid-batch leaves: the journal, and only alpha's rating written.
    const raw = await openBucket(ncA, { bucket: `${prefix}store`, replicas: 3 });
    const id = batchId(batch);
    const part = { games: batch.games, updates: batch.updates };
    if (layout === 'in parts') {
      await raw.put(`jp.${id}.0`, encode(part));
      await raw.put(journalKey(id), encode({ at: batch.at, parts: 1 }));
    } else {
      await raw.put(journalKey(id), encode({ at: batch.at, parts: 0, inline: part }));
    }
    await a.modifyBot(A.id, (x) => ({ ...x, rating: r(1650, 280) }));
    t.ok(await eventually(() => b.getBot(A.id)?.rating.rating === 1650 && b.pendingRatings(10).length === 1));
    // The next batch the rater computes (from the games still pending) is stale: alpha moved.
    t.equal(await b.applyRatingBatch(batch), false, 'the recomputed batch is refused');
    t.same(b.getBot(B.id)?.rating, r(1350, 280), "beta's rating was completed from the journal");
    t.same(b.getBot(A.id)?.rating, r(1650, 280), "alpha's kept (not applied twice)");
    t.same(b.ladderStats(A.id), { games: 1, wins: 1, draws: 0, losses: 0 }, 'counted once');
    t.same(b.ladderStats(B.id), { games: 1, wins: 0, draws: 0, losses: 1 });
    t.same(b.ratingHistory(B.id), [{ at: 400, rating: 1350, rd: 280 }]);
    t.same(b.pendingRatings(10), [], 'the game is rated');
    t.equal(await raw.get(journalKey(id)).then((e) => e?.operation), 'DEL', 'the journal is gone');
    if (layout === 'in parts') t.equal(await raw.get(`jp.${id}.0`).then((e) => e?.operation), 'DEL', 'and its part');
    t.equal(await b.applyRatingBatch(batch), false, 'and the batch is not applied again');
    t.same(b.ladderStats(A.id).games, 1);
  });
}

t.test('one batch applied by two nodes at once rates each game once', async (t) => {
  const [a, b] = await pair(t);
  await a.createBot(A);
  await a.createBot(B);
  const games = Array.from({ length: 5 }, (_, i) => ended(game(`both${i}`), 100 + i));
  for (const g of games) await a.finishGame(g, linesFor(g, g.finishedAt!));
  t.ok(await eventually(() => b.pendingRatings(10).length === 5 && b.getBot(B.id) !== undefined));
  const batch: RatingBatch = {
    at: 1_000,
    games: a.pendingRatings(10),
    updates: [
      { botId: A.id, before: A.rating, after: r(1700, 250), counts: { games: 5, wins: 5, draws: 0, losses: 0 } },
      { botId: B.id, before: B.rating, after: r(1300, 250), counts: { games: 5, wins: 0, draws: 0, losses: 5 } },
    ],
  };
  const applied = await Promise.all([a.applyRatingBatch(batch), b.applyRatingBatch(batch)]);
  t.ok(applied.some(Boolean), 'applied');
  t.ok(await eventually(() => a.ladderStats(A.id).games > 0 && b.ladderStats(A.id).games > 0 && a.pendingRatings(10).length === 0));
  for (const s of [a, b]) {
    t.same(s.ladderStats(A.id), { games: 5, wins: 5, draws: 0, losses: 0 }, 'five games counted, not ten');
    t.same(s.ratingHistory(B.id), [{ at: 1_000, rating: 1300, rd: 250 }], 'one history point');
    t.same(s.getBot(A.id)?.rating, r(1700, 250));
  }
  t.equal(await a.applyRatingBatch(batch), false, 'a third time is refused');
});

t.test('keys carry any id', async (t) => {
  const s = await fresh(t);
  const odd = 'bot:team:é x/y.z';
  t.match(keys.stats(odd), /^s\.[A-Za-z0-9_-]+$/);
  t.equal(s.getGame(''), undefined);
  t.same(s.resultsOf(odd, 5), []);
});
