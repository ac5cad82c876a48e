// HTTP read path: autocannon (in this process) against GET /games/{id} and GET /games/{id}/moves of
// a live game on our server (memory store, child process), and against a bare uWebSockets.js app
// (another child process) answering the same paths with the same bytes and headers. The ratio
// ours/bare is what routing, the game lookup and encoding the body cost on top of uWS itself.
//
// Both servers get one core each at most (the server's HTTP runs on its main thread) and autocannon
// is one thread too: on a 2-core machine the client and the server compete, so the bare baseline
// may be bounded by the client. The CPU columns in the notes say which side ran out.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { startBare, startServer, type BareChild, type BareRoute, type ServerChild } from './procs.js';
import type { BenchRow } from './types.js';

const DURATION_S = 4;
const WARMUP_S = 1;
const CONNECTIONS = 50;
const PIPELINING = [1, 10];
/** Headers uWS writes itself; everything else our server sends is copied to the baseline. */
const UWS_OWN_HEADERS = new Set(['date', 'uwebsockets', 'content-length', 'connection', 'keep-alive', 'transfer-encoding']);

interface Run {
  rps: number;
  p50: number;
  p99: number;
  /** Server process CPU over the run, % of one core (undefined off Linux). */
  serverCpu?: number;
  /** This process (autocannon) CPU over the run, % of one core. */
  clientCpu: number;
  bad: number;
}

// Linux: a child's CPU time from /proc, so both servers are measured the same way.
let clockTicks = 0;
function procCpuSeconds(pid: number): number | undefined {
  try {
    clockTicks ||= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks; // utime, stime (fields 14, 15)
  } catch {
    return undefined;
  }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))];
}

/** One autocannon run; latencies are collected per response (autocannon's histogram rounds to ms). */
async function cannon(url: string, pipelining: number, seconds: number, pid?: number): Promise<Run> {
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  const cpu0 = pid === undefined ? undefined : procCpuSeconds(pid);
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const instance = autocannon({ url, connections: CONNECTIONS, pipelining, duration: seconds, timeout: 5 });
  instance.on('response', (_c: unknown, status: number, _bytes: number, ms: number) => {
    if (status !== 200) return;
    if (n === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[n++] = ms;
  });
  const result = await instance;
  const wall = (performance.now() - t0) / 1000;
  const cpu1 = pid === undefined ? undefined : procCpuSeconds(pid);
  const client = process.cpuUsage(client0);
  const sorted = latencies.subarray(0, n).sort();
  return {
    rps: n / result.duration,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    serverCpu: cpu0 === undefined || cpu1 === undefined ? undefined : ((cpu1 - cpu0) / wall) * 100,
    clientCpu: ((client.user + client.system) / 1e6 / wall) * 100,
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

async function call(url: string, method: string, path: string, token?: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as unknown;
}

/** Two anonymous bots, a challenge accepted: a live game with White's opening roll pending. */
async function liveGame(url: string): Promise<string> {
  const a = (await call(url, 'POST', '/bot/anon?name=bench-a')) as { token: string };
  const b = (await call(url, 'POST', '/bot/anon?name=bench-b')) as { token: string; team: string; name: string };
  const ch = (await call(url, 'POST', '/bot/challenge', a.token, { team: b.team, name: b.name })) as { id: string };
  const { gameId } = (await call(url, 'POST', `/bot/challenge/${ch.id}/accept`, b.token)) as { gameId: string };
  for (let i = 0; i < 100; i++) {
    const st = (await call(url, 'GET', `/games/${gameId}`)) as { dicePending: boolean };
    if (st.dicePending) return gameId;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the opening roll never came');
}

/** Our server's exact answer to GET path: the bytes and headers the baseline will send. */
async function capture(url: string, path: string): Promise<BareRoute> {
  const res = await fetch(url + path, { signal: AbortSignal.timeout(5000) });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${body}`);
  const headers: [string, string][] = [];
  res.headers.forEach((v, k) => {
    if (!UWS_OWN_HEADERS.has(k)) headers.push([k, v]);
  });
  return { body, headers };
}

function leaves(tree: unknown): number {
  if (!tree || typeof tree !== 'object') return 0;
  const kids = Object.values(tree as Record<string, unknown>);
  return kids.length === 0 ? 1 : kids.reduce<number>((s, k) => s + leaves(k), 0);
}

export async function run(): Promise<BenchRow[]> {
  let ours: ServerChild | undefined;
  let bare: BareChild | undefined;
  try {
    ours = await startServer({ store: 'memory' });
    const gameId = await liveGame(ours.url);
    const endpoints = [
      { label: 'GET /games/{id}', path: `/games/${gameId}` },
      { label: 'GET /games/{id}/moves', path: `/games/${gameId}/moves` },
    ];
    const routes: Record<string, BareRoute> = {};
    for (const e of endpoints) routes[e.path] = await capture(ours.url, e.path);
    const before = (await call(ours.url, 'GET', endpoints[0].path)) as { version: number; legalMoves: unknown };
    bare = await startBare(routes);
    const rows: BenchRow[] = [];
    for (const e of endpoints) {
      await cannon(ours.url + e.path, 1, WARMUP_S);
      await cannon(bare.url + e.path, 1, WARMUP_S);
      const size = Buffer.byteLength(routes[e.path].body);
      for (const p of PIPELINING) {
        const o = await cannon(ours.url + e.path, p, DURATION_S, ours.pid);
        const b = await cannon(bare.url + e.path, p, DURATION_S, bare.pid);
        const bench = `http ${e.label}`;
        const shape = `${CONNECTIONS} conn × ${p}`;
        const cpu = (r: Run) => `server ${r.serverCpu?.toFixed(0) ?? '?'}% / autocannon ${r.clientCpu.toFixed(0)}% CPU`;
        const bad = o.bad + b.bad ? `; PROBLEMS: ${o.bad} bad answers from ours, ${b.bad} from bare` : '';
        rows.push(
          {
            bench, metric: `req/s, ${shape}`, value: o.rps, baseline: b.rps, baselineName: 'bare uWS',
            note: `${size} B body, same bytes and headers from both; ours: ${cpu(o)}; bare: ${cpu(b)}${bad}`,
          },
          { bench, metric: `p50 ms, ${shape}`, value: o.p50, baseline: b.p50, baselineName: 'bare uWS' },
          { bench, metric: `p99 ms, ${shape}`, value: o.p99, baseline: b.p99, baselineName: 'bare uWS' },
        );
      }
    }
    const after = (await call(ours.url, 'GET', endpoints[0].path)) as { version: number };
    if (after.version !== before.version) throw new Error(`the game moved during the benchmark (v${before.version} → v${after.version})`);
    const inline = before.legalMoves === null ? 'null inline tree (over the cap)' : `inline tree of ${leaves(before.legalMoves)} leaves`;
    rows[0].note += `; opening roll pending, ${inline}`;
    if (!ours.alive()) throw new Error(`our server died:\n${ours.logTail()}`);
    if (ours.warnings() > 0) console.error(`http: the server logged ${ours.warnings()} warnings/errors:\n${ours.logTail()}`);
    return rows;
  } finally {
    await bare?.stop();
    await ours?.stop();
  }
}
