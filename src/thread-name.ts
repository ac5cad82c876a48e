// Names the calling thread for the operating system (Linux: /proc/thread-self/comm), so that `top -H`,
// `ps -L` and the benchmarks, which read each thread's CPU from /proc/PID/task/TID/stat, can tell an
// edge thread from a game shard and from V8's and libuv's helpers (node names every thread "node").
// Only worker threads are named: the main thread's name is the process's name.
import { writeFileSync } from 'node:fs';

/** Sets the calling thread's name (at most 15 bytes are kept); does nothing where /proc is absent. */
export function nameThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // not Linux, or /proc not mounted: the name only helps diagnosis
  }
}
