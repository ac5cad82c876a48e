// One measured load run: the load driver against a running server child, with the server's CPU and
// memory read from its /metrics around the driver's measurement window. Shared by the throughput
// and persistence suites.
import type { BenchRow } from './types.js';
import { runLoadDriver, type LoadHooks, type LoadSummary, type ServerChild, type ServerMetrics } from './procs.js';

export interface LoadResult {
  summary: LoadSummary;
  /** Server CPU (user + system, all threads) over the window, in % of one core. */
  cpuPct: number;
  /** Server CPU milliseconds per turn played (passes included). */
  cpuMsPerTurn: number;
  /**
   * CPU milliseconds per turn by server thread ('main', 'shard-0', …), when the server reports
   * per-thread CPU (empty otherwise). Threads seen only at one end of the window are left out.
   */
  threadCpuMsPerTurn: Record<string, number>;
  /** Main-thread µs per turn spent on the shards, by part (dispatch, apply), when reported. */
  shardMainUsPerTurn: Record<string, number>;
  rssStartMb: number;
  rssEndMb: number;
  rssPeakMb: number;
  /** Live games on the server once the driver is done (it resigns what runs at the end: expect 0). */
  liveAfter: number;
  /** Warnings and errors the server logged during the run. */
  serverWarnings: number;
}

const MB = 1024 * 1024;
const SAMPLE_MS = 1000;

/** `window`: called as the measurement window opens and closes (bench/edge-threads.ts reads /proc then). */
export async function measureLoad(server: ServerChild, pairs: number, durationMs: number, window?: LoadHooks): Promise<LoadResult> {
  let m0: ServerMetrics | undefined;
  let m1: ServerMetrics | undefined;
  let t0 = 0;
  let t1 = 0;
  let peak = 0;
  let sampler: NodeJS.Timeout | undefined;
  const warningsBefore = server.warnings();
  const read = async (): Promise<[ServerMetrics, number]> => {
    const before = performance.now();
    const m = await server.metrics();
    peak = Math.max(peak, m.rssBytes);
    return [m, (before + performance.now()) / 2];
  };
  let summary: LoadSummary;
  try {
    summary = await runLoadDriver(server.url, pairs, durationMs, {
      onStart: async () => {
        [m0, t0] = await read();
        await window?.onStart?.();
        sampler = setInterval(() => void read().catch(() => undefined), SAMPLE_MS);
      },
      onStop: async () => {
        clearInterval(sampler);
        await window?.onStop?.();
        [m1, t1] = await read();
      },
    });
  } finally {
    clearInterval(sampler);
  }
  if (!server.alive()) throw new Error(`the server died during the load run:\n${server.logTail()}`);
  if (!m0 || !m1) throw new Error('the load driver never opened or closed its window');
  const after = await server.metrics();
  const cpu = m1.cpuSeconds - m0.cpuSeconds;
  const threadCpuMsPerTurn = threadMsPerTurn(m0, m1, summary.turns);
  const shardMainUsPerTurn: Record<string, number> = {};
  for (const [part, end] of Object.entries(m1.shardMainSeconds)) {
    const start = m0.shardMainSeconds[part];
    if (start !== undefined && summary.turns) shardMainUsPerTurn[part] = ((end - start) * 1e6) / summary.turns;
  }
  return {
    summary,
    cpuPct: (cpu / ((t1 - t0) / 1000)) * 100,
    cpuMsPerTurn: summary.turns ? (cpu * 1000) / summary.turns : 0,
    threadCpuMsPerTurn,
    shardMainUsPerTurn,
    rssStartMb: m0.rssBytes / MB,
    rssEndMb: m1.rssBytes / MB,
    rssPeakMb: peak / MB,
    liveAfter: after.liveGames,
    serverWarnings: server.warnings() - warningsBefore,
  };
}

/**
 * CPU ms per turn of each server thread between two scrapes. A thread seen at only one end, or whose
 * counter went back (a restarted shard), is left out; no turns, no figures.
 */
export function threadMsPerTurn(m0: ServerMetrics, m1: ServerMetrics, turns: number): Record<string, number> {
  const out: Record<string, number> = {};
  if (!turns) return out;
  for (const [thread, end] of Object.entries(m1.threadCpuSeconds)) {
    const start = m0.threadCpuSeconds[thread];
    if (start !== undefined && end >= start) out[thread] = ((end - start) * 1000) / turns;
  }
  return out;
}

/** Short text naming whatever went wrong in a run (empty when nothing did), for notes and stderr. */
export function problemsOf(r: LoadResult): string {
  const out: string[] = [];
  for (const [k, n] of Object.entries(r.summary.problems)) out.push(`${k} ×${n}`);
  if (r.liveAfter > 0) out.push(`${r.liveAfter} games still live after the run`);
  if (r.serverWarnings > 0) out.push(`server logged ${r.serverWarnings} warnings/errors`);
  return out.join('; ');
}

/** Thread names in a stable order: main first, then shards by number, then anything else. */
function threadOrder(a: string, b: string): number {
  const rank = (t: string) => (t === 'main' ? -1 : Number(/^shard-(\d+)$/.exec(t)?.[1] ?? 1e6));
  return rank(a) - rank(b) || a.localeCompare(b);
}

/**
 * The CPU rows of a load run: the driver's CPU per turn beside the server's and, when the server
 * reports per-thread CPU, each thread's CPU per turn and the ceiling the main thread sets
 * (1000 / its ms per turn: the turns/s a machine with enough cores for the shards could reach).
 * `vs` adds the baseline run's figure to each row.
 */
export function cpuRows(bench: string, r: LoadResult, base?: LoadResult, baselineName?: string): BenchRow[] {
  const vs = (value: number, baseline: number | undefined): Pick<BenchRow, 'value' | 'baseline' | 'baselineName'> =>
    base && baseline !== undefined ? { value, baseline, baselineName } : { value };
  const rows: BenchRow[] = [
    {
      bench, metric: 'driver CPU ms/turn', ...vs(r.summary.driverCpuMsPerTurn, base?.summary.driverCpuMsPerTurn),
      note: `the load driver's own CPU (user+sys) over the window; server ${r.cpuMsPerTurn.toFixed(3)} ms/turn`,
    },
  ];
  const threads = Object.keys(r.threadCpuMsPerTurn).sort(threadOrder);
  for (const t of threads) {
    rows.push({ bench, metric: `CPU ms/turn thread=${t}`, ...vs(r.threadCpuMsPerTurn[t], base?.threadCpuMsPerTurn[t]) });
  }
  for (const [part, what] of [['dispatch', 'packing, posting and unpacking shard batches'], ['apply', 'applying replies: mirrors, stream fan-out']] as const) {
    const us = r.shardMainUsPerTurn[part];
    if (us !== undefined) rows.push({ bench, metric: `main ${part} µs/turn`, ...vs(us, base?.shardMainUsPerTurn[part]), note: `main-thread wall time ${what} (preemption included)` });
  }
  const main = r.threadCpuMsPerTurn.main;
  if (main !== undefined && main > 0) {
    const baseMain = base?.threadCpuMsPerTurn.main;
    rows.push({
      bench, metric: 'main-thread ceiling turns/s', ...vs(1000 / main, baseMain ? 1000 / baseMain : undefined),
      note: `1000 / main-thread CPU ms per turn; threads: ${threads.join(', ')}`,
    });
  }
  return rows;
}
