// Serving the largest legal-move tree (docs/ENGINE.md, "Largest trees") to 8 clients in a loop:
// the p99 of GET /health meanwhile (target 5 ms), the server's main-thread busy stretches (CPU spent
// without a break in which a request could be answered; see big-trees-server.ts), and its main-thread
// CPU per tree answer (per body's worth of bytes sent) against a bare uWS write of the same bytes in
// the same process (target 2x). Identity bodies (the worst case: 25 MB each) and gzip. The server
// is a child process (bench/big-trees-server.ts) that serves every variant at once, each on its own port: our edge writing a slice per answer per
// event-loop turn (the default), the same with other slice sizes, our edge writing the whole body in
// one tryEnd as before slices ('whole'), and two bare uWS baselines (one res.end; paced tryEnd
// slices). Variants alternate within a round and rounds run in turn-about order, so that the shared
// machine's load falls on all of them alike; each row gives the median of the rounds and their spread.
//
// Environment: BENCH_BIG_TREES_ROUNDS (default 2), BENCH_BIG_TREES_SECONDS per load (default 8),
// BENCH_BIG_TREES_VARIANTS (default "128/512,64/256,whole": slice/turn KiB; the first should be the
// server's default, and is the one also measured with brotli).
import { execFile, fork } from 'node:child_process';
import { projectFile } from '../src/paths.js';
import type { BenchRow } from './types.js';

const CLIENTS = 8;
const SECONDS = Number(process.env.BENCH_BIG_TREES_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_BIG_TREES_ROUNDS ?? 2);
const VARIANTS = (process.env.BENCH_BIG_TREES_VARIANTS ?? '128/512,64/256,whole').split(',');

interface Load {
  cpuMsPerReq: number;
  /** The server's main-thread busy stretches meanwhile (ms of CPU without a break): p99 and max. */
  stretchP99: number;
  stretchMax: number;
  p99: number;
  requests: number;
}

interface Cpu {
  seconds: number;
  stretchP99: number;
  stretchMax: number;
}

async function cpu(base: string): Promise<Cpu> {
  return (await (await fetch(`${base}/cpu`)).json()) as Cpu;
}

