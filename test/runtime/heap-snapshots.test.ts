// The debugging aid: with a snapshot directory, SIGUSR2 makes the main thread and every shard thread
// write a heap snapshot there; without one, nothing is armed.
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { armMainHeapSnapshots, heapSnapshotDir } from '../../src/debug-heap.js';

t.test('without DICECHESS_HEAP_SNAPSHOT_DIR nothing is armed', async (t) => {
  t.equal(heapSnapshotDir({}), undefined);
  t.equal(heapSnapshotDir({ DICECHESS_HEAP_SNAPSHOT_DIR: '' }), undefined);
  t.equal(heapSnapshotDir({ DICECHESS_HEAP_SNAPSHOT_DIR: '/x' }), '/x');
  const before = process.listenerCount('SIGUSR2');
  armMainHeapSnapshots(() => undefined, undefined)();
  t.equal(process.listenerCount('SIGUSR2'), before, 'no signal handler');
});

t.test('SIGUSR2 writes a snapshot of main and of a shard thread', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-heap-'));
  const written: string[] = [];
  const disarm = armMainHeapSnapshots((p) => written.push(p), dir);
  const module = new URL('../../src/debug-heap.js', import.meta.url).href;
  // A stand-in shard: arms itself as the shard worker does, and says where it wrote.
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.on('message', () => undefined);
     import(${JSON.stringify(module)}).then((m) => {
       m.armShardHeapSnapshots('shard-7', (p) => parentPort.postMessage(p), ${JSON.stringify(dir)});
       parentPort.postMessage('ready');
     });`,
    { eval: true },
  );
  t.teardown(async () => {
    disarm();
    await worker.terminate();
    rmSync(dir, { recursive: true, force: true });
  });
  const messages: string[] = [];
  const next = (): Promise<string> => new Promise((resolve) => worker.once('message', (m: string) => resolve(m)));
  t.equal(await next(), 'ready');
  const shardWrote = next();
  process.kill(process.pid, 'SIGUSR2');
  messages.push(await shardWrote);
  t.same(written, [join(dir, 'main-1.heapsnapshot')], 'main wrote its first snapshot');
  t.same(messages, [join(dir, 'shard-7-1.heapsnapshot')], 'the shard wrote its own');
  t.same(readdirSync(dir).sort(), ['main-1.heapsnapshot', 'shard-7-1.heapsnapshot']);
  for (const f of readdirSync(dir)) t.ok(statSync(join(dir, f)).size > 1000, `${f} is a snapshot`);
  t.ok(existsSync(join(dir, 'main-1.heapsnapshot')));
});
