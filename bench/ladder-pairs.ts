// The ladder under load: 200 registered stream bots on the ladder (capacity 2, so each plays one
// mirror pair at a time, or a single game while one game of its pair still runs), a 500 ms pair
// interval, 60 s. The server runs in this process (memory store, the real game shards) so the bench
// can set the bots' capacity directly in its store; the bots
// run in a forked driver (bench/ladder-driver.ts) whose CPU is not counted. Reports mirror pairs
// started per second, games ended and turns per second, the server's CPU (all threads) and RSS.
// Baseline, same run: a fresh server of the same build and settings where the same number of bots
// play ordinary challenge games (bench/load-driver.ts, 100 pairs) for BASELINE_MS.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/server-config.js';
import { startServer, type RunningServer } from '../src/main.js';
import { measureLoad, type LoadResult } from './load.js';
import { procRss, scrape, type ServerChild } from './procs.js';
import { silentLogger } from '../src/domain/log.js';
import type { BenchRow } from './types.js';

const BOTS = Number(process.env.BENCH_LADDER_BOTS ?? 200);
// BENCH_LADDER_MS shortens the window for a quick check; the recorded run uses 60 s.
const DURATION_MS = Number(process.env.BENCH_LADDER_MS ?? 60_000);
const PAIR_INTERVAL_MS = 500;
const BASELINE_MS = Math.min(DURATION_MS, 30_000);
const MB = 1024 * 1024;

interface DriverSummary {
  windowS: number;
  gamesStarted: number;
  gamesEnded: number;
  turns: number;
  failures: number;
  statuses: Record<string, number>;
  driverCpuPct: number;
}

async function post(url: string, token?: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json().catch(() => null) };
}

/** The server in this process, with the bench settings. */
async function server(): Promise<RunningServer> {
  const config = loadConfig({
    overrides: {
      host: '127.0.0.1', port: 0, memory: true, logLevel: 'silent',
      'games.seedGraceMs': 0, 'games.houseMoveDelayMs': 0, 'ladder.pairIntervalMs': PAIR_INTERVAL_MS,
      'limits.registrationsPerHour': 1_000_000, 'limits.anonMintsPerHour': 1_000_000,
    },
  });
  if (!config.ok) throw new Error(config.error);
  const started = await startServer(config.value, { log: silentLogger });
  if (!started.ok) throw new Error(started.error);
  return started.value;
}

/** Ordinary games between the same number of bots: the load driver against a fresh server here. */
async function baseline(): Promise<LoadResult> {
  const s = await server();
  try {
    // The load driver reads CPU and RSS from /metrics: this process's, as in the ladder run.
    const child: ServerChild = {
      url: s.url, pid: process.pid, warnings: () => 0, logTail: () => '', alive: () => true,
      metrics: () => scrape(s.url), stop: () => s.close(),
    };
    return await measureLoad(child, BOTS / 2, BASELINE_MS);
  } finally {
    await s.close();
  }
}

interface LadderResult {
  s: DriverSummary;
  /** Pairings the scheduler started in the whole run, by kind. */
  kinds: { mirror: number; single: number };
  load: number;
  cpuS: number;
  wall: number;
  rss0: number;
  rss: number;
  peak: number;
  /** Peak RssAnon and the RssFile beside it, MB. */
  peakAnon: number;
  peakFile: number;
}