/** Probes GET /health every 20 ms until stop() resolves; returns the p99 in ms. */
function probe(base: string): { stop(): Promise<number> } {
  const probes: number[] = [];
  let on = true;
  const probing = (async () => {
    while (on) {
      const t0 = performance.now();
      await (await fetch(`${base}/health`)).text();
      probes.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      on = false;
      await probing;
      probes.sort((a, b) => a - b);
      return probes[Math.floor(probes.length * 0.99)] ?? NaN;
    },
  };
}

/** autocannon on `path` while /health is probed; CPU per answer (ms) and the probes' p99 (ms). */
async function load(base: string, path: string, encoding: string | undefined, bodyBytes: number): Promise<Load> {
  const before = await cpu(base);
  const probes = probe(base);
  // The clients run in a process of their own, so that reading 25 MB bodies does not delay the probes.
  const args = ['-c', String(CLIENTS), '-d', String(SECONDS), '-t', '60', '-j', ...(encoding ? ['-H', `accept-encoding=${encoding}`] : []), base + path];
  const out = await new Promise<string>((resolve, reject) =>
    execFile(projectFile('node_modules', '.bin', 'autocannon'), args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  const r = JSON.parse(out) as { requests: { total: number }; throughput: { total: number } };
  const requests = r.requests.total;
  const p99 = await probes.stop();
  const after = await cpu(base);
  // Per body's worth of bytes received, not per complete answer: 8 bodies are always half-sent when
  // the load stops, and with only a few dozen answers in a run that would skew the figure.
  const cpuMsPerReq = ((after.seconds - before.seconds) * 1000 * bodyBytes) / Math.max(1, r.throughput.total);
  return { cpuMsPerReq, p99, requests, stretchP99: after.stretchP99, stretchMax: after.stretchMax };
}

async function idle(base: string): Promise<{ p99: number; stretchMax: number }> {
  await cpu(base);
  const p = probe(base);
  await new Promise((r) => setTimeout(r, 2000));
  const p99 = await p.stop();
  return { p99, stretchMax: (await cpu(base)).stretchMax };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs: number[]): string => (xs.length < 2 ? '' : `rounds ${xs.map((x) => x.toFixed(1)).join(', ')}`);

export async function run(): Promise<BenchRow[]> {
  const child = fork(new URL('./big-trees-server.js', import.meta.url), VARIANTS, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    type Ready = { ports: Record<string, number>; bytes: number; gzipBytes: number; brBytes: number };
    const { ports, bytes, gzipBytes, brBytes } = await new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)));
    const at = (v: string): string => `http://127.0.0.1:${ports[v]}`;
    const jobs: { name: string; run: () => Promise<Load> }[] = [
      { name: 'bare one-shot', run: () => load(at('bare'), '/bare', undefined, bytes) },
      { name: 'bare paced', run: () => load(at('bare'), '/bare-paced', undefined, bytes) },
    ];
    for (const v of VARIANTS) {
      jobs.push({ name: `${v} identity`, run: () => load(at(v), '/moves', undefined, bytes) });
      jobs.push({ name: `${v} gzip`, run: () => load(at(v), '/moves', 'gzip', gzipBytes) });
    }
    // Brotli (preferred when accepted) with the server's own pacing only.
    jobs.push({ name: `${VARIANTS[0]} br`, run: () => load(at(VARIANTS[0]), '/moves', 'br', brBytes) });
    const results = new Map<string, Load[]>(jobs.map((j) => [j.name, []]));
    const idles: { p99: number; stretchMax: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      idles.push(await idle(at(VARIANTS[0])));
      const order = round % 2 === 0 ? jobs : [...jobs].reverse();
      for (const j of order) {
        const r = await j.run();
        const line = `/health p99 ${r.p99.toFixed(1)} ms, busy stretch p99 ${r.stretchP99.toFixed(1)} max ${r.stretchMax.toFixed(1)} ms, ${r.cpuMsPerReq.toFixed(2)} ms CPU/answer, ${r.requests} answers`;
        console.error(`big-trees round ${round + 1}: ${j.name}: ${line}`);
        results.get(j.name)?.push(r);
      }
    }
    const of = (name: string, k: keyof Load): number[] => (results.get(name) ?? []).map((r) => r[k]);
    const row = (bench: string, metric: string, xs: number[], extra: Partial<BenchRow> = {}): BenchRow => ({
      bench,
      metric,
      value: median(xs),
      ...extra,
      note: [extra.note, spread(xs)].filter((x) => x).join('; '),
    });
    const label = (v: string): string => (v === 'whole' ? 'whole-body tryEnd' : `slices ${v} KiB`);
    const named = VARIANTS.flatMap((v) => ['identity', 'gzip'].map((enc) => ({ name: `${v} ${enc}`, what: `${enc}, ${label(v)}`, enc })));
    named.splice(2, 0, { name: `${VARIANTS[0]} br`, what: `br, ${label(VARIANTS[0])}`, enc: 'br' });
    const bareP = { baselineName: 'bare uWS paced' };
    const note = `${CLIENTS} clients, ${SECONDS} s × ${ROUNDS} rounds, ${(bytes / 1e6).toFixed(1)} MB tree (gzip ${(gzipBytes / 1e6).toFixed(2)} MB, br ${(brBytes / 1e6).toFixed(2)} MB)`;
    const rows: BenchRow[] = [
      row('big-trees.health', 'p99 ms, no load', idles.map((x) => x.p99), { note }),
      row('big-trees.health', 'p99 ms, bare one-shot res.end', of('bare one-shot', 'p99')),
    ];
    for (const n of named) {
      const base = n.enc === 'identity' ? { baseline: median(of('bare paced', 'p99')), ...bareP } : {};
      rows.push(row('big-trees.health', `p99 ms (${n.what})`, of(n.name, 'p99'), { ...base, note: `${median(of(n.name, 'requests'))} answers` }));
    }
    rows.push(row('big-trees.stretch', 'max ms, no load', idles.map((x) => x.stretchMax)));
    rows.push(row('big-trees.stretch', 'p99 ms, bare one-shot res.end', of('bare one-shot', 'stretchP99'), { note: `max ${median(of('bare one-shot', 'stretchMax')).toFixed(1)}` }));
    for (const n of named) {
      const base = n.enc === 'identity' ? { baseline: median(of('bare paced', 'stretchP99')), ...bareP } : {};
      rows.push(row('big-trees.stretch', `p99 ms (${n.what})`, of(n.name, 'stretchP99'), { ...base, note: `max ${median(of(n.name, 'stretchMax')).toFixed(1)}` }));
    }
    const oneShot = median(of('bare one-shot', 'cpuMsPerReq'));
    rows.push(row('big-trees.cpu', 'main ms per answer, bare one-shot res.end', of('bare one-shot', 'cpuMsPerReq')));
    for (const n of named) {
      const xs = of(n.name, 'cpuMsPerReq');
      const note = `${(median(xs) / oneShot).toFixed(2)}x the one-shot write`;
      rows.push(row('big-trees.cpu', `main ms per answer (${n.what})`, xs, { baseline: median(of('bare paced', 'cpuMsPerReq')), ...bareP, note }));
    }
    return rows;
  } finally {
    child.kill();
  }
}
