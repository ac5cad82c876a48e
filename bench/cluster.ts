// The cluster on this machine: three nats-server processes (one JetStream cluster) and 1, 2 and 3
// `dicechess serve --cluster` nodes, the load driver (bench/load-driver.ts) playing games with its
// pairs spread over the nodes (each bot registered on one node, its game streamed from one node and
// its moves posted to another: bench/pair-play.ts). Per configuration: turns/s, the verdict
// latency the bots see, and the CPU per turn of each node and of the three nats-servers together,
// read from /proc/PID/stat around the driver's window. Two comparisons in the same run: one
// machine without NATS (LMDB) against one node, and the game log kept in one copy (replicas 1)
// against three, which is what a replicated log append adds to a verdict.
//
// Everything listens on 127.0.0.1; every process started here is stopped by its PID. A fresh NATS
// cluster per configuration, so no lease or game of the previous one is in the way.
//
// This machine has 2 cores: the nodes, the three nats-servers and the load driver all compete for
// them, so adding nodes here adds no cores; the figures to scale from are the CPU per turn.
//
// Knobs (environment): BENCH_CLUSTER_MS window per configuration (15000), BENCH_CLUSTER_PAIRS bot
// pairs (16), BENCH_CLUSTER_NODES node counts with replicas 3 ("1,2,3"), BENCH_CLUSTER_R1_NODES
// node counts also run with replicas 1 ("1"; empty: none), BENCH_CLUSTER_VIA_A=0 skips the run of
// three nodes where every request goes to node a (the other two only own shards and keep replicas:
// it tells a node's own per-turn work from its HTTP work), BENCH_CLUSTER_SINGLE=0 skips the
// one-machine baseline, BENCH_CLUSTER_LOG=0 skips the cluster-log suite's rows (the append alone, R3
// against R1: what a replicated append adds to a verdict, with far less noise than a whole verdict
// on a shared machine); BENCH_CLUSTER_PROF=DIR profiles every node's main thread (profiles in
// DIR, one per node and named by its PID, written when it is told to stop; bench/node-prof.ts; read
// them with bench/cpu-profile.js); BENCH_CLUSTER_IDLE_MS how long the processes' idle CPU is read before
// the load (3000): leases, watches and heartbeats cost CPU with no game at all, which a low
// turns/s would otherwise spread over few turns.
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { procCpu, run as runClusterLog } from './cluster-log.js';
import { LOAD_LIMITS, runLoadDriver, startServer, tempDir, type LoadSummary } from './procs.js';
import { eventually, startNatsCluster, type NatsCluster } from '../test/helpers/nats-cluster.js';
import { settingsFile, settled, startNode, type ClusterNodeProc } from '../test/helpers/cluster-nodes.js';
import type { BenchRow } from './types.js';

const DURATION_MS = Number(process.env.BENCH_CLUSTER_MS ?? 15_000);
const PAIRS = Number(process.env.BENCH_CLUSTER_PAIRS ?? 16);
const counts = (v: string | undefined, dflt: string): number[] =>
  (v ?? dflt).split(',').map((x) => x.trim()).filter(Boolean).map(Number).filter((n) => n >= 1 && n <= 3);
const NODE_COUNTS = counts(process.env.BENCH_CLUSTER_NODES, '1,2,3');
const R1_NODE_COUNTS = counts(process.env.BENCH_CLUSTER_R1_NODES, '1');
const SINGLE = process.env.BENCH_CLUSTER_SINGLE !== '0';
const VIA_A = process.env.BENCH_CLUSTER_VIA_A !== '0';
const LOG = process.env.BENCH_CLUSTER_LOG !== '0';
const IDLE_MS = Number(process.env.BENCH_CLUSTER_IDLE_MS ?? 3000);
const SHARDS = 16;
const NODE_NAMES = ['a', 'b', 'c'];
/** Settle and start-up bounds: a configuration that does not come up in time fails the suite. */
const SETTLE_MS = 60_000;
const LIMITS = { ...LOAD_LIMITS, registrationsPerHour: 1_000_000 };
/** A pino line at warn level or above. */
const WARN = /"level":(4|5|6)\d/;

