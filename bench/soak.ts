// Memory under hours of play, in small: the throughput load (bench/load-driver.ts, 32 pairs) against
// the server with LMDB in a temporary directory for 10 minutes, then 60 seconds with no load. Every
// 10 seconds the server's anonymous and file-backed resident memory (RssAnon, RssFile of
// /proc/PID/status) and the V8 heap in use of each of its threads (main and every shard, from
// /metrics) are sampled. The rows compare anonymous RSS at the end of the load with its value after
// 2 minutes, and 60 s after the load with the fresh server's; the samples are drawn into
// docs/bench-soak.svg (BENCH_SOAK_SVG=PATH writes it elsewhere).
//
// Long (11 minutes), so `make bench` leaves it out; `node dist/bench/run.js soak` runs it.
// BENCH_SOAK_SECONDS shortens the load (the "2 minutes" reading becomes a fifth of it),
// BENCH_SOAK_IDLE_SECONDS the idle tail and BENCH_SOAK_SAMPLE_SECONDS the sampling period.
// BENCH_SOAK_SNAPSHOTS=DIR has every server thread write a heap snapshot into DIR (SIGUSR2 with the
// server's DICECHESS_HEAP_SNAPSHOT_DIR) at the early reading, at the end of the load and at the end of
// the idle tail: main-1, shard-0-1 and so on, in that order. A snapshot stops its thread for seconds,
// so the rows of such a run are not comparable with others'.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { projectFile } from '../src/paths.js';
import { LIFTED_CAPS_ENV, procRss, runLoadDriver, startServer, tempDir, type LoadSummary, type SpawnedServer } from './procs.js';
import { lineChart } from './svg-chart.js';
import type { BenchRow } from './types.js';

const PAIRS = 32;
const LOAD_S = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const IDLE_S = Number(process.env.BENCH_SOAK_IDLE_SECONDS ?? 60);
const SAMPLE_S = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? 10);
/** The early reading the end of the load is compared with: 2 minutes into a full run. */
const EARLY_S = LOAD_S >= 600 ? 120 : LOAD_S / 5;
const MB = 1024 * 1024;

export interface Sample {
  /** Seconds since the load started (negative: the fresh server before it). */
  t: number;
  phase: 'fresh' | 'load' | 'idle';
  rssAnonMb: number;
  rssFileMb: number;
  /** V8 heap in use by thread, MB. */
  heapMb: Record<string, number>;
  /** V8 heap reserved by thread, MB (what the heap holds of RssAnon). */
  heapTotalMb?: Record<string, number>;
  /** Main thread's Buffers and ArrayBuffers outside the heap, MB. */
  externalMb?: number;
  liveGames: number;
  cpuSeconds: number;
}

async function sample(server: SpawnedServer, t: number, phase: Sample['phase']): Promise<Sample> {
  const m = await server.metrics();
  const rss = procRss(readFileSync(`/proc/${server.pid}/status`, 'latin1'));
  const heapMb: Record<string, number> = {};
  const heapTotalMb: Record<string, number> = {};
  for (const [thread, bytes] of Object.entries(m.threadHeapUsedBytes)) heapMb[thread] = bytes / MB;
  for (const [thread, bytes] of Object.entries(m.threadHeapTotalBytes)) heapTotalMb[thread] = bytes / MB;
  return {
    t, phase, rssAnonMb: rss.anonMb, rssFileMb: rss.fileMb, heapMb, heapTotalMb, externalMb: m.externalBytes / MB,
    liveGames: m.liveGames, cpuSeconds: m.cpuSeconds,
  };
}

const heapText = (s: Sample): string =>
  Object.entries(s.heapMb).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ') || 'not reported';
const reservedText = (s: Sample): string =>
  Object.entries(s.heapTotalMb ?? {}).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ') || 'not reported';
const heapTotal = (s: Sample): number => Object.values(s.heapMb).reduce((a, b) => a + b, 0);

/** The load sample nearest `t` seconds. */
function at(samples: Sample[], t: number): Sample {
  const load = samples.filter((s) => s.phase === 'load');
  return load.reduce((best, s) => (Math.abs(s.t - t) < Math.abs(best.t - t) ? s : best), load[0]);
}

