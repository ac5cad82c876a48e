// Serving the largest legal-move tree (docs/ENGINE.md, "Largest trees") to 8 clients in a loop:
// the p99 of GET /health meanwhile (target 5 ms), and the server's main-thread CPU per tree answer
// against a bare uWS write of the same bytes in the same process (target 2x). Identity bodies (the
// worst case: 25 MB each) and gzip. The server is a child process (bench/big-trees-server.ts).
import { execFile, fork } from 'node:child_process';
import { projectFile } from '../src/paths.js';
import type { BenchRow } from './types.js';

const CLIENTS = 8;
const SECONDS = 8;

async function cpu(base: string): Promise<number> {
  return ((await (await fetch(`${base}/cpu`)).json()) as { seconds: number }).seconds;
}

/** autocannon on `path` while /health is probed every 20 ms; CPU per answer and the probes' p99 (ms). */
async function load(base: string, path: string, gzip: boolean): Promise<{ cpuPerReq: number; p99: number; requests: number }> {
  const before = await cpu(base);
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
  // The clients run in a process of their own, so that reading 25 MB bodies does not delay the probes.
  const args = ['-c', String(CLIENTS), '-d', String(SECONDS), '-t', '60', '-j', ...(gzip ? ['-H', 'accept-encoding=gzip'] : []), base + path];
  const out = await new Promise<string>((resolve, reject) =>
    execFile(projectFile('node_modules', '.bin', 'autocannon'), args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  const r = JSON.parse(out) as { requests: { total: number } };
  on = false;
  await probing;
  const after = await cpu(base);
  probes.sort((a, b) => a - b);
  const requests = r.requests.total;
  return { cpuPerReq: (after - before) / Math.max(1, requests), p99: probes[Math.floor(probes.length * 0.99)] ?? NaN, requests };
}

export async function run(): Promise<BenchRow[]> {
  const child = fork(new URL('./big-trees-server.js', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const { port, bytes } = await new Promise<{ port: number; bytes: number }>((resolve) => child.once('message', (m) => resolve(m as { port: number; bytes: number })));
    const base = `http://127.0.0.1:${port}`;
    const bare = await load(base, '/bare', false);
    const ours = await load(base, '/moves', false);
    const zipped = await load(base, '/moves', true);
    const mb = (bytes / 1e6).toFixed(1);
    const note = `${CLIENTS} clients, ${SECONDS} s, ${mb} MB tree`;
    return [
      { bench: 'big-trees.health', metric: 'p99 ms (identity)', value: ours.p99, baseline: bare.p99, baselineName: 'bare uWS', note: `${note}; ${ours.requests} answers` },
      { bench: 'big-trees.health', metric: 'p99 ms (gzip)', value: zipped.p99, note: `${zipped.requests} answers` },
      { bench: 'big-trees.cpu', metric: 'main ms per answer (identity)', value: ours.cpuPerReq * 1000, baseline: bare.cpuPerReq * 1000, baselineName: 'bare uWS write' },
      { bench: 'big-trees.cpu', metric: 'main ms per answer (gzip)', value: zipped.cpuPerReq * 1000, baseline: bare.cpuPerReq * 1000, baselineName: 'bare uWS write' },
    ];
  } finally {
    child.kill();
  }
}
