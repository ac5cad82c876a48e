// The cost of a turn and the memory of a long run, against their targets, in one command:
// `node dist/bench/run.js targets` runs the throughput suite (8 and 32 pairs, the engine's tree+JSON
// per roll, a bare uWS POST), the soak (10 minutes at 32 pairs on LMDB, then 60 s idle) and the
// ladder (200 stream bots), prints every row of theirs, then one row per target: the measured value
// as `value`, the target as `baseline` (so a ratio ≤ 1.00x is a target met) and whether it is met.
// About 15 minutes; BENCH_SOAK_SECONDS shortens the soak for a try (its rows then say so).
import type { BenchRow } from './types.js';

export interface Target {
  measure: string;
  /** The row of a suite the figure is read from: its bench (prefix) and metric (prefix). */
  bench: string;
  metric: string;
  /** `ratio`: the row's value ÷ its baseline; `value`: the row's value. */
  read: 'ratio' | 'value';
  target: number;
  /** The figure must reach the target rather than stay under it. */
  atLeast?: boolean;
  unit: string;
}

export const TARGETS: Target[] = [
  { measure: 'server CPU per turn ÷ engine.tree+json per roll (32 pairs)', bench: 'throughput N=32', metric: 'server CPU µs/turn vs engine', read: 'ratio', target: 2.5, unit: 'x' },
  { measure: 'main-thread CPU per turn ÷ bare uWS CPU per POST', bench: 'throughput N=32', metric: 'main-thread CPU µs/turn vs bare uWS', read: 'ratio', target: 4, unit: 'x' },
  { measure: 'verdict p99 ÷ p50 at 32 pairs', bench: 'throughput N=32', metric: 'verdict p99 vs p50', read: 'ratio', target: 2.5, unit: 'x' },
  { measure: 'edge threads: edge CPU per turn ÷ bare uWS CPU per POST', bench: 'edge threads N=32', metric: 'edge CPU µs/turn vs bare uWS', read: 'ratio', target: 3, unit: 'x' },
  { measure: 'edge threads: server CPU per turn ÷ engine.tree+json per roll', bench: 'edge threads N=32', metric: 'server CPU µs/turn vs engine', read: 'ratio', target: 3, unit: 'x' },
  { measure: 'edge threads: turns/s with http.threads 2 ÷ 1', bench: 'edge threads N=32', metric: 'turns/s 2 threads vs 1', read: 'ratio', target: 0.9, unit: 'x', atLeast: true },
  { measure: 'edge threads: verdict p99 ÷ p50 at 32 pairs', bench: 'edge threads N=32', metric: 'verdict p99 vs p50', read: 'ratio', target: 2.5, unit: 'x' },
  { measure: 'edge threads: capacity of 16 cores, turns/s', bench: 'edge threads N=32', metric: 'capacity turns/s, 16 cores', read: 'value', target: 30_000, unit: 'turns/s', atLeast: true },
  { measure: 'RssAnon at the end of the soak ÷ at its early reading', bench: 'soak', metric: 'RssAnon MB at ', read: 'ratio', target: 1.15, unit: 'x' },
  { measure: 'RssAnon at the end of the soak', bench: 'soak', metric: 'RssAnon MB at ', read: 'value', target: 300, unit: 'MB' },
  { measure: 'RssAnon after the idle tail ÷ the fresh server', bench: 'soak', metric: 'RssAnon MB ', read: 'ratio', target: 1.5, unit: 'x' },
  { measure: 'ladder, 200 stream bots: peak RssAnon', bench: 'ladder', metric: 'server RssAnon MB, peak', read: 'value', target: 400, unit: 'MB' },
];

/** The idle-tail row and the end-of-load row share a prefix: the idle one says "after the load". */
function matches(row: BenchRow, t: Target): boolean {
  if (!row.bench.startsWith(t.bench) || !row.metric.startsWith(t.metric)) return false;
  const idle = row.metric.includes('after the load');
  return t.measure.includes('idle') ? idle : !idle;
}

/** One row per target, read from the suites' rows; a target whose row is missing says so. */
export function targetRows(rows: BenchRow[]): BenchRow[] {
  return TARGETS.map((t) => {
    const row = rows.find((r) => matches(r, t));
    if (!row) return { bench: 'targets', metric: t.measure, value: Number.NaN, note: `not measured (no ${t.bench} row "${t.metric}")` };
    const value = t.read === 'ratio' ? (row.baseline ? row.value / row.baseline : Number.NaN) : row.value;
    const met = t.atLeast ? value >= t.target : value <= t.target;
    const from = t.read === 'ratio' ? `${fmt(row.value)} ÷ ${fmt(row.baseline ?? Number.NaN)} (${row.baselineName ?? 'baseline'})` : `${fmt(row.value)} ${t.unit}`;
    return {
      bench: 'targets', metric: t.measure, value, baseline: t.target, baselineName: `target ${t.unit}`,
      note: `${met ? 'met' : 'NOT met'}: ${from}, from ${row.bench} / ${row.metric}`,
    };
  });
}

const fmt = (n: number): string => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : 2) : String(n));

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [name, load] of [
    ['throughput', () => import('./throughput.js')],
    ['soak', () => import('./soak.js')],
    ['ladder', () => import('./ladder-pairs.js')],
  ] as const) {
    console.error(`targets: running ${name}…`);
    rows.push(...(await (await load()).run()));
  }
  return [...rows, ...targetRows(rows)];
}
