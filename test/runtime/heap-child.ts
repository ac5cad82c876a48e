// Child process for heap-snapshots.test.ts (not a test itself): a small "server" process that arms
// the snapshot aid on its main thread and in one stand-in shard thread, then reports on stdout:
// "ready" once both are armed, and "main PATH" / "shard PATH" as each snapshot is written. Its heap
// is only this module and the aid, so a snapshot takes a moment (the tap process's own heap would
// take tens of seconds to serialise). It exits after both snapshots, or after 60 s at the latest.
import { Worker } from 'node:worker_threads';
import { armMainHeapSnapshots } from '../../src/debug-heap.js';

const dir = process.argv[2];
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const module = new URL('../../src/debug-heap.js', import.meta.url).href;
let pending = 2;
const done = (): void => {
  if (--pending === 0) void worker.terminate().then(() => process.exit(0));
};
armMainHeapSnapshots((p) => {
  say(`main ${p}`);
  done();
}, dir);
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
worker.on('message', (m: string) => {
  if (m === 'ready') return say('ready');
  say(`shard ${m}`);
  done();
});
setTimeout(() => process.exit(3), 60_000).unref();