export function soakRows(samples: Sample[], summary: LoadSummary, load: number): BenchRow[] {
  const fresh = samples.find((s) => s.phase === 'fresh');
  const loadSamples = samples.filter((s) => s.phase === 'load');
  const idle = samples.filter((s) => s.phase === 'idle');
  if (!fresh || loadSamples.length === 0) throw new Error('soak: no samples');
  const early = at(samples, EARLY_S);
  const end = loadSamples[loadSamples.length - 1];
  const after = idle.length ? idle[idle.length - 1] : end;
  const peak = loadSamples.reduce((p, s) => (s.rssAnonMb > p.rssAnonMb ? s : p), loadSamples[0]);
  const bench = `soak ${PAIRS} pairs lmdb`;
  const cpu = end.cpuSeconds - loadSamples[0].cpuSeconds;
  const turnsInSamples = summary.turnsPerS * (end.t - loadSamples[0].t);
  return [
    {
      bench, metric: 'turns/s', value: summary.turnsPerS,
      note: `${LOAD_S} s of load, ${summary.turns} turns, ${summary.gamesCompleted} games; sampled every ${SAMPLE_S} s; ` +
        `${cpus().length} cores; 1-min load average ${load.toFixed(1)} at the start`,
    },
    {
      bench, metric: 'server CPU ms/turn', value: turnsInSamples > 0 ? (cpu * 1000) / turnsInSamples : 0,
      note: `whole process between the first and last load samples; verdict p50 ${summary.verdictMs.p50.toFixed(1)} ms, p99 ${summary.verdictMs.p99.toFixed(1)} ms`,
    },
    {
      bench, metric: `RssAnon MB at ${end.t.toFixed(0)} s`, value: end.rssAnonMb, baseline: early.rssAnonMb, baselineName: `at ${early.t.toFixed(0)} s`,
      note: `target: ratio ≤ 1.15 and value ≤ 300 MB; RssFile ${end.rssFileMb.toFixed(0)} MB (at ${early.t.toFixed(0)} s: ${early.rssFileMb.toFixed(0)}); ` +
        `V8 heap used MB: ${heapText(end)} (at ${early.t.toFixed(0)} s: ${heapText(early)}); ` +
        `reserved: ${reservedText(end)} (at ${early.t.toFixed(0)} s: ${reservedText(early)}); ${end.liveGames} live games`,
    },
    {
      bench, metric: 'RssAnon MB peak under load', value: peak.rssAnonMb, baseline: fresh.rssAnonMb, baselineName: 'fresh server',
      note: `at ${peak.t.toFixed(0)} s; V8 heap used then: ${heapTotal(peak).toFixed(0)} MB over all threads`,
    },
    {
      bench, metric: `RssAnon MB ${IDLE_S} s after the load`, value: after.rssAnonMb, baseline: fresh.rssAnonMb, baselineName: 'fresh server',
      note: `target: ratio ≤ 1.5; RssFile ${after.rssFileMb.toFixed(0)} MB (fresh ${fresh.rssFileMb.toFixed(0)}); ` +
        `V8 heap used MB: ${heapText(after)} (fresh: ${heapText(fresh)}); reserved: ${reservedText(after)} ` +
        `(fresh: ${reservedText(fresh)}); ${after.liveGames} live games`,
    },
  ];
}

function writeChart(samples: Sample[], load: number): string {
  const path = process.env.BENCH_SOAK_SVG ?? projectFile('docs', 'bench-soak.svg');
  const day = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const shown = samples.filter((s) => s.phase !== 'fresh');
  const svg = lineChart({
    title: `Server memory under ${PAIRS} pairs of play (LMDB), then idle`,
    subtitle: `${LOAD_S} s of load then ${IDLE_S} s idle, ${cpus().length} cores shared with the load driver (load average ${load.toFixed(1)}); ${day} UTC`,
    xLabel: `seconds since the load started (it stops at ${LOAD_S})`,
    xTicks: shown.map((s) => s.t.toFixed(0)),
    xLabelEvery: Math.max(1, Math.ceil(shown.length / 12)),
    left: { label: 'anonymous RSS (RssAnon)', unit: 'MB', values: shown.map((s) => s.rssAnonMb), colour: '#1f77b4' },
    right: { label: 'V8 heap used, all threads', unit: 'MB', values: shown.map(heapTotal), colour: '#d62728' },
  });
  writeFileSync(path, svg);
  return path;
}

