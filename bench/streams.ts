// 10,000 ndjson streams held while 32 pairs play (bench/stream-driver.ts does the client side):
// event delivery time and what the held streams cost the server, against a baseline phase of the
// same play without them, in the same server. Memory store; the caps on streams, spectators and
// live games lifted so the server, not its limits, is measured. BENCH_STREAMS=N and
// BENCH_STREAMS_MS=MS shorten a quick check.
import { loadavg } from 'node:os';
import { runPhased } from './phased.js';
import { LIFTED_CAPS_ENV, startServer, type ServerMetrics } from './procs.js';
import type { PhaseResult, StreamSummary as Summary } from './stream-driver.js';
import type { BenchRow } from './types.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
const PAIRS = 32;
const DURATION_MS = Number(process.env.BENCH_STREAMS_MS ?? 10_000);
const SPECTATORS = 4;
const ACCOUNT_STREAMS = 40;
const MB = 1024 * 1024;

/** Spectator caps have no environment variable: the config file lifts them. */
const CONFIG = { spectators: { maxPerGame: 100_000, maxTotal: 1_000_000 } };

/**
 * Four rows per event kind: p50 and p99 from the event's first sign (lower bound of publish →
 * subscriber) and from the request's send (upper bound), each against the phase without the held streams.
 */
function deliveryRows(
  bench: string, kind: string, h: PhaseResult['turnDelivery'], b: PhaseResult['turnDelivery'], who: string, request: string,
): BenchRow[] {
  const vs = { baselineName: 'without' };
  return [
    {
      bench, metric: `${kind} delivery p50 ms (from first sign)`, value: h.fromFirst.p50, baseline: b.fromFirst.p50, ...vs,
      note: `${who}; from the first sign of the event on the driver (the answer to ${request} or the first copy) to each copy: ` +
        `a lower bound of publish → subscriber; ${h.fromFirst.count} copies`,
    },
    { bench, metric: `${kind} delivery p99 ms (from first sign)`, value: h.fromFirst.p99, baseline: b.fromFirst.p99, ...vs, note: `max ${h.fromFirst.max.toFixed(0)} ms` },
    {
      bench, metric: `${kind} delivery p50 ms (from request)`, value: h.fromSent.p50, baseline: b.fromSent.p50, ...vs,
      note: `from ${request} being sent to each copy: an upper bound (the request's own trip and handling included)`,
    },
    { bench, metric: `${kind} delivery p99 ms (from request)`, value: h.fromSent.p99, baseline: b.fromSent.p99, ...vs, note: `max ${h.fromSent.max.toFixed(0)} ms` },
  ];
}

export async function run(): Promise<BenchRow[]> {
  const load = loadavg()[0];
  const server = await startServer({ store: 'memory', env: LIFTED_CAPS_ENV, config: CONFIG });
  const at: Record<string, ServerMetrics> = {};
  let summary: Summary;
  try {
    summary = await runPhased<Summary>(
      'stream-driver.js',
      ['--url', server.url, '--pairs', String(PAIRS), '--streams', String(STREAMS), '--duration-ms', String(DURATION_MS),
        '--spectators', String(SPECTATORS), '--account-streams', String(ACCOUNT_STREAMS)],
      4 * DURATION_MS + 180_000,
      async (m) => {
        at[m.phase] = await server.metrics();
      },
    );
    if (!server.alive()) throw new Error(`the server died during the streams run:\n${server.logTail()}`);
  } finally {
    await server.stop();
  }
  const cpuMsPerTurn = (label: string, turns: number) =>
    turns ? ((at[`${label}-stop`].cpuSeconds - at[`${label}-start`].cpuSeconds) * 1000) / turns : 0;
  const b = summary.baseline;
  const h = summary.held;
  const bench = `streams ${STREAMS.toLocaleString('en-US')}`;
  const vs = { baselineName: 'without' };
  const problems = Object.entries(summary.problems).map(([k, n]) => `${k} ×${n}`);
  if (summary.closedEarly) problems.push(`${summary.closedEarly} held streams closed by the server`);
  if (problems.length) console.error(`streams: ${problems.join('; ')}\n  ${summary.problemSamples.join('\n  ')}`);
  const rssBefore = at['idle-before'].rssBytes;
  const rssHeld = at['idle-held'].rssBytes;
  const kbPerStream = summary.heldStreams ? (rssHeld - rssBefore) / 1024 / summary.heldStreams : 0;
  return [
    {
      bench, metric: 'streams held', value: summary.heldStreams + 2 * PAIRS + PAIRS * SPECTATORS,
      note: `${h.accountStreams} account streams (${ACCOUNT_STREAMS} per playing bot), ${summary.idleGameStreams} game streams on ` +
        `${Math.ceil(summary.idleGameStreams / 100)} idle games (half public, half authenticated), ${2 * PAIRS} players' game streams, ` +
        `${SPECTATORS} spectators per playing game; ${summary.idleStillOpenAtEnd} idle ones still open at the end; ` +
        `1-min load average ${load.toFixed(1)} at the start${problems.length ? `; PROBLEMS: ${problems.join('; ')}` : ''}`,
    },
    ...deliveryRows(bench, 'TurnPlayed', h.turnDelivery, b.turnDelivery,
      `${PAIRS} pairs, ${SPECTATORS} public spectators per playing game`, 'the mover’s POST'),
    ...deliveryRows(bench, 'GameStart', h.gameStartDelivery, b.gameStartDelivery,
      `account streams of the playing bots (${ACCOUNT_STREAMS} each; 1 each without)`, 'the accept POST'),
    { bench, metric: 'turns/s', value: h.play.turnsPerS, baseline: b.play.turnsPerS, ...vs, note: `verdict p99 ${h.play.verdictMs.p99.toFixed(1)} ms (${b.play.verdictMs.p99.toFixed(1)} without)` },
    { bench, metric: 'server CPU ms/turn', value: cpuMsPerTurn('held', h.play.turns), baseline: cpuMsPerTurn('baseline', b.play.turns), ...vs },
    {
      bench, metric: 'server RSS MB', value: rssHeld / MB, baseline: rssBefore / MB, baselineName: 'before opening them',
      note: `${kbPerStream.toFixed(1)} KB per held stream; ${(at['held-stop'].rssBytes / MB).toFixed(0)} MB at the end of play`,
    },
    {
      bench, metric: 'driver loop delay p99 ms', value: h.loopDelayP99Ms, baseline: b.loopDelayP99Ms, ...vs,
      note: `the driver's own event-loop delay while playing (part of every delivery time); driver CPU ${h.driverCpuPct.toFixed(0)}% (${b.driverCpuPct.toFixed(0)}% without)`,
    },
  ];
}
