// The cluster soak: memory and the game log over steady play, on one node and on three. Per
// configuration, three fresh nats-servers (one JetStream cluster, the test harness's) and 1 or 3
// `dicechess serve --cluster` nodes; the load driver plays PAIRS pairs with its requests spread over
// the nodes for the whole duration. Every SAMPLE_S seconds it reads each node's anonymous RSS
// (RssAnon in /proc/PID/status) and the DC_GAMES stream's bytes, messages and subjects. With finished
// games read on demand and each finished game's log trimmed, both should stay flat once play is
// steady: the run prints whether each node's RssAnon at the end of play (the last sample taken while
// the driver ran) is at most 1.15 × the one at two minutes, and whether the stream's bytes at the end
// are at most 1.5 × their median over the run (a log that kept every game would grow with the games
// played instead).
//
// Writes a dated data file (samples, verdicts and the machine: CPU model and count, memory, kernel,
// load average) to bench/results/ and one chart per configuration to docs/bench-cluster-soak-N.svg.
// Knobs (environment): BENCH_CLUSTER_SOAK_SECONDS of play per configuration (600),
// BENCH_CLUSTER_SOAK_NODES ("1,3"), BENCH_CLUSTER_SOAK_PAIRS (16), BENCH_CLUSTER_SOAK_SAMPLE_S (10),
// BENCH_CLUSTER_SOAK_OUT (the data file's path). Every process started here is stopped by its PID.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { jetstreamManager } from '@nats-io/jetstream';
import { projectFile } from '../src/paths.js';
import { connectCluster } from '../src/cluster/transport/nats.js';
import { LOAD_LIMITS, SERVER_MALLOC_ENV, SERVER_NODE_ARGS, procRss, runLoadDriver } from './procs.js';
import { lineChart } from './svg-chart.js';
import { eventually, startNatsCluster } from '../test/helpers/nats-cluster.js';
import { settingsFile, settled, startNode, type ClusterNodeProc } from '../test/helpers/cluster-nodes.js';
import type { BenchRow } from './types.js';

const SECONDS = Number(process.env.BENCH_CLUSTER_SOAK_SECONDS ?? 600);
const PAIRS = Number(process.env.BENCH_CLUSTER_SOAK_PAIRS ?? 16);
const SAMPLE_S = Number(process.env.BENCH_CLUSTER_SOAK_SAMPLE_S ?? 10);
const NODE_COUNTS = (process.env.BENCH_CLUSTER_SOAK_NODES ?? '1,3').split(',').map(Number).filter((n) => n >= 1 && n <= 3);
const SHARDS = 16;
const SETTLE_MS = 60_000;
/** The reference sample: two minutes in (or a fifth of a shorter run, said in the output). */
const REFERENCE_S = Math.min(120, SECONDS / 5);
const RSS_RATIO = 1.15;
const BYTES_RATIO = 1.5;

interface Sample {
  t: number;
  rssAnonMb: Record<string, number>;
  stream: { bytes: number; messages: number; subjects: number };
}

interface Outcome {
  nodes: number;
  turns: number;
  samples: Sample[];
  rssMet: Record<string, { reference: number; end: number; ratio: number; met: boolean }>;
  stream: { medianBytes: number; endBytes: number; maxBytes: number; met: boolean };
  chart: string;
}

const rssOf = (pid: number): number => procRss(readFileSync(`/proc/${pid}/status`, 'utf8')).anonMb;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const nearest = (samples: Sample[], t: number): Sample => samples.reduce((best, s) => (Math.abs(s.t - t) < Math.abs(best.t - t) ? s : best));