async function ladder(): Promise<LadderResult> {
  const srv = await server();
  try {
    const bots: { token: string; face: string }[] = [];
    for (let i = 0; i < BOTS; i++) {
      const name = `bot${i}`;
      const reg = await post(`${srv.url}/bot/register`, undefined, { team: 'bench', name });
      if (reg.status !== 201) throw new Error(`register: ${reg.status}`);
      if ((await post(`${srv.url}/bot/ladder/join`, reg.json.token)).status !== 200) throw new Error('join failed');
      await srv.store.updateBot({ ...srv.store.getBot(reg.json.id)!, capacity: 2 });
      bots.push({ token: reg.json.token, face: `bench ${name}` });
    }
    const driver = fork(fileURLToPath(new URL('./ladder-driver.js', import.meta.url)), [], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let out = '';
    driver.stdout!.setEncoding('utf8').on('data', (t: string) => (out += t));
    const closed = new Promise<number | null>((resolve) => driver.once('close', resolve));
    const killer = setTimeout(() => driver.kill('SIGKILL'), DURATION_MS + 30_000);
    let peak = 0;
    let peakAnon = 0;
    let peakFile = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
      const r = selfRss();
      if (r.anonMb > peakAnon) [peakAnon, peakFile] = [r.anonMb, r.fileMb];
    }, 1000);
    const load = loadavg()[0];
    const cpu0 = process.cpuUsage();
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    driver.send({ url: srv.url, bots, durationMs: DURATION_MS });
    const code = await closed;
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    clearTimeout(killer);
    const rss = process.memoryUsage().rss;
    const last = out.trim().split('\n').pop() ?? '';
    if (code !== 0 || !last.startsWith('{')) throw new Error(`ladder driver failed (exit ${code}): ${out.slice(-500)}`);
    return { s: JSON.parse(last) as DriverSummary, kinds: { ...srv.scheduler.started }, load, cpuS: (cpu.user + cpu.system) / 1e6, wall, rss0, rss, peak: Math.max(peak, rss), peakAnon, peakFile };
  } finally {
    await srv.close();
  }
}

/** RssAnon and RssFile of this process, MB (NaN off Linux). */
function selfRss(): { anonMb: number; fileMb: number } {
  try {
    return procRss(readFileSync('/proc/self/status', 'latin1'));
  } catch {
    return { anonMb: Number.NaN, fileMb: Number.NaN };
  }
}

export async function run(): Promise<BenchRow[]> {
  const { s, kinds: k, load, cpuS, wall, rss0, rss, peak, peakAnon, peakFile } = await ladder();
  // The driver counts the games it was told of in its window; the store tells which kind each was.
  const mirrorShare = k.mirror + k.single > 0 ? (2 * k.mirror) / (2 * k.mirror + k.single) : 1;
  const b = await baseline();
  const bench = `ladder ${BOTS} stream bots`;
  const vs = (value: number, base: number) => ({ value, baseline: base, baselineName: 'ordinary games' });
  return [
    {
      bench, metric: 'mirror pairs/s', value: (s.gamesStarted * mirrorShare) / 2 / s.windowS,
      note: `${s.gamesStarted} ladder games in ${s.windowS.toFixed(0)} s (the whole run started ${k.mirror} mirror pairs and ${k.single} single games), ` +
        `pair interval ${PAIR_INTERVAL_MS} ms, capacity 2 each; ${s.failures} failed requests`,
    },
    {
      bench, metric: 'games ended/s', ...vs(s.gamesEnded / s.windowS, b.summary.gamesPerS),
      note: `${s.gamesEnded} games; random movers, Fischer 300+3; baseline: ${BOTS / 2} challenge pairs, ${BASELINE_MS / 1000} s`,
    },
    {
      bench, metric: 'turns/s', ...vs(s.turns / s.windowS, b.summary.turnsPerS),
      note: `move verdicts ${Object.entries(s.statuses).map(([k, n]) => `${n}×${k}`).join(', ') || 'none'}; ` +
        `driver used ${s.driverCpuPct.toFixed(0)}% of a core; 1-min load average ${load.toFixed(1)} at the start`,
    },
    { bench, metric: 'server CPU % of a core', ...vs((cpuS / wall) * 100, b.cpuPct), note: 'user+sys of the server process, game shards included' },
    { bench, metric: 'server CPU ms/turn', ...vs(s.turns ? (cpuS * 1000) / s.turns : 0, b.cpuMsPerTurn) },
    {
      bench, metric: 'server RSS MB', ...vs(rss / MB, b.rssEndMb),
      note: `${(rss0 / MB).toFixed(0)} MB at the start, peak ${(peak / MB).toFixed(0)} MB`,
    },
    {
      bench, metric: 'server RssAnon MB, peak', value: peakAnon,
      note: `target ≤ 400 MB; anonymous memory of the bench process (server, shards, heaps) sampled every second; RssFile then ${peakFile.toFixed(0)} MB`,
    },
  ];
}
