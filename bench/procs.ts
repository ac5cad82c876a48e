// Child processes of the server benchmarks: our server (the compiled CLI), the bare uWS baseline and
// the load driver. Every child is registered here and killed when the bench ends: by stop() in the
// caller's finally, and, whatever happens, when the bench process exits or is interrupted.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;

const live = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let hooked = false;

function killAll(): void {
  for (const c of live) c.kill('SIGKILL');
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
}

/** A temporary directory, removed by the caller or, failing that, when the bench process exits. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  hook();
  const path = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(path);
  return {
    path,
    remove: () => {
      tempDirs.delete(path);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  hook();
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      killAll();
      process.exit(128 + constants.signals[sig]);
    });
  }
}

const exited = (c: ChildProcess): boolean => c.exitCode !== null || c.signalCode !== null;

/** SIGTERM, then SIGKILL after a grace period; resolves once the child is gone. */
export async function stopChild(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<void> {
  if (exited(child)) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
}

/** Keeps the last lines a child printed (for error messages) and counts pino warnings and errors. */
class LogTail {
  private lines: string[] = [];
  private partial = '';
  warnings = 0;
  constructor(private readonly onLine?: (line: string) => void) {}
  push(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      if (/"level":(4|5|6)\d/.test(line) || (line.length > 0 && !line.startsWith('{'))) this.warnings++;
      this.lines.push(line);
      if (this.lines.length > 40) this.lines.shift();
      this.onLine?.(line);
    }
  }
  text(): string {
    return [...this.lines, this.partial].filter(Boolean).join('\n');
  }
}

export interface ServerMetrics {
  cpuSeconds: number;
  rssBytes: number;
  liveGames: number;
  /** V8 heap in use (main thread), NaN when absent. */
  heapUsedBytes: number;
  /**
   * CPU seconds by thread ('main', 'shard-0', …) from `dicechess_thread_cpu_seconds_total`, when the
   * server reports it (a sharded server does; an older one does not: then empty).
   */
  threadCpuSeconds: Record<string, number>;
  /** Main-thread seconds spent on the shards, by part ('dispatch', 'apply'), when reported. */
  shardMainSeconds: Record<string, number>;
  /** V8 heap in use by thread ('main', 'shard-0', …) from `dicechess_thread_heap_bytes`, when reported. */
  threadHeapUsedBytes: Record<string, number>;
  /** V8 heap reserved by thread (`kind="total"`), when reported. */
  threadHeapTotalBytes: Record<string, number>;
  /** Main thread's memory outside the V8 heap held by JS objects (Buffers, ArrayBuffers), NaN when absent. */
  externalBytes: number;
}

const SHARD_MAIN = /^dicechess_shard_main_seconds_total\{(?:[^}]*,)?part="([^"]+)"[^}]*\} (\S+)/;
const THREAD_HEAP = /^dicechess_thread_heap_bytes\{thread="([^"]+)",kind="(used|total)"\} (\S+)/;
const THREAD_CPU = /^dicechess_thread_cpu_seconds_total\{(?:[^}]*,)?thread="([^"]+)"[^}]*\} (\S+)/;

export interface ServerChild {
  readonly url: string;
  readonly pid: number;
  /** Lines the server logged at warn level or above, or outside pino, since it started listening. */
  warnings(): number;
  logTail(): string;
  /** True while the process runs (a crash under load is a finding). */
  alive(): boolean;
  metrics(): Promise<ServerMetrics>;
  stop(): Promise<void>;
}

/** A server child this module spawned, which can also be killed as a crash would. */
export interface SpawnedServer extends ServerChild {
  /** SIGKILL: nothing is flushed or closed (the data directory stays). */
  kill(): Promise<void>;
  /** SIGTERM and wait up to `graceMs` for a clean exit (then SIGKILL); says how it ended. */
  terminate(graceMs: number): Promise<{ ms: number; clean: boolean }>;
}

export interface ServerOptions {
  /** `memory` for --memory; otherwise an LMDB data directory (--data). */
  store: 'memory' | { dataDir: string };
  /**
   * The `limits` section of the config file. Default: the load's bots are all minted, challenge
   * and stream from 127.0.0.1, so the per-address limits are lifted (the abuse suite keeps them).
   */
  limits?: Record<string, unknown>;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Other sections of the config file (e.g. `spectators`, `games`), beside `limits`. */
  config?: Record<string, unknown>;
  /** How long to wait for "listening on" (resuming many live games takes a while). */
  startTimeoutMs?: number;
}

