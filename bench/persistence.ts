// What persistence costs end to end: the same load (bench/load-driver.ts, fixed pairs and time)
// against the server with LMDB in a temporary directory and against the server with --memory, in
// the same run. Every game actor awaits its LMDB write before publishing a roll or a turn, so this
// is where a slow store would show up for a bot.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cpuRows, measureLoad, problemsOf, type LoadResult } from './load.js';
import { startServer, tempDir, type ServerOptions } from './procs.js';
import type { BenchRow } from './types.js';

const PAIRS = 16;
const DURATION_MS = 10_000;

async function measure(store: ServerOptions['store']): Promise<LoadResult> {
  const server = await startServer({ store });
  try {
    const r = await measureLoad(server, PAIRS, DURATION_MS);
    const problems = problemsOf(r);
    if (problems) {
      const name = store === 'memory' ? 'memory' : 'lmdb';
      console.error(`persistence ${name}: ${problems}\n  ${r.summary.problemSamples.join('\n  ')}`);
    }
    return r;
  } finally {
    await server.stop();
  }
}

/** Bytes of every file under `dir`. */
export function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

export async function run(): Promise<BenchRow[]> {
  const tmp = tempDir('dicechess-bench-persistence-');
  const dir = tmp.path;
  try {
    const memory = await measure('memory');
    const lmdb = await measure({ dataDir: join(dir, 'data') });
    const disk = dirBytes(dir) / (1024 * 1024);
    const vs = { baselineName: 'memory' };
    const bench = 'persistence lmdb';
    const m = memory.summary;
    const l = lmdb.summary;
    const problems = [problemsOf(lmdb), problemsOf(memory)].filter(Boolean).join('; ');
    return [
      {
        bench, metric: 'moves/s', value: l.movesPerS, baseline: m.movesPerS, ...vs,
        note: `${PAIRS} pairs, ${DURATION_MS / 1000} s each; applied move verdicts; ` +
          `${l.gamesCompleted} vs ${m.gamesCompleted} games${problems ? `; PROBLEMS: ${problems}` : ''}`,
      },
      { bench, metric: 'turns/s', value: l.turnsPerS, baseline: m.turnsPerS, ...vs, note: 'forced passes included' },
      { bench, metric: 'verdict p50 ms', value: l.verdictMs.p50, baseline: m.verdictMs.p50, ...vs },
      { bench, metric: 'verdict p99 ms', value: l.verdictMs.p99, baseline: m.verdictMs.p99, ...vs },
      { bench, metric: 'server CPU ms/turn', value: lmdb.cpuMsPerTurn, baseline: memory.cpuMsPerTurn, ...vs },
      ...cpuRows(bench, lmdb, memory, 'memory'),
      {
        bench, metric: 'server RSS MB', value: lmdb.rssEndMb, baseline: memory.rssEndMb, ...vs,
        note: `data directory after the run: ${disk.toFixed(1)} MB (${l.gamesStarted} games)`,
      },
    ];
  } finally {
    tmp.remove();
  }
}
