// Edge threads against one thread (issue 31, stage D), part of the throughput suite: the same load
// (32 pairs, 15 s) on a fresh --memory server with `http.threads` 1, then 2, each thread's CPU read
// from /proc/PID/task/TID/stat over the driver's window (bench/thread-cpu.ts: main, the edge threads,
// the shards, V8's and libuv's helpers). Prints the ratios of issue 31 against baselines of the same
// run: edge CPU per turn ÷ a bare uWS app's CPU per POST, server CPU per turn ÷ engine.tree+json per
// roll, turns/s with 2 threads ÷ with 1, verdict p99 ÷ p50, and the capacity of a K-core machine from
// the per-thread costs (capacityOf; docs/CAPACITY.md says what it assumes).
import { loadavg } from 'node:os';
import { measureLoad, type LoadResult } from './load.js';
import { startServer } from './procs.js';
import { msPerTurn, readThreadCpu, type ThreadCpu, type ThreadGroup } from './thread-cpu.js';
import type { BenchRow } from './types.js';

const PAIRS = 32;
const DURATION_MS = 15_000;

export type Costs = Record<ThreadGroup, number>;

/**
 * Turns/s a machine of `cores` cores sustains at these CPU costs per turn (ms): main is one thread,
 * so it caps the rate at 1000 / main; everything else (edge threads, shards, helpers) spreads over
 * the cores, so the whole cost caps it at 1000 × cores / total.
 */
export function capacityOf(c: Costs, cores: number): { turnsPerS: number; bound: 'main' | 'cores' } {
  const total = c.main + c.edge + c.shard + c.other;
  const byMain = c.main > 0 ? 1000 / c.main : Infinity;
  const byCores = total > 0 ? (1000 * cores) / total : Infinity;
  return byMain < byCores ? { turnsPerS: byMain, bound: 'main' } : { turnsPerS: byCores, bound: 'cores' };
}

interface Measured {
  readonly r: LoadResult;
  readonly costs: Costs;
  readonly load: number;
}

async function measure(threads: number): Promise<Measured> {
  const load = loadavg()[0];
  const server = await startServer({ store: 'memory', env: { DICECHESS_HTTP_THREADS: String(threads) } });
  let a: ThreadCpu | undefined;
  let b: ThreadCpu | undefined;
  try {
    const r = await measureLoad(server, PAIRS, DURATION_MS, {
      onStart: () => void (a = readThreadCpu(server.pid)),
      onStop: () => void (b = readThreadCpu(server.pid)),
    });
    if (!a || !b) throw new Error('no /proc readings');
    return { r, costs: msPerTurn(a, b, r.summary.turns), load };
  } finally {
    await server.stop();
  }
}

const verdict = (met: boolean): string => (met ? 'met' : 'NOT met');

/** The rows; `engineUs` and `bareUs` are the baselines the throughput suite measured in this run. */
export async function edgeThreadRows(engineUs: number, bareUs: number | undefined): Promise<BenchRow[]> {
  const one = await measure(1);
  const two = await measure(2);
  const bench = `edge threads N=${PAIRS}`;
  const rows: BenchRow[] = [];
  for (const [n, m] of [[1, one], [2, two]] as const) {
    const c = m.costs;
    rows.push({
      bench, metric: `http.threads ${n}: turns/s`, value: m.r.summary.turnsPerS,
      note: `${m.r.summary.turns} turns in ${Math.round(m.r.summary.windowS)} s; CPU ms/turn main ${c.main.toFixed(3)}, edge ${c.edge.toFixed(3)}, shard ${c.shard.toFixed(3)}, other ${c.other.toFixed(3)} (/proc, per thread); load ${m.load.toFixed(1)} at the start`,
    });
  }
  const ratio = two.r.summary.turnsPerS / one.r.summary.turnsPerS;
  rows.push({ bench, metric: 'turns/s 2 threads vs 1', value: two.r.summary.turnsPerS, baseline: one.r.summary.turnsPerS, baselineName: 'http.threads 1', note: `target ≥ 0.9x: ${verdict(ratio >= 0.9)}` });
  const c = two.costs;
  if (bareUs !== undefined) {
    const edgeUs = c.edge * 1000;
    rows.push({ bench, metric: 'edge CPU µs/turn vs bare uWS', value: edgeUs, baseline: bareUs, baselineName: 'bare uWS µs/POST', note: `target ≤ 3x: ${verdict(edgeUs / bareUs <= 3)}; both edge threads together, http.threads 2` });
  }
  const serverUs = (c.main + c.edge + c.shard + c.other) * 1000;
  rows.push({ bench, metric: 'server CPU µs/turn vs engine', value: serverUs, baseline: engineUs, baselineName: 'engine.tree+json µs/roll', note: `target ≤ 3x: ${verdict(serverUs / engineUs <= 3)}; every thread, http.threads 2` });
  const v = two.r.summary.verdictMs;
  rows.push({ bench, metric: 'verdict p99 vs p50 ms', value: v.p99, baseline: v.p50, baselineName: 'p50', note: `target ≤ 2.5x: ${verdict(v.p99 / v.p50 <= 2.5)}; http.threads 2` });
  for (const k of [2, 4, 8, 16]) {
    const cap = capacityOf(c, k);
    rows.push({
      bench, metric: `capacity turns/s, ${k} cores`, value: cap.turnsPerS,
      note: `from the per-thread costs with http.threads 2; bound by ${cap.bound === 'main' ? 'the main thread (1000 / main ms per turn)' : 'the cores (1000 × K / all threads\' ms per turn)'}` +
        (k === 16 ? `; target ≥ 30,000: ${verdict(cap.turnsPerS >= 30_000)}` : ''),
    });
  }
  return rows;
}
