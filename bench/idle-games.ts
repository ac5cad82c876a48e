// 10,000 live games, idle between turns: what a live game costs the server in memory, and how long
// a restart takes to resume them all. The server runs with LMDB in a temporary directory and the
// per-identity and whole-server caps lifted; 50 pairs of anonymous bots make the games in parallel
// (challenge and accept, Fischer with a day on each clock: White's first roll waits, nobody moves).
// Then the server is killed with SIGKILL and started again on the same directory: the live games
// are resumed before it listens (src/main.ts), so the time from spawn to "listening" and to the
// first /health answer is the time to resume them. The baseline of that time is the first start on
// the empty directory, in the same run. Then it is stopped cleanly (SIGTERM, timed) and started
// once more. BENCH_IDLE_GAMES=N shortens a quick check.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { LONG_CLOCK, mintAnon, poolRequester } from './driver-common.js';
import { dirBytes } from './persistence.js';
import { LIFTED_CAPS_ENV, startServer, tempDir, type ServerOptions, type SpawnedServer } from './procs.js';
import type { BenchRow } from './types.js';

const GAMES = Number(process.env.BENCH_IDLE_GAMES ?? 10_000);
const PAIRS = 50;
/** Creating the games is bounded in time; what was made by then is measured (and said). */
const CREATE_BUDGET_MS = 180_000;
const RESUME_TIMEOUT_MS = 300_000;
const STOP_GRACE_MS = 60_000;
const MB = 1024 * 1024;


/** Makes `games` live games over PAIRS bot pairs; returns how many were made. */
async function createGames(url: string, games: number): Promise<{ made: number; failures: string[] }> {
  const pool = new Pool(url, { connections: 2 * PAIRS });
  const request = poolRequester(pool, 30_000);
  const failures: string[] = [];
  const deadline = performance.now() + CREATE_BUDGET_MS;
  let made = 0;
  let next = 0;
  const pair = async (i: number) => {
    const white = await mintAnon(url, `iw${i}`);
    const black = await mintAnon(url, `ib${i}`);
    const body = JSON.stringify({ team: black.team, name: black.name, timeControl: LONG_CLOCK });
    // Games are handed out one by one from a shared counter, so the pairs share the work evenly.
    // Raw requests on the pool, not the typed client: the games are made as fast as the server
    // takes them, under a time budget, and the time it took is reported.
    while (next < games && performance.now() < deadline && failures.length < 20) {
      next++;
      const ch = await request('POST', '/bot/challenge', white.token, body);
      const id = ch.status === 201 ? (JSON.parse(ch.text) as { id: string }).id : undefined;
      const acc = id ? await request('POST', `/bot/challenge/${id}/accept`, black.token) : undefined;
      if (acc?.status === 201) made++;
      else failures.push(`challenge ${ch.status} ${acc ? `accept ${acc.status} ${acc.text}` : ch.text}`.slice(0, 300));
    }
  };
  try {
    await Promise.all(Array.from({ length: PAIRS }, (_, i) => pair(i)));
  } finally {
    await pool.close();
  }
  return { made, failures };
}

/** Starts the server and times it: to "listening" (startServer) and to the first /health 200. */
async function timedStart(opts: ServerOptions): Promise<{ server: SpawnedServer; listenMs: number; healthMs: number }> {
  const t0 = performance.now();
  const server = await startServer(opts);
  const listenMs = performance.now() - t0;
  for (;;) {
    const res = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
    if (res?.status === 200) break;
    if (performance.now() - t0 > RESUME_TIMEOUT_MS) throw new Error('/health never answered 200 after the restart');
    await new Promise((r) => setTimeout(r, 20));
  }
  return { server, listenMs, healthMs: performance.now() - t0 };
}

