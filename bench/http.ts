// HTTP read path: autocannon (in this process) against GET /games/{id} and GET /games/{id}/moves of
// a live game on our server (memory store, child process), and against a bare uWebSockets.js app
// (another child process) answering the same paths with the same bytes and headers. The ratio
// ours/bare is what routing, the game lookup and encoding the body cost on top of uWS itself.
//
// Both servers get one core each at most (the server's HTTP runs on its main thread) and autocannon
// is one thread too: on a 2-core machine the client and the server compete, so req/s may be bounded
// by the client on both sides. Server CPU per request does not depend on that, so it gets a row;
// the notes give both sides' CPU.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import autocannon, { type Options } from 'autocannon';
import { startBare, startServer, type BareChild, type BareRoute, type ServerChild } from './procs.js';
import type { BenchRow } from './types.js';

/** Each side runs two segments of this many seconds per path and pipelining (ABBA). */
const SEGMENT_S = 2;
const WARMUP_S = 1;
const CONNECTIONS = 50;
const PIPELINING = [1, 10];
const GAMES_TO_PICK_FROM = 7;
/** Headers uWS writes itself; everything else our server sends is copied to the baseline. */
const UWS_OWN_HEADERS = new Set(['date', 'uwebsockets', 'content-length', 'connection', 'keep-alive', 'transfer-encoding']);

/** Pooled measurements of one target over its segments. */
export class Tally {
  latencies = new Float64Array(1 << 16);
  n = 0;
  seconds = 0;
  wall = 0;
  serverCpu: number | undefined = 0;
  clientCpu = 0;
  bad = 0;
  add(ms: number): void {
    if (this.n === this.latencies.length) {
      const grown = new Float64Array(this.latencies.length * 2);
      grown.set(this.latencies);
      this.latencies = grown;
    }
    this.latencies[this.n++] = ms;
  }
  result(): Run {
    const sorted = this.latencies.subarray(0, this.n).sort();
    return {
      rps: this.n / this.seconds,
      cpuUsPerReq: this.serverCpu === undefined ? undefined : (this.serverCpu * 1e6) / this.n,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      serverCpu: this.serverCpu === undefined ? undefined : (this.serverCpu / this.wall) * 100,
      clientCpu: (this.clientCpu / this.wall) * 100,
      bad: this.bad,
    };
  }
}

export interface Run {
  rps: number;
  /** Server CPU per answered request, µs: unlike req/s, this does not depend on the client keeping up. */
  cpuUsPerReq?: number;
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

/** One autocannon segment into `t`; latencies are taken per response (autocannon's histogram rounds to ms). */
export async function cannon(
  t: Tally, url: string, pipelining: number, seconds: number, pid?: number, request: Pick<Options, 'method' | 'headers' | 'body' | 'connections'> = {},
): Promise<void> {
  const cpu0 = pid === undefined ? undefined : procCpuSeconds(pid);
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const instance = autocannon({ url, connections: CONNECTIONS, pipelining, duration: seconds, timeout: 5, ...request });
  instance.on('response', (_c: unknown, status: number, _bytes: number, ms: number) => {
    if (status === 200) t.add(ms);
  });
  const result = await instance;
  const cpu1 = pid === undefined ? undefined : procCpuSeconds(pid);
  const client = process.cpuUsage(client0);
  t.wall += (performance.now() - t0) / 1000;
  t.seconds += result.duration;
  t.serverCpu = cpu0 === undefined || cpu1 === undefined || t.serverCpu === undefined ? undefined : t.serverCpu + cpu1 - cpu0;
  t.clientCpu += (client.user + client.system) / 1e6;
  t.bad += result.non2xx + result.errors + result.timeouts;
}

/**
 * Ours and bare on one path, in ABBA order (ours, bare, bare, ours), pooled: whatever else the
 * machine is doing meanwhile weighs on both sides alike.
 */
async function compare(ours: { url: string; pid: number }, bare: { url: string; pid: number }, path: string, pipelining: number): Promise<[Run, Run]> {
  const o = new Tally();
  const b = new Tally();
  for (const [t, target] of [[o, ours], [b, bare], [b, bare], [o, ours]] as const) {
    await cannon(t, target.url + path, pipelining, SEGMENT_S, target.pid);
  }
  return [o.result(), b.result()];
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
async function liveGame(url: string, i: number): Promise<{ gameId: string; bytes: number }> {
  const a = (await call(url, 'POST', `/bot/anon?name=bench-w${i}`)) as { token: string };
  const b = (await call(url, 'POST', `/bot/anon?name=bench-b${i}`)) as { token: string; team: string; name: string };
  const ch = (await call(url, 'POST', '/bot/challenge', a.token, { team: b.team, name: b.name })) as { id: string };
  const { gameId } = (await call(url, 'POST', `/bot/challenge/${ch.id}/accept`, b.token)) as { gameId: string };
  for (let k = 0; k < 100; k++) {
    const res = await fetch(`${url}/games/${gameId}`, { signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    if ((JSON.parse(text) as { dicePending: boolean }).dicePending) return { gameId, bytes: Buffer.byteLength(text) };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the opening roll never came');
}

/**
 * The opening roll decides the size of the tree, hence of both bodies: of a few live games, the one
 * with the median GET /games/{id} body, so runs measure comparable bodies.
 */
async function typicalGame(url: string): Promise<string> {
  const games = [];
  for (let i = 0; i < GAMES_TO_PICK_FROM; i++) games.push(await liveGame(url, i));
  games.sort((x, y) => x.bytes - y.bytes);
  return games[Math.floor(games.length / 2)].gameId;
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
    const load = loadavg()[0];
    ours = await startServer({ store: 'memory' });
    const gameId = await typicalGame(ours.url);
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
      await cannon(new Tally(), ours.url + e.path, 1, WARMUP_S);
      await cannon(new Tally(), bare.url + e.path, 1, WARMUP_S);
      const size = Buffer.byteLength(routes[e.path].body);
      for (const p of PIPELINING) {
        const [o, b] = await compare(ours, bare, e.path, p);
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
        if (o.cpuUsPerReq !== undefined && b.cpuUsPerReq !== undefined) {
          rows.push({
            bench, metric: `server CPU µs/req, ${shape}`, value: o.cpuUsPerReq, baseline: b.cpuUsPerReq, baselineName: 'bare uWS',
            note: 'process CPU (user+sys, from /proc) per answered request',
          });
        }
      }
    }
    const after = (await call(ours.url, 'GET', endpoints[0].path)) as { version: number };
    if (after.version !== before.version) throw new Error(`the game moved during the benchmark (v${before.version} → v${after.version})`);
    const inline = before.legalMoves === null ? 'null inline tree (over the cap)' : `inline tree of ${leaves(before.legalMoves)} leaves`;
    rows[0].note += `; opening roll pending, ${inline}; 1-min load average ${load.toFixed(1)} at the start`;
    if (!ours.alive()) throw new Error(`our server died:\n${ours.logTail()}`);
    if (ours.warnings() > 0) console.error(`http: the server logged ${ours.warnings()} warnings/errors:\n${ours.logTail()}`);
    return rows;
  } finally {
    await bare?.stop();
    await ours?.stop();
  }
}