async function soak(n: number): Promise<Outcome> {
  // Every finished game stays in the store's bucket (that is the archive): ten minutes of play store
  // more than the test harness's 512 MB per server, and play stopped when JetStream refused writes.
  const nats = await startNatsCluster({ name: `dc-csoak${n}`, maxFileStore: '16GB' });
  const settings = settingsFile({ cluster: { shards: SHARDS }, limits: { ...LOAD_LIMITS, registrationsPerHour: 1_000_000 }, games: { houseMoveDelayMs: 0, seedGraceMs: 0 } });
  const nodes: ClusterNodeProc[] = [];
  const nc = await connectCluster(nats.urls, 'cluster-soak');
  try {
    // Each node started as docs/OPERATIONS.md says to start a server (and as the single-process soak
    // starts it): 4 MB semi-spaces and glibc's fixed trim threshold (BENCH_SERVER_NODE_ARGS and
    // BENCH_SERVER_MALLOC=glibc change them, as for the other suites).
    const operator = {
      nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? SERVER_NODE_ARGS).split(' ').filter(Boolean),
      env: process.env.BENCH_SERVER_MALLOC === 'glibc' ? {} : SERVER_MALLOC_ENV,
    };
    for (const name of ['a', 'b', 'c'].slice(0, n)) nodes.push(await startNode(name, nats.urls, settings.file, SETTLE_MS, operator));
    if (!(await eventually(() => settled(nodes, SHARDS), SETTLE_MS))) throw new Error(`${n} node(s): the shards never settled`);
    const jsm = await jetstreamManager(nc);
    const samples: Sample[] = [];
    let start = 0;
    let timer: NodeJS.Timeout | undefined;
    const take = async (): Promise<void> => {
      const t = (performance.now() - start) / 1000;
      const info = await jsm.streams.info('DC_GAMES');
      const rssAnonMb: Record<string, number> = {};
      // A node that died is left out of the sample; the run then fails below with its last lines.
      for (const node of nodes) if (node.child.exitCode === null && node.child.signalCode === null) rssAnonMb[node.name] = rssOf(node.child.pid!);
      samples.push({ t, rssAnonMb, stream: { bytes: info.state.bytes, messages: info.state.messages, subjects: info.state.num_subjects ?? 0 } });
    };
    const summary = await runLoadDriver(nodes.map((x) => x.url).join(','), PAIRS, SECONDS * 1000, {
      onStart: () => {
        start = performance.now();
        void take().catch(() => undefined);
        timer = setInterval(() => void take().catch(() => undefined), SAMPLE_S * 1000);
      },
      onStop: () => clearInterval(timer),
    }, ['--register', `cs${Date.now().toString(36)}x`]);
    await take();
    const dead = nodes.filter((x) => x.child.exitCode !== null || x.child.signalCode !== null);
    if (dead.length) throw new Error(`node ${dead[0].name} died during the soak:\n${dead[0].log.slice(-20).join('\n')}`);
    samples.sort((a, b) => a.t - b.t);
    const ref = nearest(samples, REFERENCE_S);
    // Memory is judged on the last sample taken under play: the one taken after the driver stopped
    // may follow a collection of the idle node and flatter it. The stream's end is that last one.
    const last = samples[samples.length - 1];
    const end = samples.filter((x) => x.t <= SECONDS + 1).pop() ?? last;
    const rssMet: Outcome['rssMet'] = {};
    for (const node of nodes) {
      const ratio = end.rssAnonMb[node.name] / ref.rssAnonMb[node.name];
      rssMet[node.name] = { reference: ref.rssAnonMb[node.name], end: end.rssAnonMb[node.name], ratio, met: ratio <= RSS_RATIO };
    }
    const bytes = samples.map((s) => s.stream.bytes);
    const medianBytes = median(bytes);
    const stream = { medianBytes, endBytes: last.stream.bytes, maxBytes: Math.max(...bytes), met: last.stream.bytes <= BYTES_RATIO * Math.max(1, medianBytes) };
    return { nodes: n, turns: summary.turns, samples, rssMet, stream, chart: chart(n, samples) };
  } finally {
    await Promise.all(nodes.map((x) => x.stop(10_000)));
    await nc.close();
    await nats.stop();
    settings.remove();
  }
}

function chart(n: number, samples: Sample[]): string {
  const path = projectFile('docs', `bench-cluster-soak-${n}.svg`);
  const day = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const totalRss = (s: Sample): number => Object.values(s.rssAnonMb).reduce((a, b) => a + b, 0);
  writeFileSync(path, lineChart({
    title: `Cluster of ${n} node${n > 1 ? 's' : ''} under ${PAIRS} pairs of play: memory and the game log`,
    subtitle: `${SECONDS} s of play, three nats-servers, ${cpus().length} cores shared with the load driver; ${day} UTC`,
    xLabel: 'seconds since the load started',
    xTicks: samples.map((s) => s.t.toFixed(0)),
    xLabelEvery: Math.max(1, Math.ceil(samples.length / 12)),
    left: { label: `anonymous RSS (RssAnon), ${n > 1 ? 'sum of the nodes' : 'the node'}`, unit: 'MB', values: samples.map(totalRss), colour: '#1f77b4' },
    right: { label: 'DC_GAMES stream bytes', unit: 'KB', values: samples.map((s) => s.stream.bytes / 1024), colour: '#d62728' },
  }));
  return path;
}

function machine(): Record<string, unknown> {
  return { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGb: +(totalmem() / 2 ** 30).toFixed(1), kernel: release(), loadAverage: loadavg()[0] };
}

export async function run(): Promise<BenchRow[]> {
  const startedAt = new Date().toISOString();
  const host = machine();
  const outcomes: Outcome[] = [];
  for (const n of NODE_COUNTS) outcomes.push(await soak(n));
  const file = process.env.BENCH_CLUSTER_SOAK_OUT ?? projectFile('bench', 'results', `${startedAt.slice(0, 10)}-cluster-soak.json`);
  writeFileSync(file, JSON.stringify({ startedAt, machine: host, seconds: SECONDS, pairs: PAIRS, referenceSeconds: REFERENCE_S, outcomes }, null, 1));
  console.error(`cluster-soak: data written to ${file}; charts: ${outcomes.map((o) => o.chart).join(', ')}`);
  const rows: BenchRow[] = [];
  for (const o of outcomes) {
    const bench = `cluster-soak.${o.nodes}-node${o.nodes > 1 ? 's' : ''}`;
    for (const [name, r] of Object.entries(o.rssMet)) {
      const verdict = `RssAnon end ≤ ${RSS_RATIO} × at ${REFERENCE_S.toFixed(0)} s: ${r.met ? 'met' : 'NOT met'}`;
      console.error(`${bench} node ${name}: ${verdict} (${r.end.toFixed(1)} MB ÷ ${r.reference.toFixed(1)} MB = ${r.ratio.toFixed(2)})`);
      rows.push({ bench, metric: `node ${name} RssAnon MB at the end`, value: r.end, baseline: r.reference, baselineName: `at ${REFERENCE_S.toFixed(0)} s`, note: verdict });
    }
    const s = o.stream;
    const verdict = `stream bytes bounded (end ≤ ${BYTES_RATIO} × median): ${s.met ? 'met' : 'NOT met'}`;
    console.error(`${bench}: ${verdict} (end ${s.endBytes} B, median ${s.medianBytes} B, max ${s.maxBytes} B; ${o.turns} turns)`);
    rows.push({ bench, metric: 'DC_GAMES bytes at the end', value: s.endBytes, baseline: s.medianBytes, baselineName: 'median over the run', note: `${verdict}; max ${s.maxBytes} B; ${o.turns} turns` });
  }
  return rows;
}
