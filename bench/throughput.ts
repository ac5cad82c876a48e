// Game throughput: the server (memory store) in one child process, the load driver
// (bench/load-driver.ts) in another, N bot pairs playing complete games over HTTP as fast as they
// can for a fixed time, for a few N. Reports turns and games per second, the move-verdict latency
// seen by the bots, and the server's CPU and memory from its /metrics. Each N after the first is
// compared with the first: the ratio says how the server scales with concurrent games.
import { loadavg } from 'node:os';
import { treeJsonCpuUsPerRoll } from './engine.js';
import { Tally, cannon } from './http.js';
import { edgeThreadRows } from './edge-threads.js';
import { cpuRows, measureLoad, problemsOf, type LoadResult } from './load.js';
import { startBare, startServer } from './procs.js';
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

/**
 * The bare uWS floor of a move: CPU µs per POST answered by bench/bare-uws.ts (its process, from
 * /proc) with a verdict-sized body, 64 connections (one per bot at 32 pairs), two 2-second segments
 * after a 1-second warm-up.
 */
async function barePostCpuUs(): Promise<number | undefined> {
  const path = '/bot/game/g/move';
  const bare = await startBare({
    [path]: { method: 'post', body: '{"applied":true,"version":12,"reason":null}', headers: [['content-type', 'application/json']] },
  });
  try {
    const request = { method: 'POST', connections: 64, headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: '{"moves":["e2e4","g1f3"]}' };
    await cannon(new Tally(), bare.url + path, 1, 1, undefined, request);
    const t = new Tally();
    for (let i = 0; i < 2; i++) await cannon(t, bare.url + path, 1, 2, bare.pid, request);
    return t.result().cpuUsPerReq;
  } finally {
    await bare.stop();
  }
}

/** The issue's ratio targets for the largest N, each against its baseline measured in this run. */
async function targetRows(n: number, r: LoadResult, engineUs: number, bareUs: number | undefined): Promise<BenchRow[]> {
  const bench = `throughput N=${n}`;
  const main = r.threadCpuMsPerTurn.main;
  const rows: BenchRow[] = [
    {
      bench, metric: 'server CPU µs/turn vs engine', value: r.cpuMsPerTurn * 1000, baseline: engineUs, baselineName: 'engine.tree+json µs/roll',
      note: 'target ≤ 2.5x: whole server per turn against the tree and its JSON per roll (corpus of bench/engine.ts), CPU of each, same run',
    },
    {
      bench, metric: 'verdict p99 vs p50 ms', value: r.summary.verdictMs.p99, baseline: r.summary.verdictMs.p50, baselineName: 'p50',
      note: 'target ≤ 2.5x',
    },
  ];
  if (main !== undefined && bareUs !== undefined) {
    rows.push({
      bench, metric: 'main-thread CPU µs/turn vs bare uWS', value: main * 1000, baseline: bareUs, baselineName: 'bare uWS µs/POST',
      note: 'target ≤ 4x: main thread per turn against a bare uWS app answering a POST (verdict-sized body, 64 connections), same run',
    });
  }
  return rows;
}

export async function run(): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  let first: LoadResult | undefined;
  let last: LoadResult | undefined;
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
      if (n === PAIR_COUNTS[PAIR_COUNTS.length - 1]) last = r;
      first ??= r;
    } finally {
      await server.stop();
    }
  }
  const engineUs = treeJsonCpuUsPerRoll();
  const bareUs = await barePostCpuUs();
  if (last) out.push(...(await targetRows(PAIR_COUNTS[PAIR_COUNTS.length - 1], last, engineUs, bareUs)));
  out.push(...(await edgeThreadRows(engineUs, bareUs)));
  return out;
}