/**
 * Waits (up to 2 minutes) until every thread's snapshot number `n` is in `dir` and has stopped
 * growing for 3 seconds: a thread writes its file as it walks its heap, and stopping the server
 * sooner would leave it cut short.
 */
async function snapshotsWritten(dir: string, n: number): Promise<void> {
  const threads = readdirSync(dir).filter((f) => f.endsWith('-1.heapsnapshot')).length;
  const sizes = (): number[] =>
    readdirSync(dir).filter((f) => f.endsWith(`-${n}.heapsnapshot`)).map((f) => statSync(join(dir, f)).size);
  let last = '';
  let stableSince = performance.now();
  const end = performance.now() + 120_000;
  while (performance.now() < end) {
    await new Promise((r) => setTimeout(r, 500));
    const now = sizes();
    const key = now.join(',');
    if (key !== last) [last, stableSince] = [key, performance.now()];
    else if (now.length >= threads && performance.now() - stableSince >= 3000) return;
  }
}

export async function run(): Promise<BenchRow[]> {
  const tmp = tempDir('dicechess-bench-soak-');
  const load = loadavg()[0];
  const snapshots = process.env.BENCH_SOAK_SNAPSHOTS;
  const env = snapshots ? { ...LIFTED_CAPS_ENV, DICECHESS_HEAP_SNAPSHOT_DIR: snapshots } : LIFTED_CAPS_ENV;
  const server = await startServer({ store: { dataDir: join(tmp.path, 'data') }, env });
  const snapshot = (): void => {
    if (snapshots) process.kill(server.pid, 'SIGUSR2');
  };
  const samples: Sample[] = [];
  let timer: NodeJS.Timeout | undefined;
  let early: NodeJS.Timeout | undefined;
  try {
    // The shards report their heap once a second: wait (up to 5 s) for a shard's first report.
    let fresh = await sample(server, -1, 'fresh');
    for (let i = 0; i < 20 && !Object.entries(fresh.heapMb).some(([k, v]) => k !== 'main' && v > 0); i++) {
      await new Promise((r) => setTimeout(r, 250));
      fresh = await sample(server, -1, 'fresh');
    }
    samples.push(fresh);
    let start = 0;
    const tick = (phase: Sample['phase']) => () =>
      void sample(server, (performance.now() - start) / 1000, phase).then((s) => samples.push(s), () => undefined);
    const summary = await runLoadDriver(server.url, PAIRS, LOAD_S * 1000, {
      onStart: () => {
        start = performance.now();
        tick('load')();
        timer = setInterval(tick('load'), SAMPLE_S * 1000);
        early = setTimeout(snapshot, EARLY_S * 1000 + 500);
      },
      onStop: () => {
        clearInterval(timer);
        tick('load')();
        setTimeout(snapshot, 500);
      },
    });
    if (!server.alive()) throw new Error(`the server died during the soak:\n${server.logTail()}`);
    const idleEnd = performance.now() + IDLE_S * 1000;
    timer = setInterval(tick('idle'), SAMPLE_S * 1000);
    await new Promise((r) => setTimeout(r, Math.max(0, idleEnd - performance.now())));
    clearInterval(timer);
    samples.push(await sample(server, (performance.now() - start) / 1000, 'idle'));
    snapshot();
    if (snapshots) await snapshotsWritten(snapshots, 3);
    samples.sort((a, b) => a.t - b.t);
    console.error(`soak: chart written to ${writeChart(samples, load)}`);
    if (process.env.BENCH_SOAK_JSON) writeFileSync(process.env.BENCH_SOAK_JSON, JSON.stringify(samples));
    return soakRows(samples, summary, load);
  } finally {
    clearInterval(timer);
    clearTimeout(early);
    await server.stop();
    tmp.remove();
  }
}
