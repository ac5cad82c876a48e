// The edge-thread rows' arithmetic: the K-core capacity model, the targets that must be reached
// rather than stayed under, and the per-thread CPU read from /proc by the names the server gives its
// worker threads.
import t from 'tap';
import { Worker } from 'node:worker_threads';
import { capacityOf } from '../../bench/edge-threads.js';
import { targetRows } from '../../bench/targets.js';
import { readThreadCpu } from '../../bench/thread-cpu.js';

t.test('capacity: main caps the rate at 1000 / main, the cores at 1000 × K / every thread', async (t) => {
  const costs = { main: 0.4, edge: 0.3, shard: 0.6, other: 0.1 };
  t.same(capacityOf(costs, 16), { turnsPerS: 2500, bound: 'main' });
  const two = capacityOf(costs, 2);
  t.equal(two.bound, 'cores');
  t.equal(Math.round(two.turnsPerS), Math.round(2000 / 1.4));
});

t.test('a target to reach is met at or above it, one to stay under at or below it', async (t) => {
  const out = targetRows([
    { bench: 'edge threads N=32', metric: 'turns/s 2 threads vs 1', value: 95, baseline: 100 },
    { bench: 'edge threads N=32', metric: 'capacity turns/s, 16 cores', value: 2500 },
    { bench: 'edge threads N=32', metric: 'edge CPU µs/turn vs bare uWS', value: 40, baseline: 10 },
  ]);
  const get = (prefix: string) => out.find((r) => r.metric.startsWith(prefix))!;
  t.equal(get('edge threads: turns/s').value, 0.95);
  t.match(get('edge threads: turns/s').note, /^met/);
  t.equal(get('edge threads: capacity').value, 2500);
  t.match(get('edge threads: capacity').note, /^NOT met/);
  t.equal(get('edge threads: edge CPU').value, 4);
  t.match(get('edge threads: edge CPU').note, /^NOT met/);
});

t.test('a named worker thread is told apart from main and the helpers', { skip: process.platform !== 'linux' && 'Linux only' }, async (t) => {
  // The worker names itself as src/thread-name.ts does, spins for a while, then waits to be let go.
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     require('node:fs').writeFileSync('/proc/thread-self/comm', 'dc-edge-9');
     const until = Date.now() + 200; while (Date.now() < until);
     parentPort.postMessage('spun');
     parentPort.once('message', () => process.exit(0));`,
    { eval: true },
  );
  await new Promise((r) => worker.once('message', r));
  const cpu = readThreadCpu(process.pid);
  worker.postMessage('go');
  await new Promise((r) => worker.once('exit', r));
  t.ok(cpu.named['dc-edge-9'] !== undefined, 'the worker is found by its name');
  t.ok(cpu.groups.edge > 0, 'its CPU counts as an edge thread');
  t.ok(cpu.groups.main > 0, 'the main thread is the one whose id is the process id');
});
