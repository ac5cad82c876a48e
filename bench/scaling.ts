// Throughput as concurrent games grow: the load of bench/throughput.ts (memory store, a fresh
// server per N) at 8, 32, 128 and 512 bot pairs, 10 seconds each, compared with N=8. Besides the
// table rows it writes a chart of turns/s and verdict p99 against N to docs/bench-scaling.svg
// (BENCH_SCALING_SVG=PATH writes it elsewhere; BENCH_SCALING_PAIRS=8,32 and BENCH_SCALING_MS=5000
// shorten a quick check). The caps a large N meets are lifted (LIFTED_CAPS_ENV) so the bench
// measures the server, not its limits.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { projectFile } from '../src/paths.js';
import { cpuRows, measureLoad, problemsOf, type LoadResult } from './load.js';
import { LIFTED_CAPS_ENV, startServer } from './procs.js';
import { lineChart } from './svg-chart.js';
import type { BenchRow } from './types.js';

const PAIR_COUNTS = (process.env.BENCH_SCALING_PAIRS ?? '8,32,128,512').split(',').map(Number);
const DURATION_MS = Number(process.env.BENCH_SCALING_MS ?? 10_000);

function rows(n: number, r: LoadResult, base: LoadResult | undefined, baseN: number, load: number): BenchRow[] {
  const s = r.summary;
  const bench = `scaling N=${n}`;
  const name = `N=${baseN}`;
  const vs = (value: number, baseline: number | undefined) => (base ? { value, baseline, baselineName: name } : { value });
  const problems = problemsOf(r);
  return [
    {
      bench, metric: 'turns/s', ...vs(s.turnsPerS, base?.summary.turnsPerS),
      note: `${n} pairs, ${s.windowS.toFixed(0)} s: ${s.turns} turns, ${s.gamesCompleted} games; 1-min load average ${load.toFixed(1)} at the start` +
        (problems ? `; PROBLEMS: ${problems}` : ''),
    },
    { bench, metric: 'verdict p99 ms', ...vs(s.verdictMs.p99, base?.summary.verdictMs.p99), note: `p50 ${s.verdictMs.p50.toFixed(1)} ms, max ${s.verdictMs.max.toFixed(0)} ms` },
    {
      bench, metric: 'server CPU ms/turn', ...vs(r.cpuMsPerTurn, base?.cpuMsPerTurn),
      note: `whole process; server at ${r.cpuPct.toFixed(0)}% of a core, driver at ${s.driverCpuPct.toFixed(0)}%`,
    },
    ...cpuRows(bench, r, base, name),
    { bench, metric: 'server RSS MB', ...vs(r.rssEndMb, base?.rssEndMb), note: `peak ${r.rssPeakMb.toFixed(0)} MB` },
  ];
}

function writeChart(results: [number, LoadResult][], load: number): string {
  const path = process.env.BENCH_SCALING_SVG ?? projectFile('docs', 'bench-scaling.svg');
  const day = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const svg = lineChart({
    title: 'Game throughput as concurrent games grow',
    subtitle: `memory store, ${DURATION_MS / 1000} s per point, ${cpus().length} cores shared with the load driver (load average ${load.toFixed(1)}); ${day} UTC`,
    xLabel: 'bot pairs playing at once (one game each; ×4 per step)',
    xTicks: results.map(([n]) => String(n)),
    left: { label: 'throughput', unit: 'turns/s', values: results.map(([, r]) => r.summary.turnsPerS), colour: '#1f77b4' },
    right: { label: 'verdict p99', unit: 'ms', values: results.map(([, r]) => r.summary.verdictMs.p99), colour: '#d62728' },
  });
  writeFileSync(path, svg);
  return path;
}

export async function run(): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  const results: [number, LoadResult][] = [];
  const loadAtStart = loadavg()[0];
  for (const n of PAIR_COUNTS) {
    const load = loadavg()[0];
    const server = await startServer({ store: 'memory', env: LIFTED_CAPS_ENV });
    try {
      const r = await measureLoad(server, n, DURATION_MS);
      const problems = problemsOf(r);
      if (problems) console.error(`scaling N=${n}: ${problems}\n  ${r.summary.problemSamples.join('\n  ')}`);
      out.push(...rows(n, r, results[0]?.[1], PAIR_COUNTS[0], load));
      results.push([n, r]);
    } finally {
      await server.stop();
    }
  }
  const path = writeChart(results, loadAtStart);
  console.error(`scaling: chart written to ${path}`);
  return out;
}
