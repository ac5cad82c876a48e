// Game throughput: the server (memory store) in one child process, the load driver
// (bench/load-driver.ts) in another, N bot pairs playing complete games over HTTP as fast as they
// can for a fixed time, for a few N. Reports turns and games per second, the move-verdict latency
// seen by the bots, and the server's CPU and memory from its /metrics. Each N after the first is
// compared with the first: the ratio says how the server scales with concurrent games.
import { loadavg } from 'node:os';
import { cpuRows, measureLoad, problemsOf, type LoadResult } from './load.js';
import { startServer } from './procs.js';
import type { BenchRow } from './types.js';

const PAIR_COUNTS = [8, 32];
const DURATION_MS = 15_000;

function rows(n: number, r: LoadResult, base: LoadResult | undefined, baseN: number): BenchRow[] {
  const s = r.summary;
  const bench = `throughput N=${n}`;
  const vs = (value: number, baseline: number | undefined) =>
    base ? { value, baseline, baselineName: `N=${baseN}` } : { value };
  const b = base?.summary;
  const statuses = Object.entries(s.statuses).map(([k, v]) => `${v}×${k}`).join(', ');
  const problems = problemsOf(r);
  return [
    {
      bench, metric: 'turns/s', ...vs(s.turnsPerS, b?.turnsPerS),
      note: `${n} pairs, ${Math.round(s.windowS)} s: ${s.turns} turns (${s.passes} forced passes), ${s.gamesCompleted} games; ` +
        `verdicts ${statuses || 'none'}${problems ? `; PROBLEMS: ${problems}` : ''}`,
    },
    { bench, metric: 'games/s', ...vs(s.gamesPerS, b?.gamesPerS), note: `${s.gamesResignedAtEnd} running games resigned at the end` },
    { bench, metric: 'verdict p50 ms', ...vs(s.verdictMs.p50, b?.verdictMs.p50), note: 'POST move → verdict, seen by the bot' },
    { bench, metric: 'verdict p99 ms', ...vs(s.verdictMs.p99, b?.verdictMs.p99), note: `max ${s.verdictMs.max.toFixed(1)} ms` },
    {
      bench, metric: 'server CPU % of a core', ...vs(r.cpuPct, base?.cpuPct),
      note: `user+sys, every thread of the server (main, game shards, V8 and libuv helpers); the load driver used ${s.driverCpuPct.toFixed(0)}% of a core`,
    },
    { bench, metric: 'server CPU ms/turn', ...vs(r.cpuMsPerTurn, base?.cpuMsPerTurn), note: 'whole process, every thread' },
    ...cpuRows(bench, r, base, `N=${baseN}`),
    {
      bench, metric: 'server RSS MB', ...vs(r.rssEndMb, base?.rssEndMb),
      note: `at the end of the window; ${r.rssStartMb.toFixed(0)} MB at its start, peak ${r.rssPeakMb.toFixed(0)} MB`,
    },
  ];
}

export async function run(): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  let first: LoadResult | undefined;
  for (const n of PAIR_COUNTS) {
    // A fresh server per N, so memory and JIT state do not carry over from the previous N.
    const load = loadavg()[0];
    const server = await startServer({ store: 'memory' });
    try {
      const r = await measureLoad(server, n, DURATION_MS);
      const problems = problemsOf(r);
      if (problems) console.error(`throughput N=${n}: ${problems}\n  ${r.summary.problemSamples.join('\n  ')}`);
      const rs = rows(n, r, first, PAIR_COUNTS[0]);
      rs[0].note += `; 1-min load average ${load.toFixed(1)} at the start`;
      out.push(...rs);
      first ??= r;
    } finally {
      await server.stop();
    }
  }
  return out;
}
