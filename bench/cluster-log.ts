// The game log on a real three-server NATS cluster on this machine: what one append costs a verdict
// (an owner awaits its append before it publishes anything), with the stream kept on three servers
// (R3) against one (R1) in the same run, and the CPU the nats-servers and the client spend per append.
// Appends go one at a time per game (each names the one before); many games append at once.
import { readFileSync } from 'node:fs';
import { connectCluster } from '../src/cluster/transport/nats.js';
import { GameLog, type GameWriter } from '../src/cluster/log/game-log.js';
import { startNatsCluster } from '../test/helpers/nats-cluster.js';
import type { BenchRow } from './types.js';

const BOX_MS = 2000;
const GAMES = 64;
/** About one turn's worth of record: a version as an owner would append it. */
const PAYLOAD = new Uint8Array(1024).map((_, i) => (i * 31) & 0xff);

/** CPU seconds (user + system) a process has used so far, from /proc. */
export function procCpu(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

interface Result {
  p50: number;
  p99: number;
  perSecond: number;
  serverCpuPerAppend: number;
  clientCpuPerAppend: number;
}

async function measure(writers: GameWriter[], pids: number[], parallel: number): Promise<Result> {
  const latencies: number[] = [];
  let appended = 0;
  const versions = new Map<GameWriter, number>();
  const cpu0 = pids.map(procCpu);
  const client0 = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    writers.slice(0, parallel).map(async (w) => {
      while (performance.now() - start < BOX_MS) {
        const v = (versions.get(w) ?? 0) + 1;
        versions.set(w, v);
        const t0 = performance.now();
        const r = await w.append(v, PAYLOAD);
        latencies.push((performance.now() - t0) * 1000);
        if (!r.ok) throw new Error('fenced during the benchmark');
        appended++;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const serverCpu = pids.map(procCpu).reduce((s, c, i) => s + c - cpu0[i], 0);
  const client = process.cpuUsage(client0);
  return {
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    perSecond: appended / seconds,
    serverCpuPerAppend: (serverCpu / appended) * 1e6,
    clientCpuPerAppend: (client.user + client.system) / appended,
  };
}

export async function run(): Promise<BenchRow[]> {
  const cluster = await startNatsCluster({ name: 'dc-bench' });
  const nc = await connectCluster(cluster.urls, 'bench');
  try {
    const pids = cluster.servers.map((s) => s.child!.pid!);
    const r3 = await GameLog.open(nc, { replicas: 3, stream: 'BENCH_R3', prefix: 'bench.r3' });
    const r1 = await GameLog.open(nc, { replicas: 1, stream: 'BENCH_R1', prefix: 'bench.r1' });
    const certain = () => true; // an owner whose lease is certain: no check after each append
    const writersOf = async (log: GameLog, guard: (() => boolean) | undefined, tag: string) =>
      Promise.all(Array.from({ length: GAMES }, async (_, i) => (await log.takeOver(`${tag}-${i}`, 'bench', { guard })).writer));
    const one3 = await measure(await writersOf(r3, certain, 'a'), pids, 1);
    const one1 = await measure(await writersOf(r1, certain, 'a'), pids, 1);
    const unguarded = await measure(await writersOf(r3, undefined, 'b'), pids, 1);
    const many3 = await measure(await writersOf(r3, certain, 'c'), pids, GAMES);
    const many1 = await measure(await writersOf(r1, certain, 'c'), pids, GAMES);
    const vsR1 = { baselineName: 'R1' };
    const note1 = '1 KB versions, one game appending, each awaited';
    const noteN = `${GAMES} games appending at once, each awaiting its own`;
    return [
      { bench: 'cluster.log R3', metric: 'append p50 µs', value: one3.p50, baseline: one1.p50, ...vsR1, note: note1 },
      { bench: 'cluster.log R3', metric: 'append p99 µs', value: one3.p99, baseline: one1.p99, ...vsR1 },
      {
        bench: 'cluster.log R3 checked', metric: 'append p50 µs', value: unguarded.p50, baseline: one3.p50, baselineName: 'R3 lease certain',
        note: 'writer checks the entry counts (lease not certain): one more leader read',
      },
      { bench: 'cluster.log R3', metric: 'appends/s', value: many3.perSecond, baseline: many1.perSecond, ...vsR1, note: noteN },
      { bench: 'cluster.log R3', metric: `append p99 µs, ${GAMES} games`, value: many3.p99, baseline: many1.p99, ...vsR1 },
      {
        bench: 'cluster.log R3', metric: 'nats-server CPU µs/append', value: many3.serverCpuPerAppend, baseline: many1.serverCpuPerAppend, ...vsR1,
        note: 'all three servers together',
      },
      { bench: 'cluster.log R3', metric: 'client CPU µs/append', value: many3.clientCpuPerAppend, baseline: many1.clientCpuPerAppend, ...vsR1 },
    ];
  } finally {
    await nc.close();
    await cluster.stop();
  }
}