/**
 * Environment that lifts the per-identity and whole-server caps a large load meets (streams per
 * identity, live games per anonymous bot and in all, challenges per hour, connections per address),
 * for the suites that measure the server at scale rather than its limits (scaling, streams, idle-games).
 */
export const LIFTED_CAPS_ENV: Record<string, string> = {
  DICECHESS_CONNECTIONS_PER_IP: '1000000',
  DICECHESS_STREAMS_PER_IDENTITY: '100000',
  DICECHESS_LIVE_GAMES_ANONYMOUS: '1000000',
  DICECHESS_MAX_LIVE_GAMES: '1000000',
  DICECHESS_CHALLENGES_PER_HOUR: '100000000',
};

export const LOAD_LIMITS = { anonMintsPerHour: 1_000_000, challengesPerHour: 1_000_000, connectionsPerIp: 1_000_000 };

/** The `node` options `make run` (and docs/OPERATIONS.md) start the server with: a young generation of 4 MB semi-spaces. */
export const SERVER_NODE_ARGS = '--max-semi-space-size=4';

/**
 * glibc's allocator settings `make run` starts the server with (its SERVER_MALLOC_ENV): freed memory
 * handed back to the system (a fixed 128 KiB trim and mmap threshold instead of thresholds that
 * grow after each large free, after which glibc keeps up to 64 MiB per arena). A variable already in
 * the environment wins; BENCH_SERVER_MALLOC=glibc leaves both out, to measure glibc's defaults.
 */
export const SERVER_MALLOC_ENV: Record<string, string> = {
  MALLOC_TRIM_THRESHOLD_: '131072',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

/**
 * Starts `dicechess serve` from the same build as this file on 127.0.0.1, port 0, with the
 * benchmark settings: no seed grace, no house-move delay, and the per-address limits lifted (config file).
 * BENCH_CPU_PROF=DIR runs it under `node --cpu-prof` (profiles land in DIR when it stops);
 * its `node` command line carries SERVER_NODE_ARGS, the options docs/OPERATIONS.md runs the server with, or
 * BENCH_SERVER_NODE_ARGS instead when set (space-separated; empty: none); its environment carries
 * SERVER_MALLOC_ENV unless BENCH_SERVER_MALLOC=glibc.
 */
export async function startServer(opts: ServerOptions): Promise<SpawnedServer> {
  const cli = fileURLToPath(new URL('../src/cli.js', import.meta.url));
  const cfgDir = tempDir('dicechess-bench-cfg-');
  const cfg = join(cfgDir.path, 'bench.json');
  writeFileSync(cfg, JSON.stringify({ ...opts.config, limits: opts.limits ?? LOAD_LIMITS }));
  const storeArgs = opts.store === 'memory' ? ['--memory'] : ['--data', opts.store.dataDir];
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? SERVER_NODE_ARGS).split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...nodeArgs, ...prof, cli, 'serve', '--host', HOST, '--port', '0', ...storeArgs, '--config', cfg],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...(process.env.BENCH_SERVER_MALLOC === 'glibc' ? {} : SERVER_MALLOC_ENV),
        ...process.env,
        DICECHESS_SEED_GRACE_MS: '0',
        DICECHESS_HOUSE_MOVE_DELAY_MS: '0',
        // info, not warn: the "listening on" line is logged at info. Nothing on the request path
        // logs at info, so this costs nothing under load.
        DICECHESS_LOG_LEVEL: 'info',
        ...opts.env,
      },
    },
  );
  track(child);
  let listening: ((url: string) => void) | undefined;
  const urlSeen = new Promise<string>((resolve) => (listening = resolve));
  const tail = new LogTail((line) => {
    const m = /"msg":"listening on (http:\/\/[^"]+)"/.exec(line);
    if (m) listening?.(m[1]);
  });
  child.stdout.setEncoding('utf8').on('data', (s: string) => tail.push(s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => tail.push(s));
  const cleanup = () => cfgDir.remove();
  let url: string;
  try {
    url = await within(opts.startTimeoutMs ?? START_TIMEOUT_MS, urlSeen, child, () => `server did not start:\n${tail.text()}`);
  } catch (e) {
    await stopChild(child);
    cleanup();
    throw e;
  }
  const warningsAtStart = tail.warnings;
  return {
    url,
    pid: child.pid ?? -1,
    warnings: () => tail.warnings - warningsAtStart,
    logTail: () => tail.text(),
    alive: () => !exited(child),
    metrics: () => scrape(url),
    stop: async () => {
      await stopChild(child);
      cleanup();
    },
    terminate: async (graceMs) => {
      const t0 = performance.now();
      await stopChild(child, graceMs);
      cleanup();
      return { ms: performance.now() - t0, clean: child.signalCode === null };
    },
    kill: async () => {
      if (!exited(child)) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await gone;
      }
      cleanup();
    },
  };
}

