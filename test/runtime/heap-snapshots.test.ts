// The debugging aid: with a snapshot directory, SIGUSR2 makes the main thread and every shard thread
// write a heap snapshot there; without one, nothing is armed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { armMainHeapSnapshots, heapSnapshotDir } from '../../src/debug-heap.js';

const CHILD = fileURLToPath(new URL('./heap-child.js', import.meta.url));

t.test('without DICECHESS_HEAP_SNAPSHOT_DIR nothing is armed', async (t) => {
  t.equal(heapSnapshotDir({}), undefined);
  t.equal(heapSnapshotDir({ DICECHESS_HEAP_SNAPSHOT_DIR: '' }), undefined);
  t.equal(heapSnapshotDir({ DICECHESS_HEAP_SNAPSHOT_DIR: '/x' }), '/x');
  const before = process.listenerCount('SIGUSR2');
  armMainHeapSnapshots(() => undefined, undefined)();
  t.equal(process.listenerCount('SIGUSR2'), before, 'no signal handler');
});

t.test('SIGUSR2 writes a snapshot of main and of a shard thread', async (t) => {
  // A small child process plays the server (see heap-child.ts): the signal goes to a real process's
  // main thread, which passes it on to its shard thread, and both write real snapshots.
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-heap-'));
  const child = spawn(process.execPath, [CHILD, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const until = async (ok: () => boolean): Promise<void> => {
    while (!ok()) await Promise.race([new Promise<void>((r) => waiters.push(r)), exited]);
  };
  await until(() => lines.includes('ready') || child.exitCode !== null);
  t.same(lines, ['ready'], 'the child armed main and its shard');
  process.kill(child.pid!, 'SIGUSR2');
  t.equal(await exited, 0, 'the child wrote both snapshots and exited');
  t.same(
    lines.slice(1).sort(),
    [`main ${join(dir, 'main-1.heapsnapshot')}`, `shard ${join(dir, 'shard-7-1.heapsnapshot')}`],
    'main wrote its first snapshot and the shard wrote its own',
  );
  t.same(readdirSync(dir).sort(), ['main-1.heapsnapshot', 'shard-7-1.heapsnapshot']);
  for (const f of readdirSync(dir)) t.ok(statSync(join(dir, f)).size > 1000, `${f} is a snapshot`);
  t.ok(existsSync(join(dir, 'main-1.heapsnapshot')));
});
