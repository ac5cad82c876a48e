// Every benchmark module exports `run(): Promise<BenchRow[]>`; bench/run.ts prints them as one table.
export interface BenchRow {
  /** Which benchmark, e.g. 'engine.tree'. */
  bench: string;
  /** What was measured, e.g. 'rolls/s' or 'p99 µs'. */
  metric: string;
  value: number;
  /** Same metric for the baseline run in the same process or run, when there is one. */
  baseline?: number;
  /** Name of the baseline (e.g. 'chessops', 'bare uWS'). */
  baselineName?: string;
  /** Free-text note (largest tree, corpus size, …). */
  note?: string;
}