interface Measured {
  label: string;
  /** The driver spread its pairs over several nodes. */
  spread: boolean;
  summary: LoadSummary;
  /** CPU ms per turn by process name ('node a', …, 'one machine'). */
  cpuMsPerTurn: Record<string, number>;
  /** The three nats-servers together, ms per turn (undefined without NATS). */
  natsMsPerTurn?: number;
  /** Idle CPU before the load, in % of one core: every node (or the one machine) together, and the nats-servers. */
  idlePct: { nodes: number; nats: number };
  /** CPU ms per turn once the idle rate over the window is taken off: nodes together, nats-servers. */
  loadMsPerTurn: { nodes: number; nats: number };
  /** Everything but the driver, in % of one core over the window. */
  serverPct: number;
  warnings: number;
  /** The last few warn/error lines logged, when there were any during the window, for stderr. */
  warningSamples: string[];
  loadStart: number;
}

type Pids = Record<string, number>;

/**
 * Runs the driver against `urls` and reads the CPU of `pids` (and of `natsPids`) around its window.
 * `warnings` gives how many warn/error lines the servers logged so far and the latest of them.
 */
async function drive(
  label: string,
  urls: string[],
  pids: Pids,
  natsPids: number[],
  warnings: () => { count: number; latest: string[] },
): Promise<Measured> {
  const loadStart = loadavg()[0];
  const read = (): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const [name, pid] of Object.entries(pids)) out[name] = procCpu(pid);
    out['nats'] = natsPids.reduce((s, pid) => s + procCpu(pid), 0);
    return out;
  };
  const idle0 = read();
  const i0 = performance.now();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idle1 = read();
  const idleS = Math.max(1e-3, (performance.now() - i0) / 1000);
  const sumNodes = (c: Record<string, number>) => Object.keys(pids).reduce((s, k) => s + c[k], 0);
  const idleNodes = (sumNodes(idle1) - sumNodes(idle0)) / idleS; // cores
  const idleNats = (idle1.nats - idle0.nats) / idleS;
  let cpu0: Record<string, number> = {};
  let cpu1: Record<string, number> = {};
  let t0 = 0;
  let t1 = 0;
  let w0 = 0;
  const summary = await runLoadDriver(
    urls.join(','),
    PAIRS,
    DURATION_MS,
    {
      onStart: () => {
        cpu0 = read();
        t0 = performance.now();
        w0 = warnings().count;
      },
      onStop: () => {
        cpu1 = read();
        t1 = performance.now();
      },
    },
    ['--register', `cb${Date.now().toString(36)}x`],
  );
  const turns = Math.max(1, summary.turns);
  const cpuMsPerTurn: Record<string, number> = {};
  let total = 0;
  for (const name of Object.keys(pids)) {
    const s = cpu1[name] - cpu0[name];
    total += s;
    cpuMsPerTurn[name] = (s * 1000) / turns;
  }
  const nats = cpu1.nats - cpu0.nats;
  const nodesCpu = total;
  total += nats;
  const windowS = (t1 - t0) / 1000;
  return {
    label,
    spread: urls.length > 1,
    summary,
    cpuMsPerTurn,
    natsMsPerTurn: natsPids.length ? (nats * 1000) / turns : undefined,
    idlePct: { nodes: idleNodes * 100, nats: idleNats * 100 },
    loadMsPerTurn: { nodes: ((nodesCpu - idleNodes * windowS) * 1000) / turns, nats: ((nats - idleNats * windowS) * 1000) / turns },
    serverPct: (total / ((t1 - t0) / 1000)) * 100,
    warnings: warnings().count - w0,
    warningSamples: warnings().count > w0 ? warnings().latest.slice(-5) : [],
    loadStart,
  };
}

/** The one-machine server (LMDB, no NATS), the same load on one URL. */
async function single(): Promise<Measured> {
  const data = tempDir('dicechess-bench-cluster-');
  const server = await startServer({ store: { dataDir: data.path }, limits: LIMITS });
  try {
    const warnings = () => ({ count: server.warnings(), latest: server.logTail().split('\n').filter((l) => WARN.test(l)) });
    return await drive('one machine', [server.url], { 'one machine': server.pid }, [], warnings);
  } finally {
    await server.stop();
    data.remove();
  }
}