/** Waits for `p`, failing after `ms` or as soon as the child exits. */
function within<T>(ms: number, p: Promise<T>, child: ChildProcess, why: () => string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const fail = (extra: string) => {
      clearTimeout(timer);
      reject(new Error(`${why()}\n(${extra})`));
    };
    const onExit = (code: number | null, sig: string | null) => fail(`exited with ${code ?? sig}`);
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      fail(`no answer within ${ms} ms`);
    }, ms);
    child.once('exit', onExit);
    p.then(
      (v) => {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve(v);
      },
      (e: unknown) => fail(String(e)),
    );
  });
}

/** RssAnon and RssFile (kB in the file) of a process (the text of /proc/PID/status), in MB; NaN when /proc does not say. */
export function procRss(status: string): { anonMb: number; fileMb: number } {
  const kb = (key: string): number => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) / 1024 : Number.NaN;
  };
  return { anonMb: kb('RssAnon'), fileMb: kb('RssFile') };
}

/** The few prom-client default metrics (whole process: every thread) we use. */
export async function scrape(url: string): Promise<ServerMetrics> {
  const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  return parseMetrics(await res.text());
}

/** Reads ServerMetrics from a Prometheus text exposition; throws when a required metric is missing. */
export function parseMetrics(text: string): ServerMetrics {
  const values = new Map<string, number>();
  const threadCpuSeconds: Record<string, number> = {};
  const shardMainSeconds: Record<string, number> = {};
  const threadHeapUsedBytes: Record<string, number> = {};
  const threadHeapTotalBytes: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line) continue;
    const part = SHARD_MAIN.exec(line);
    if (part) {
      const v = Number(part[2]);
      if (Number.isFinite(v)) shardMainSeconds[part[1]] = v;
      continue;
    }
    const heap = THREAD_HEAP.exec(line);
    if (heap) {
      const v = Number(heap[3]);
      if (Number.isFinite(v)) (heap[2] === 'used' ? threadHeapUsedBytes : threadHeapTotalBytes)[heap[1]] = v;
      continue;
    }
    const thread = THREAD_CPU.exec(line);
    if (thread) {
      const v = Number(thread[2]);
      if (Number.isFinite(v)) threadCpuSeconds[thread[1]] = v;
      continue;
    }
    const [name, value] = line.split(' ');
    if (name && !name.includes('{')) values.set(name, Number(value));
  }
  const get = (name: string): number => {
    const v = values.get(name);
    if (v === undefined || !Number.isFinite(v)) throw new Error(`/metrics has no ${name}`);
    return v;
  };
  return {
    cpuSeconds: get('process_cpu_user_seconds_total') + get('process_cpu_system_seconds_total'),
    rssBytes: get('process_resident_memory_bytes'),
    liveGames: get('dicechess_live_games'),
    heapUsedBytes: values.get('nodejs_heap_size_used_bytes') ?? Number.NaN,
    threadCpuSeconds,
    shardMainSeconds,
    threadHeapUsedBytes,
    threadHeapTotalBytes,
    externalBytes: values.get('nodejs_external_memory_bytes') ?? Number.NaN,
  };
}

// ---------------------------------------------------------------------------------------------
// The bare uWS baseline.

export interface BareRoute {
  body: string;
  headers: [string, string][];
  /** 'post': the route answers POST once the request body is read (default: GET). */
  method?: 'post';
}

