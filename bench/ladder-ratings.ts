// The ladder's read side and its batch at scale: an LMDB directory seeded directly with 10,000
// listed bots and 1,000,000 stored result lines, then
// - GET /leaderboard against GET /health on the same server, in ABBA order: the leaderboard is read
//   from an index kept with the bot records (and cached per revision), so it should cost about what
//   the trivial route costs, however many results are stored;
// - the ceiling set by the bytes alone: a bare uWebSockets.js app answering the very bytes of those
//   two answers, compared the same way. No server can send a bigger body for less than this one
//   does, and autocannon, on the same cores, reads every byte; so if the bare ratio misses 0.8x, the
//   page, not the route, is too big;
// - the time of one rating batch over 10,000 pending games (computed and committed in one go).
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../src/domain/clock.js';
import { DEFAULT_RATING, SCHEMA_VERSION, type BotRecord, type GameRecord, type ResultRecord } from '../src/domain/records.js';
import { botExternalId, botFace } from '../src/domain/types.js';
import { DEFAULT_RATING_CONFIG, computeBatch } from '../src/services/ratings.js';
import { LmdbStore } from '../src/store/lmdb.js';
import { Tally, cannon, type Run } from './http.js';
import { startBare, startServer, tempDir, type BareRoute } from './procs.js';
import type { BenchRow } from './types.js';

const BOTS = 10_000;
const RESULTS = 1_000_000;
const BATCH_GAMES = 10_000;
const SEGMENT_S = 2;
const PIPELINING = 1;
/** A short page too: how much of the gap to /health is the body's bytes rather than the route. */
const SHORT_PAGE = 10;
/** The default page before it was halved (docs/DECISIONS.md, "Leaderboard: provisional bots, page size"). */
const LONG_PAGE = 100;

/** The bench process's (autocannon's) CPU per answered request, µs. */
const clientUs = (t: Tally): number => (t.clientCpu * 1e6) / t.n;

/** Deterministic, so runs seed the same store. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const seat = (i: number) => {
  const name = `b${i}`;
  return { id: botExternalId('bench', name), face: botFace('bench', name), participant: { Bot: { team: 'bench', name } } };
};

function endedGame(id: string, w: number, b: number, at: number, rated: boolean): GameRecord {
  return {
    schema: SCHEMA_VERSION, id, white: seat(w), black: seat(b), timeControl: { Fischer: { initialSeconds: 300, incrementSeconds: 3 } },
    rated, createdAt: at - 60_000, serverSeed: '00'.repeat(32), commit: '11'.repeat(32), clientSeeds: { white: null, black: null },
    ply: 0, fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', activeSeat: 'White', dice: null, clocks: null,
    clockStartedAt: null, version: 1, history: [],
    status: { Ended: { over: { result: { Win: { side: 'White' } }, termination: 'Resign' } } },
    revealedSeeds: { white: 'w', black: 'b' }, finishedAt: at, mirrorOf: null,
  };
}

function linesOf(g: GameRecord): ResultRecord[] {
  const at = g.finishedAt ?? 0;
  return [
    { gameId: g.id, botId: g.white.id, seat: 'White', opponentId: g.black.id, result: 'win', rated: g.rated, termination: 'Resign', finishedAt: at },
    { gameId: g.id, botId: g.black.id, seat: 'Black', opponentId: g.white.id, result: 'loss', rated: g.rated, termination: 'Resign', finishedAt: at },
  ];
}

/** Finishes `n` games in parallel chunks (lmdb-js folds concurrent writes into few commits). */
async function finishMany(store: LmdbStore, n: number, make: (i: number) => GameRecord): Promise<void> {
  const CHUNK = 5_000;
  for (let i = 0; i < n; i += CHUNK) {
    const writes: Promise<void>[] = [];
    for (let j = i; j < Math.min(n, i + CHUNK); j++) {
      const g = make(j);
      writes.push(store.finishGame(g, linesOf(g)));
    }
    await Promise.all(writes);
  }
}

interface Seeded { seedS: number; batchMs: number; computeMs: number; commitMs: number; batchGames: number; bots: number }