/** A fresh NATS cluster and `n` nodes with the log and buckets in `replicas` copies. */
async function clusterRun(n: number, replicas: number, viaFirst = false): Promise<Measured> {
  const nats: NatsCluster = await startNatsCluster({ name: 'dc-bench' });
  const settings = settingsFile({
    // The default lease (10 s): a shorter one churned under this shared machine's load.
    cluster: { shards: SHARDS, replicas },
    limits: LIMITS,
    games: { houseMoveDelayMs: 0, seedGraceMs: 0 },
  });
  const nodes: ClusterNodeProc[] = [];
  try {
    const prof = process.env.BENCH_CLUSTER_PROF;
    const options = process.env.NODE_OPTIONS;
    // The nodes inherit this process's environment: profile them, not this process.
    if (prof) {
      process.env.NODE_OPTIONS = `${options ?? ''} --import=${fileURLToPath(new URL('./node-prof.js', import.meta.url))}`.trim();
      process.env.BENCH_NODE_PROF_DIR = prof;
    }
    try {
      for (const name of NODE_NAMES.slice(0, n)) nodes.push(await startNode(name, nats.urls, settings.file, SETTLE_MS));
    } finally {
      if (prof) {
        if (options === undefined) delete process.env.NODE_OPTIONS;
        else process.env.NODE_OPTIONS = options;
      }
    }
    if (!(await eventually(() => settled(nodes, SHARDS), SETTLE_MS))) throw new Error(`cluster of ${n}: the shards never settled`);
    const pids: Pids = {};
    for (const node of nodes) pids[`node ${node.name}`] = node.child.pid!;
    // Counted in the lines each node keeps (its last 2,000).
    const warnings = () => {
      const latest = nodes.flatMap((node) => node.log.filter((l) => WARN.test(l)).map((l) => `node ${node.name}: ${l}`));
      return { count: latest.length, latest };
    };
    const r = await drive(
      `${n} node${n > 1 ? 's' : ''} R${replicas}${viaFirst ? ' via a' : ''}`,
      viaFirst ? [nodes[0].url] : nodes.map((node) => node.url),
      pids,
      nats.servers.map((s) => s.child!.pid!),
      warnings,
    );
    const dead = nodes.filter((node) => node.child.exitCode !== null || node.child.signalCode !== null);
    if (dead.length) throw new Error(`node ${dead.map((d) => d.name).join(', ')} died during the run:\n${dead[0].log.slice(-20).join('\n')}`);
    return r;
  } finally {
    await Promise.all(nodes.map((node) => node.stop(10_000)));
    await nats.stop();
    settings.remove();
  }
}

/** The driver's and the nodes' samples of what went wrong, on stderr (the table only counts them). */
function explain(m: Measured): void {
  if (!problems(m)) return;
  console.error(`cluster ${m.label}: ${problems(m)}`);
  for (const line of [...m.summary.problemSamples, ...m.warningSamples]) console.error(`  ${line.slice(0, 400)}`);
}

function problems(m: Measured): string {
  const out = Object.entries(m.summary.problems).map(([k, v]) => `${k} ×${v}`);
  if (m.warnings) out.push(`${m.warnings} warn/error log lines`);
  return out.join('; ');
}

