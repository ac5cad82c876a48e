// Webhook deliveries against streams: N bots each play house/random back to back, once by webhook
// (a receiver per bot on 127.0.0.1, the server in insecure-local mode) and once from their game
// streams, on a fresh server each, for N = 8 and 64. Reports turns (deliveries) per second, the
// per-turn cycle p50/p99 seen by the bot (see bench/webhook-driver.ts), and the server CPU per turn,
// each webhook figure against the stream figure of the same N.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LOAD_LIMITS, scrape, startServer, stopChild } from './procs.js';
import type { BenchRow } from './types.js';

const GAME_COUNTS = [8, 64];
const DURATION_MS = 15_000;

interface DriverSummary {
  mode: string;
  windowS: number;
  turns: number;
  turnsPerS: number;
  gamesStarted: number;
  cycleMs: { count: number; p50: number; p99: number };
  roundTripMs: { p50: number; p99: number };
  driverCpuPct: number;
  problems: Record<string, number>;
}

interface Measured {
  s: DriverSummary;
  cpuMsPerTurn: number;
  cpuPct: number;
  webhookP50?: string;
}

async function measure(mode: 'webhook' | 'stream', games: number): Promise<Measured> {
  const server = await startServer({
    store: 'memory',
    limits: { ...LOAD_LIMITS, registrationsPerHour: 1_000_000, webhookRegistrationsPerHour: 1_000_000 },
    env: { DICECHESS_WEBHOOKS_ALLOW_INSECURE_LOCAL_TARGETS: 'true' },
  });
  try {
    let cpu0 = 0;
    let cpu1 = 0;
    let t0 = 0;
    let t1 = 0;
    const child = fork(
      fileURLToPath(new URL('./webhook-driver.js', import.meta.url)),
      ['--url', server.url, '--games', String(games), '--duration-ms', String(DURATION_MS), '--mode', mode],
      { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
    );
    const marks: Promise<void>[] = [];
    child.on('message', (m: { event?: string }) => {
      if (m.event === 'start') marks.push(scrape(server.url).then((x) => void ((cpu0 = x.cpuSeconds), (t0 = performance.now()))));
      if (m.event === 'stop') marks.push(scrape(server.url).then((x) => void ((cpu1 = x.cpuSeconds), (t1 = performance.now()))));
    });
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
    const code = await new Promise<number | null>((r) => child.once('close', r));
    await Promise.all(marks);
    await stopChild(child);
    const last = out.trim().split('\n').pop() ?? '';
    if (code !== 0 || !last.startsWith('{')) throw new Error(`webhook driver failed (${code}): ${out.slice(-500)}`);
    const s = JSON.parse(last) as DriverSummary;
    const cpu = cpu1 - cpu0;
    let webhookP50: string | undefined;
    if (mode === 'webhook') {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const count = /dicechess_webhook_deliveries_total\{outcome="applied"\} (\d+)/.exec(text)?.[1];
      webhookP50 = `${count ?? '?'} applied deliveries (server count)`;
    }
    return { s, cpuMsPerTurn: s.turns ? (cpu * 1000) / s.turns : 0, cpuPct: (cpu / ((t1 - t0) / 1000)) * 100, webhookP50 };
  } finally {
    await server.stop();
  }
}

export async function run(): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  for (const n of GAME_COUNTS) {
    const stream = await measure('stream', n);
    const hook = await measure('webhook', n);
    const bench = `webhooks N=${n}`;
    const base = { baselineName: 'streams' };
    const probs = (m: Measured) => Object.entries(m.s.problems).map(([k, v]) => `${k} ×${v}`).join(', ');
    out.push(
      {
        bench, metric: 'deliveries/s', value: hook.s.turnsPerS, baseline: stream.s.turnsPerS, ...base,
        note: `${n} bots vs house/random, ${Math.round(hook.s.windowS)} s; ${hook.s.turns} deliveries, ${hook.s.gamesStarted} games; ` +
          `${hook.webhookP50}; streams: ${stream.s.turns} turns` + (probs(hook) || probs(stream) ? `; PROBLEMS: ${probs(hook)} ${probs(stream)}` : ''),
      },
      {
        bench, metric: 'delivery round trip p50 ms', value: hook.s.roundTripMs.p50,
        note: 'server-measured POST sent → answer read (whole ms; median over the bots of each bot’s p50)',
      },
      { bench, metric: 'delivery round trip p99 ms', value: hook.s.roundTripMs.p99, note: 'median over the bots of each bot’s p99' },
      { bench, metric: 'cycle p50 ms', value: hook.s.cycleMs.p50, baseline: stream.s.cycleMs.p50, ...base, note: 'bot answer → its next turn notice' },
      { bench, metric: 'cycle p99 ms', value: hook.s.cycleMs.p99, baseline: stream.s.cycleMs.p99, ...base },
      {
        bench, metric: 'server CPU ms/turn', value: hook.cpuMsPerTurn, baseline: stream.cpuMsPerTurn, ...base,
        note: `server at ${hook.cpuPct.toFixed(0)}% (webhooks) and ${stream.cpuPct.toFixed(0)}% (streams) of a core; ` +
          `driver ${hook.s.driverCpuPct.toFixed(0)}% / ${stream.s.driverCpuPct.toFixed(0)}%`,
      },
    );
  }
  return out;
}