export async function run(): Promise<BenchRow[]> {
  const tmp = tempDir('dicechess-bench-idle-');
  const load = loadavg()[0];
  const opts: ServerOptions = { store: { dataDir: join(tmp.path, 'data') }, env: LIFTED_CAPS_ENV, startTimeoutMs: RESUME_TIMEOUT_MS };
  let server: SpawnedServer | undefined;
  try {
    const first = await timedStart(opts);
    server = first.server;
    const before = await server.metrics();
    const t0 = performance.now();
    const { made, failures } = await createGames(server.url, GAMES);
    const createS = (performance.now() - t0) / 1000;
    if (failures.length) console.error(`idle-games: ${failures.length} failed set-ups, e.g.\n  ${failures.slice(0, 5).join('\n  ')}`);
    const after = await server.metrics();
    if (!server.alive()) throw new Error(`the server died while the games were made:\n${server.logTail()}`);
    await server.kill();
    server = undefined;
    const disk = dirBytes(tmp.path) / MB;
    const again = await timedStart(opts);
    server = again.server;
    const resumed = await server.metrics();
    // Then a clean stop (SIGTERM) with every game live, and a start after it.
    const stopped = await server.terminate(STOP_GRACE_MS);
    server = undefined;
    const third = await timedStart(opts);
    server = third.server;
    const afterClean = await server.metrics();
    const bench = `idle-games ${GAMES.toLocaleString('en-US')}`;
    const live = after.liveGames - before.liveGames;
    const perGameKb = (after.rssBytes - before.rssBytes) / 1024 / Math.max(1, live);
    const heapKb = (after.heapUsedBytes - before.heapUsedBytes) / 1024 / Math.max(1, live);
    const problems = [
      failures.length ? `${failures.length} failed set-ups` : '',
      made < GAMES ? `only ${made} games made in ${CREATE_BUDGET_MS / 1000} s` : '',
      resumed.liveGames !== after.liveGames ? `${resumed.liveGames} live after the restart, ${after.liveGames} before` : '',
      afterClean.liveGames !== after.liveGames ? `${afterClean.liveGames} live after the clean restart` : '',
      stopped.clean ? '' : `SIGTERM did not stop the server within ${STOP_GRACE_MS / 1000} s (killed)`,
    ].filter(Boolean).join('; ');
    return [
      {
        bench, metric: 'RSS KB per live game', value: perGameKb,
        note: `RSS ${(before.rssBytes / MB).toFixed(0)} → ${(after.rssBytes / MB).toFixed(0)} MB for ${live} live games made in ${createS.toFixed(1)} s ` +
          `(${PAIRS} bot pairs, Fischer 86400+0, White's first roll pending); V8 heap used ${Number.isFinite(heapKb) ? `${heapKb.toFixed(1)} KB` : 'n/a'} per game; ` +
          `1-min load average ${load.toFixed(1)} at the start${problems ? `; PROBLEMS: ${problems}` : ''}`,
      },
      {
        bench, metric: 'restart to listening ms', value: again.listenMs, baseline: first.listenMs, baselineName: 'empty data dir',
        note: `after SIGKILL with ${after.liveGames} live games (LMDB, ${disk.toFixed(0)} MB on disk); spawn → "listening on" (games are resumed before listening)`,
      },
      {
        bench, metric: 'restart to /health ms', value: again.healthMs, baseline: first.healthMs, baselineName: 'empty data dir',
        note: `${resumed.liveGames} live games after the restart`,
      },
      {
        bench, metric: 'clean stop ms', value: stopped.ms,
        note: `SIGTERM to exit with ${resumed.liveGames} live games${stopped.clean ? '' : ' (did not exit: killed)'}`,
      },
      {
        bench, metric: 'restart after clean stop to /health ms', value: third.healthMs, baseline: first.healthMs, baselineName: 'empty data dir',
        note: `${afterClean.liveGames} live games after it`,
      },
      {
        bench, metric: 'RSS MB after resume', value: resumed.rssBytes / MB, baseline: after.rssBytes / MB, baselineName: 'before the kill',
        note: `${((resumed.rssBytes - before.rssBytes) / 1024 / Math.max(1, resumed.liveGames)).toFixed(1)} KB per resumed game over the fresh server's ${(before.rssBytes / MB).toFixed(0)} MB`,
      },
    ];
  } finally {
    await server?.stop();
    tmp.remove();
  }
}