async function seed(dir: string): Promise<Seeded> {
  const opened = await LmdbStore.open(dir);
  if (!opened.ok) throw new Error(opened.error);
  const store = opened.value;
  const random = lcg(7);
  const t0 = performance.now();
  try {
    const creates: Promise<boolean>[] = [];
    for (let i = 0; i < BOTS; i++) {
      const bot: BotRecord = {
        schema: SCHEMA_VERSION, id: botExternalId('bench', `b${i}`), team: 'bench', name: `b${i}`,
        tokenHash: `${i.toString(16).padStart(64, '0')}`, createdAt: 1_700_000_000_000, onLadder: true,
        rating: { rating: 1000 + random() * 1000, rd: 45 + random() * 60, volatility: DEFAULT_RATING.volatility },
        webhook: null,
      };
      creates.push(store.createBot(bot));
    }
    await Promise.all(creates);
    const pick = () => Math.floor(random() * BOTS);
    // Unrated results: stored history for the profiles, nothing pending.
    await finishMany(store, RESULTS / 2, (i) => {
      const w = pick();
      return endedGame(`old-${i}`, w, (w + 1 + Math.floor(random() * (BOTS - 1))) % BOTS, 1_700_000_000_000 + i, false);
    });
    const seedS = (performance.now() - t0) / 1000;
    // Rated games waiting for a batch, then the batch itself, timed.
    await finishMany(store, BATCH_GAMES, (i) => {
      const w = pick();
      return endedGame(`rated-${i}`, w, (w + 1 + Math.floor(random() * (BOTS - 1))) % BOTS, 1_800_000_000_000 + i, true);
    });
    // The batcher's two steps, timed apart: reading and computing, then the one write.
    const b0 = performance.now();
    const batch = computeBatch(store, systemClock.now(), { tau: 0.5, maxGamesPerBatch: DEFAULT_RATING_CONFIG.maxGamesPerBatch });
    const b1 = performance.now();
    const applied = batch !== null && (await store.applyRatingBatch(batch));
    const b2 = performance.now();
    if (!applied || batch.games.length !== BATCH_GAMES) throw new Error(`the batch did not apply (${batch?.games.length ?? 0} games)`);
    return { seedS, batchMs: b2 - b0, computeMs: b1 - b0, commitMs: b2 - b1, batchGames: batch.games.length, bots: batch.updates.length };
  } finally {
    await store.close();
  }
}