export interface BareChild {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Starts bench/bare-uws.js answering each path with the given bytes and headers. */
export async function startBare(routes: Record<string, BareRoute>): Promise<BareChild> {
  const child = fork(fileURLToPath(new URL('./bare-uws.js', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  track(child);
  const port = new Promise<number>((resolve) => {
    child.on('message', (m: { port?: number }) => {
      if (typeof m.port === 'number') resolve(m.port);
    });
  });
  child.send({ routes });
  try {
    const p = await within(START_TIMEOUT_MS, port, child, () => 'bare uWS did not start');
    return { url: `http://${HOST}:${p}`, pid: child.pid ?? -1, stop: () => stopChild(child) };
  } catch (e) {
    await stopChild(child);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// The load driver.

/** What bench/load-driver.js prints as its last stdout line. */
export interface LoadSummary {
  pairs: number;
  windowS: number;
  turns: number;
  turnsPerS: number;
  moves: number;
  movesPerS: number;
  passes: number;
  gamesStarted: number;
  gamesCompleted: number;
  gamesPerS: number;
  gamesResignedAtEnd: number;
  gamesUnfinished: number;
  verdictMs: { count: number; p50: number; p99: number; max: number };
  /** Verdict statuses received inside the window. */
  statuses: Record<string, number>;
  verdictsAfterWindow: number;
  /** The driver's own CPU over the window, % of one core (near 100: the driver is the bottleneck). */
  driverCpuPct: number;
  /** The driver's own CPU over the window per turn played, in ms. */
  driverCpuMsPerTurn: number;
  problems: Record<string, number>;
  problemSamples: string[];
}

export interface LoadHooks {
  /** The driver has its bots and starts playing (the measurement window opens). */
  onStart?: () => void | Promise<void>;
  /** The window closed; the driver is resigning what is still running. */
  onStop?: () => void | Promise<void>;
}

/** BENCH_DRIVER_PROF=DIR runs a driver child under `node --cpu-prof` (profiles land in DIR). */
export function driverProfArgs(): string[] {
  const dir = process.env.BENCH_DRIVER_PROF;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

/** Forks a driver script of this directory (e.g. 'stream-driver.js'), tracked like every child here. */
export function forkDriver(script: string, args: string[]): ChildProcess {
  const child = fork(fileURLToPath(new URL(`./${script}`, import.meta.url)), args, {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    execArgv: driverProfArgs(),
  });
  track(child);
  return child;
}

/**
 * Runs the load driver against `url` (several nodes: comma-separated); resolves with its summary once
 * it has exited. `extraArgs` go to the driver as they are (e.g. `--register PREFIX`).
 */
export async function runLoadDriver(url: string, pairs: number, durationMs: number, hooks: LoadHooks = {}, extraArgs: string[] = []): Promise<LoadSummary> {
  const child = fork(
    fileURLToPath(new URL('./load-driver.js', import.meta.url)),
    ['--url', url, '--pairs', String(pairs), '--duration-ms', String(durationMs), ...extraArgs],
    { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], execArgv: driverProfArgs() },
  );
  track(child);
  const pending: Promise<void>[] = [];
  let hookError: unknown;
  const call = (hook: (() => void | Promise<void>) | undefined) => {
    if (!hook) return;
    pending.push(Promise.resolve().then(hook).catch((e: unknown) => void (hookError ??= e)));
  };
  child.on('message', (m: { event?: string }) => call(m.event === 'start' ? hooks.onStart : m.event === 'stop' ? hooks.onStop : undefined));
  let out = '';
  const err = new LogTail();
  child.stdout?.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr?.setEncoding('utf8').on('data', (s: string) => err.push(s));
  // 'close', not 'exit': stdout is fully read by then.
  const done = new Promise<number | null>((resolve) => child.once('close', (code: number | null) => resolve(code)));
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, durationMs + 30_000);
  try {
    const code = await done;
    if (hung) throw new Error(`load driver hung (killed after ${durationMs + 30_000} ms):\n${err.text()}`);
    await Promise.all(pending);
    if (hookError) throw hookError;
    const last = out.trim().split('\n').pop() ?? '';
    if (code !== 0 || !last.startsWith('{')) throw new Error(`load driver failed (exit ${code}):\n${err.text()}\n${out.slice(-2000)}`);
    return JSON.parse(last) as LoadSummary;
  } finally {
    clearTimeout(timer);
    await stopChild(child);
  }
}
