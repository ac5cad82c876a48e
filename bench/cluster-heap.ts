// What grows on a cluster node under steady play: a debugging run, not a benchmark with a verdict.
// Three nats-servers and three `dicechess serve --cluster` nodes (the tests' harness), the load driver
// playing PAIRS pairs over all of them for SECONDS; every SAMPLE_S seconds it prints each node's
// RssAnon beside its V8 heap (every thread's heapUsed, from /metrics) and its external memory, so
// growth outside the JS heap shows. At each of SNAP_AT (seconds into the play) it sends SIGUSR2 to
// node SNAP_NODE, which writes every thread's heap snapshot into DIR (src/debug-heap.ts); compare two
// with `node dist/bench/heap-summary.js FILE`.
//
//   BENCH_HEAP_DIR=DIR [BENCH_HEAP_SECONDS=300] [BENCH_HEAP_PAIRS=16] [BENCH_HEAP_SNAP_AT=90,270]
//   [BENCH_HEAP_SNAP_NODE=b] node dist/bench/cluster-heap.js
//
// Every process started here is stopped by its PID.
import { readFileSync } from 'node:fs';
import { LOAD_LIMITS, procRss, runLoadDriver } from './procs.js';
import { eventually, startNatsCluster } from '../test/helpers/nats-cluster.js';
import { settingsFile, settled, startNode, type ClusterNodeProc } from '../test/helpers/cluster-nodes.js';

const DIR = process.env.BENCH_HEAP_DIR;
const SECONDS = Number(process.env.BENCH_HEAP_SECONDS ?? 300);
const PAIRS = Number(process.env.BENCH_HEAP_PAIRS ?? 16);
const SAMPLE_S = Number(process.env.BENCH_HEAP_SAMPLE_S ?? 15);
const SNAP_AT = (process.env.BENCH_HEAP_SNAP_AT ?? '90,270').split(',').map(Number);
const SNAP_NODE = process.env.BENCH_HEAP_SNAP_NODE ?? 'b';
const SHARDS = 16;

/** Sums of the node's /metrics heap figures, in MB: every thread's heapUsed, and external memory. */
async function heapOf(url: string): Promise<{ heapMb: number; externalMb: number; arrayBuffersMb: number }> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  let heap = 0;
  let external = Number.NaN;
  let arrayBuffers = Number.NaN;
  for (const line of text.split('\n')) {
    const m = /^dicechess_thread_heap_bytes\{thread="[^"]+",kind="used"\} (\S+)/.exec(line);
    if (m) heap += Number(m[1]);
    if (line.startsWith('nodejs_heap_size_used_bytes ') && heap === 0) heap = Number(line.split(' ')[1]);
    if (line.startsWith('nodejs_external_memory_bytes ')) external = Number(line.split(' ')[1]);
    if (line.startsWith('nodejs_array_buffers_bytes ')) arrayBuffers = Number(line.split(' ')[1]);
  }
  return { heapMb: heap / 2 ** 20, externalMb: external / 2 ** 20, arrayBuffersMb: arrayBuffers / 2 ** 20 };
}

async function main(): Promise<void> {
  if (!DIR) throw new Error('set BENCH_HEAP_DIR (where the heap snapshots go)');
  process.env.DICECHESS_HEAP_SNAPSHOT_DIR = DIR; // the nodes inherit it
  const nats = await startNatsCluster({ name: 'dc-cheap' });
  const settings = settingsFile({ cluster: { shards: SHARDS }, limits: { ...LOAD_LIMITS, registrationsPerHour: 1_000_000 }, games: { houseMoveDelayMs: 0, seedGraceMs: 0 } });
  const nodes: ClusterNodeProc[] = [];
  try {
    for (const name of ['a', 'b', 'c']) nodes.push(await startNode(name, nats.urls, settings.file, 60_000));
    if (!(await eventually(() => settled(nodes, SHARDS), 60_000))) throw new Error('the shards never settled');
    let start = 0;
    const timers: NodeJS.Timeout[] = [];
    const sample = async (): Promise<void> => {
      const t = ((performance.now() - start) / 1000).toFixed(0);
      const parts: string[] = [];
      for (const n of nodes) {
        const rss = procRss(readFileSync(`/proc/${n.child.pid}/status`, 'utf8')).anonMb;
        const h = await heapOf(n.url).catch(() => ({ heapMb: Number.NaN, externalMb: Number.NaN, arrayBuffersMb: Number.NaN }));
        parts.push(`${n.name} rssAnon ${rss.toFixed(1)} heap ${h.heapMb.toFixed(1)} ext ${h.externalMb.toFixed(1)} ab ${h.arrayBuffersMb.toFixed(1)}`);
      }
      console.log(`t=${t}s  ${parts.join(' | ')}`);
    };
    const summary = await runLoadDriver(nodes.map((x) => x.url).join(','), PAIRS, SECONDS * 1000, {
      onStart: () => {
        start = performance.now();
        timers.push(setInterval(() => void sample().catch(() => undefined), SAMPLE_S * 1000));
        const target = nodes.find((n) => n.name === SNAP_NODE) ?? nodes[0];
        for (const at of SNAP_AT) {
          timers.push(setTimeout(() => {
            console.log(`t=${at}s  SIGUSR2 to node ${target.name} (pid ${target.child.pid})`);
            process.kill(target.child.pid!, 'SIGUSR2');
          }, at * 1000));
        }
      },
      onStop: () => timers.forEach((t) => clearTimeout(t)),
    }, ['--register', `ch${Date.now().toString(36)}x`]);
    await sample();
    console.log(`turns ${summary.turns} (${summary.turnsPerS.toFixed(0)}/s)`);
    for (const n of nodes) for (const line of n.log.filter((l) => l.includes('heap snapshot written'))) console.log(n.name, line);
  } finally {
    await Promise.all(nodes.map((x) => x.stop(10_000)));
    await nats.stop();
    settings.remove();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