export async function run(): Promise<BenchRow[]> {
  const tmp = tempDir('dicechess-bench-ladder-');
  try {
    const dir = join(tmp.path, 'data');
    console.error(`ladder: seeding ${BOTS} bots and ${RESULTS} result lines…`);
    const seeded = await seed(dir);
    const load = loadavg()[0];
    const server = await startServer({ store: { dataDir: dir } });
    try {
      const health = { label: 'GET /health', url: `${server.url}/health`, tally: new Tally() };
      const targets = [
        { label: 'GET /leaderboard', url: `${server.url}/leaderboard`, tally: new Tally() },
        { label: `GET /leaderboard?limit=${SHORT_PAGE}`, url: `${server.url}/leaderboard?limit=${SHORT_PAGE}`, tally: new Tally() },
        { label: `GET /leaderboard?limit=${LONG_PAGE}`, url: `${server.url}/leaderboard?limit=${LONG_PAGE}`, tally: new Tally() },
      ];
      const probe = (await (await fetch(targets[0].url)).json()) as { leaders: unknown[]; total: number };
      if (probe.total !== BOTS) throw new Error(`expected ${BOTS} listed bots, the leaderboard says ${probe.total}`);
      const all = [health, ...targets];
      for (const x of all) await cannon(new Tally(), x.url, PIPELINING, 1, server.pid);
      // ABC CBA: whatever else the machine does meanwhile weighs on every route alike.
      for (const x of [...all, ...[...all].reverse()]) await cannon(x.tally, x.url, PIPELINING, SEGMENT_S, server.pid);
      if (!server.alive()) throw new Error(`the server died:\n${server.logTail()}`);
      const h: Run = health.tally.result();
      const vs = { baselineName: 'GET /health' };
      const rows: BenchRow[] = [];
      for (const x of targets) {
        const b: Run = x.tally.result();
        const bytes = Buffer.byteLength(await (await fetch(x.url)).text());
        const bad = b.bad + h.bad ? `; PROBLEMS: ${b.bad} bad answers, ${h.bad} on health` : '';
        const bench = `ladder ${x.label}`;
        rows.push(
          {
            bench, metric: 'req/s, 50 conn × 1', value: b.rps, baseline: h.rps, ...vs,
            note: `${BOTS} listed bots, ${RESULTS} stored result lines (LMDB); ${bytes} B body; server ${b.serverCpu?.toFixed(0) ?? '?'}% / ${h.serverCpu?.toFixed(0) ?? '?'}% CPU, autocannon ${b.clientCpu.toFixed(0)}% / ${h.clientCpu.toFixed(0)}%${bad}`,
          },
          { bench, metric: 'p99 ms', value: b.p99, baseline: h.p99, ...vs },
        );
        if (b.cpuUsPerReq !== undefined && h.cpuUsPerReq !== undefined) {
          rows.push({ bench, metric: 'server CPU µs/req', value: b.cpuUsPerReq, baseline: h.cpuUsPerReq, ...vs });
        }
        // The client's share: on two shared cores, what autocannon spends per answer slows both sides.
        rows.push({ bench, metric: 'autocannon CPU µs/req', value: clientUs(x.tally), baseline: clientUs(health.tally), ...vs });
      }
      rows[0].note += `; 1-min load average ${load.toFixed(1)} before the HTTP runs`;
      rows.push(...(await bytesCeiling(health, [targets[0], targets[2]])));
      rows.push({
        bench: 'ladder rating batch', metric: 'ms per batch', value: seeded.batchMs,
        note: `${seeded.batchGames} pending rated games, ${seeded.bots} bots rated: read and computed in ${seeded.computeMs.toFixed(0)} ms, committed in one LMDB transaction in ${seeded.commitMs.toFixed(0)} ms (seeding took ${seeded.seedS.toFixed(0)} s)`,
      });
      return rows;
    } finally {
      await server.stop();
    }
  } finally {
    tmp.remove();
  }
}

/** The same answers from a bare uWS app: what the body size alone allows (see the top). */
async function bytesCeiling(health: { label: string; url: string }, boards: { label: string; url: string }[]): Promise<BenchRow[]> {
  const answer = async (url: string): Promise<BareRoute> => ({
    body: await (await fetch(url)).text(),
    headers: [['content-type', 'application/json']],
  });
  const routes: Record<string, BareRoute> = { '/0': await answer(health.url) };
  for (const [i, b] of boards.entries()) routes[`/${i + 1}`] = await answer(b.url);
  const bare = await startBare(routes);
  try {
    const all = Object.keys(routes).map((path) => ({ url: bare.url + path, tally: new Tally() }));
    for (const x of all) await cannon(new Tally(), x.url, PIPELINING, 1, bare.pid);
    for (const x of [...all, ...[...all].reverse()]) await cannon(x.tally, x.url, PIPELINING, SEGMENT_S, bare.pid);
    const hr = all[0].tally.result();
    const baselineName = `bare uWS, the bytes of ${health.label}`;
    return boards.flatMap((b, i) => {
      const br = all[i + 1].tally.result();
      const bench = `ladder bare uWS, the bytes of ${b.label}`;
      return [
        {
          bench, metric: 'req/s, 50 conn × 1', value: br.rps, baseline: hr.rps, baselineName,
          note: `${Buffer.byteLength(routes[`/${i + 1}`].body)} B body: the ceiling for this body size on this machine; server ${br.serverCpu?.toFixed(0) ?? '?'}% / ${hr.serverCpu?.toFixed(0) ?? '?'}% CPU, autocannon ${br.clientCpu.toFixed(0)}% / ${hr.clientCpu.toFixed(0)}%`,
        },
        ...(br.cpuUsPerReq !== undefined && hr.cpuUsPerReq !== undefined
          ? [{ bench, metric: 'server CPU µs/req', value: br.cpuUsPerReq, baseline: hr.cpuUsPerReq, baselineName }]
          : []),
        { bench, metric: 'autocannon CPU µs/req', value: clientUs(all[i + 1].tally), baseline: clientUs(all[0].tally), baselineName },
      ];
    });
  } finally {
    await bare.stop();
  }
}
