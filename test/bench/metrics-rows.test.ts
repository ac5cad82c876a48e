// The throughput rows read per-thread CPU from the server's /metrics when it is there (a sharded
// server) and do without it otherwise; the rows must name each thread and the main-thread ceiling.
import t from 'tap';
import { cpuRows, threadMsPerTurn, type LoadResult } from '../../bench/load.js';
import { parseMetrics, procRss } from '../../bench/procs.js';
import type { LoadSummary } from '../../bench/procs.js';

const BASE = [
  '# HELP process_cpu_user_seconds_total x',
  'process_cpu_user_seconds_total 1.5',
  'process_cpu_system_seconds_total 0.5',
  'process_resident_memory_bytes 104857600',
  'nodejs_heap_size_used_bytes 2048',
  'dicechess_live_games 3',
].join('\n');

const threads = (main: number, s0: number, s1: number) =>
  `${BASE}\ndicechess_thread_cpu_seconds_total{thread="main"} ${main}\n` +
  `dicechess_thread_cpu_seconds_total{thread="shard-1"} ${s1}\ndicechess_thread_cpu_seconds_total{thread="shard-0"} ${s0}\n`;

function result(threadCpuMsPerTurn: Record<string, number>, shardMainUsPerTurn: Record<string, number> = {}): LoadResult {
  const summary = { driverCpuMsPerTurn: 0.25 } as LoadSummary;
  return { summary, cpuPct: 100, cpuMsPerTurn: 0.5, threadCpuMsPerTurn, shardMainUsPerTurn, rssStartMb: 1, rssEndMb: 1, rssPeakMb: 1, liveAfter: 0, serverWarnings: 0 };
}

t.test('parseMetrics reads the process figures, with or without per-thread CPU', async (t) => {
  const plain = parseMetrics(BASE);
  t.equal(plain.cpuSeconds, 2);
  t.equal(plain.rssBytes, 100 * 1024 * 1024);
  t.equal(plain.liveGames, 3);
  t.same(plain.threadCpuSeconds, {});
  t.same(parseMetrics(threads(1, 2, 3)).threadCpuSeconds, { main: 1, 'shard-0': 2, 'shard-1': 3 });
  t.throws(() => parseMetrics('process_cpu_user_seconds_total 1'), /process_cpu_system_seconds_total/);
  t.same(plain.shardMainSeconds, {});
  const parts = parseMetrics(`${BASE}\ndicechess_shard_main_seconds_total{part="dispatch"} 0.5\ndicechess_shard_main_seconds_total{part="apply"} 1.5\n`);
  t.same(parts.shardMainSeconds, { dispatch: 0.5, apply: 1.5 });
  t.same(plain.threadHeapUsedBytes, {});
  const heaps = parseMetrics(`${BASE}\ndicechess_thread_heap_bytes{thread="main",kind="used"} 1000\ndicechess_thread_heap_bytes{thread="main",kind="total"} 4000\n` +
    'dicechess_thread_heap_bytes{thread="shard-0",kind="used"} 2000\n');
  t.same(heaps.threadHeapUsedBytes, { main: 1000, 'shard-0': 2000 }, 'heap in use by thread; the reserved total is not mixed in');
  t.same(heaps.threadHeapTotalBytes, { main: 4000 }, 'the reserved heap by thread, apart');
  t.ok(Number.isNaN(plain.externalBytes), 'no external memory figure: NaN');
  t.equal(parseMetrics(`${BASE}\nnodejs_external_memory_bytes 777\n`).externalBytes, 777);
});

t.test('the main thread\'s shard work gets a row per part when reported', async (t) => {
  const rows = cpuRows('b', result({ main: 0.1 }, { dispatch: 12, apply: 30 }));
  t.same(rows.filter((r) => r.metric.startsWith('main ')).map((r) => [r.metric, r.value]), [['main dispatch µs/turn', 12], ['main apply µs/turn', 30]]);
  t.notOk(cpuRows('b', result({ main: 0.1 })).some((r) => r.metric.startsWith('main dispatch')), 'absent when not reported');
});