const MACHINE = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? '?'}), shared with other work: nodes, nats-servers and driver compete for them`;

function rows(m: Measured, base: Measured | undefined): BenchRow[] {
  const bench = `cluster ${m.label}`;
  const s = m.summary;
  const b = base?.summary;
  explain(m);
  const vs = (value: number, baseline: number | undefined): Pick<BenchRow, 'value' | 'baseline' | 'baselineName'> =>
    base && baseline !== undefined ? { value, baseline, baselineName: base.label } : { value };
  const statuses = Object.entries(s.statuses).map(([k, v]) => `${v}×${k}`).join(', ');
  const p = problems(m);
  const nodeNames = Object.keys(m.cpuMsPerTurn);
  const nodesTotal = nodeNames.reduce((sum, k) => sum + m.cpuMsPerTurn[k], 0);
  const baseNodes = base ? Object.values(base.cpuMsPerTurn).reduce((sum, v) => sum + v, 0) : undefined;
  const out: BenchRow[] = [
    {
      bench, metric: 'turns/s', ...vs(s.turnsPerS, b?.turnsPerS),
      note: `${PAIRS} pairs, ${Math.round(s.windowS)} s: ${s.turns} turns, ${s.gamesCompleted} games; verdicts ${statuses || 'none'}; ` +
        `${MACHINE}; 1-min load ${m.loadStart.toFixed(1)} at the start${p ? `; PROBLEMS: ${p}` : ''}`,
    },
    { bench, metric: 'verdict p50 ms', ...vs(s.verdictMs.p50, b?.verdictMs.p50), note: `POST move → verdict, seen by the bot${m.spread ? '; each move posted to another node than its game stream' : ''}` },
    { bench, metric: 'verdict p99 ms', ...vs(s.verdictMs.p99, b?.verdictMs.p99), note: `max ${s.verdictMs.max.toFixed(1)} ms` },
  ];
  for (const k of nodeNames) {
    out.push({ bench, metric: `CPU ms/turn ${k}`, ...vs(m.cpuMsPerTurn[k], base?.cpuMsPerTurn[k]), note: '/proc/PID/stat utime+stime, every thread' });
  }
  if (nodeNames.length > 1) out.push({ bench, metric: 'CPU ms/turn nodes together', ...vs(nodesTotal, baseNodes) });
  if (m.natsMsPerTurn !== undefined) {
    out.push({ bench, metric: 'CPU ms/turn nats-servers', ...vs(m.natsMsPerTurn, base?.natsMsPerTurn), note: 'the three servers together' });
  }
  out.push(
    {
      bench, metric: 'CPU ms/turn all servers', ...vs(nodesTotal + (m.natsMsPerTurn ?? 0), baseNodes === undefined ? undefined : baseNodes + (base?.natsMsPerTurn ?? 0)),
      note: `nodes + nats-servers: ${m.serverPct.toFixed(0)}% of one core over the window (the machine has ${cpus().length * 100}%)`,
    },
    {
      bench, metric: 'idle CPU % of a core, nodes', ...vs(m.idlePct.nodes, base?.idlePct.nodes),
      note: `every node together, over ${IDLE_MS / 1000} s before the load (no game)${m.natsMsPerTurn === undefined ? '' : `; nats-servers ${m.idlePct.nats.toFixed(1)}%`}`,
    },
    {
      bench, metric: 'load CPU ms/turn, nodes', ...vs(m.loadMsPerTurn.nodes, base?.loadMsPerTurn.nodes),
      note: 'every node together, the idle rate taken off: what each further turn costs',
    },
    ...(m.natsMsPerTurn === undefined
      ? []
      : [{ bench, metric: 'load CPU ms/turn, nats-servers', ...vs(m.loadMsPerTurn.nats, base?.natsMsPerTurn === undefined ? undefined : base.loadMsPerTurn.nats), note: 'the three together, idle rate taken off' }]),
    { bench, metric: 'driver CPU ms/turn', ...vs(s.driverCpuMsPerTurn, b?.driverCpuMsPerTurn), note: `the load driver, ${s.driverCpuPct.toFixed(0)}% of a core` },
  );
  return out;
}

export async function run(): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  console.error(`cluster: ${MACHINE}; ${DURATION_MS} ms per configuration, ${PAIRS} pairs`);
  const one = SINGLE ? await single() : undefined;
  if (one) out.push(...rows(one, undefined));
  const r3 = new Map<number, Measured>();
  for (const n of NODE_COUNTS) {
    console.error(`cluster: ${n} node(s), replicas 3…`);
    const m = await clusterRun(n, 3);
    r3.set(n, m);
    out.push(...rows(m, n === NODE_COUNTS[0] ? one : r3.get(NODE_COUNTS[0])));
  }
  if (VIA_A) {
    console.error('cluster: 3 nodes, replicas 3, every request to node a…');
    const m = await clusterRun(3, 3, true);
    const rs = rows(m, r3.get(3));
    rs[0].note = `every request and stream on node a; b and c only own their shards and keep replicas. ${rs[0].note ?? ''}`;
    out.push(...rs);
  }
  for (const n of R1_NODE_COUNTS) {
    console.error(`cluster: ${n} node(s), replicas 1…`);
    const m = await clusterRun(n, 1);
    const rs = rows(m, r3.get(n));
    const base = r3.get(n);
    if (base) {
      // What a replicated append adds to a verdict: the same configuration with three copies against one.
      rs.push({
        bench: `cluster ${m.label}`, metric: 'R3 − R1 verdict p50 ms', value: base.summary.verdictMs.p50 - m.summary.verdictMs.p50,
        note: `what 3 copies of the log and buckets add to the median verdict with ${n} node(s), from two runs minutes apart: ` +
          'on a shared machine their noise can exceed it; the cluster.log rows measure the append alone',
      });
    }
    out.push(...rs);
  }
  if (LOG) {
    console.error('cluster: the log append alone (cluster-log)…');
    out.push(...(await runClusterLog()));
  }
  return out;
}
