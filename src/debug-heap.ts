// A debugging aid, not part of the API: with DICECHESS_HEAP_SNAPSHOT_DIR set, SIGUSR2 makes every
// thread of the server write a V8 heap snapshot into that directory (main-N.heapsnapshot,
// shard-0-N.heapsnapshot, …; N counts the signals). A worker thread receives no signals, so main
// passes the request on over a BroadcastChannel that each shard listens to. Writing a snapshot stops
// its thread for a few seconds (and needs about twice the heap's size in memory while it runs).
// `node dist/bench/heap-summary.js FILE` reads one.
import { writeHeapSnapshot } from 'node:v8';
import { join } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';

const CHANNEL = 'dicechess-debug-heap-snapshot';

/** The directory snapshots go to, or undefined when the aid is off. */
export function heapSnapshotDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env.DICECHESS_HEAP_SNAPSHOT_DIR;
  return dir ? dir : undefined;
}

/** Writes this thread's snapshot as DIR/THREAD-N.heapsnapshot; returns its path. */
export function writeSnapshot(dir: string, thread: string, n: number): string {
  return writeHeapSnapshot(join(dir, `${thread}-${n}.heapsnapshot`));
}

/**
 * On the main thread: SIGUSR2 asks every shard for its snapshot, then writes main's. Returns a
 * function that disarms it (or a no-op when the aid is off).
 */
export function armMainHeapSnapshots(onWritten: (path: string) => void, dir = heapSnapshotDir()): () => void {
  if (!dir) return () => undefined;
  const channel = new BroadcastChannel(CHANNEL);
  channel.unref();
  let n = 0;
  const onSignal = (): void => {
    n++;
    channel.postMessage(n); // the shards write theirs on their own threads meanwhile
    onWritten(writeSnapshot(dir, 'main', n));
  };
  process.on('SIGUSR2', onSignal);
  return () => {
    process.off('SIGUSR2', onSignal);
    channel.close();
  };
}

/** On a shard's thread: writes its snapshot whenever main passes the signal on. */
export function armShardHeapSnapshots(thread: string, onWritten: (path: string) => void, dir = heapSnapshotDir()): void {
  if (!dir) return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.unref();
  channel.onmessage = (e: unknown) => {
    const n = Number((e as { data: unknown }).data);
    onWritten(writeSnapshot(dir, thread, n));
  };
}