t.test('per-thread ms per turn and the rows built from them', async (t) => {
  const ms = threadMsPerTurn(parseMetrics(threads(1, 2, 3)), parseMetrics(threads(1.1, 2.5, 2)), 100);
  t.same(Object.keys(ms).sort(), ['main', 'shard-0'], 'a counter that went back (restarted shard) is left out');
  t.ok(Math.abs(ms.main - 1) < 1e-9, 'main: 0.1 s over 100 turns = 1 ms per turn');
  t.ok(Math.abs(ms['shard-0'] - 5) < 1e-9);
  t.same(threadMsPerTurn(parseMetrics(threads(1, 2, 3)), parseMetrics(threads(2, 3, 4)), 0), {}, 'no turns, no figures');

  const rows = cpuRows('b', result({ 'shard-0': 0.1, main: 0.05, 'shard-10': 0.1, 'shard-2': 0.1 }));
  t.same(rows.map((r) => r.metric), [
    'driver CPU ms/turn',
    'CPU ms/turn thread=main',
    'CPU ms/turn thread=shard-0',
    'CPU ms/turn thread=shard-2',
    'CPU ms/turn thread=shard-10',
    'main-thread ceiling turns/s',
  ]);
  t.equal(rows[rows.length - 1].value, 1000 / 0.05);
  t.equal(rows[0].value, 0.25);

  const without = cpuRows('b', result({}));
  t.same(without.map((r) => r.metric), ['driver CPU ms/turn'], 'no per-thread metric: only the driver row');
  const vs = cpuRows('b', result({ main: 0.1 }), result({ main: 0.2 }), 'N=8');
  t.equal(vs[1].baseline, 0.2);
  t.equal(vs[2].baseline, 5000, 'the ceiling has its baseline too');
  t.equal(vs[2].baselineName, 'N=8');
});

t.test('procRss reads anonymous and file-backed resident memory from /proc/PID/status', async (t) => {
  const status = 'Name:\tnode\nVmRSS:\t  300000 kB\nRssAnon:\t  204800 kB\nRssFile:\t   51200 kB\nRssShmem:\t       0 kB\n';
  t.same(procRss(status), { anonMb: 200, fileMb: 50 });
  const none = procRss('Name:\tnode\n');
  t.ok(Number.isNaN(none.anonMb) && Number.isNaN(none.fileMb), 'NaN when the fields are missing');
});

t.test('the soak rows compare RssAnon at the end with 2 minutes in, and after the load with the fresh server', async (t) => {
  const { soakRows } = await import('../../bench/soak.js');
  const s = (tS: number, phase: 'fresh' | 'load' | 'idle', anon: number) =>
    ({ t: tS, phase, rssAnonMb: anon, rssFileMb: 10, heapMb: { main: 20, 'shard-0': 10 }, liveGames: phase === 'load' ? 64 : 0, cpuSeconds: tS / 10 });
  const samples = [s(-1, 'fresh', 80), s(0, 'load', 90), s(110, 'load', 150), s(130, 'load', 200), s(600, 'load', 250), s(610, 'idle', 240), s(660, 'idle', 100)];
  const summary = { turnsPerS: 100, turns: 60_000, gamesCompleted: 10, verdictMs: { count: 1, p50: 1, p99: 2, max: 3 } } as LoadSummary;
  const rows = soakRows(samples, summary, 1);
  const row = (prefix: string) => rows.find((r) => r.metric.startsWith(prefix))!;
  t.same([row('RssAnon MB at').value, row('RssAnon MB at').baseline], [250, 150], 'the end of the load against the sample nearest 120 s');
  t.same([row('RssAnon MB peak').value, row('RssAnon MB peak').baseline], [250, 80]);
  t.same([row('RssAnon MB 60 s after').value, row('RssAnon MB 60 s after').baseline], [100, 80], 'the last idle sample against the fresh server');
  t.ok(Math.abs(row('server CPU ms/turn').value - 1) < 1e-9, '60 CPU seconds over 600 s at 100 turns/s: 1 ms a turn');
  t.throws(() => soakRows([s(-1, 'fresh', 80)], summary, 1), /no samples/);
});
