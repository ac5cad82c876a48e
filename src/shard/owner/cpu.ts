// CPU time and V8 heap of the calling thread, for the per-thread figures of /metrics and the benchmarks. Linux
// keeps each thread's on-CPU nanoseconds in /proc/thread-self/schedstat (first field); elsewhere
// (or when /proc is not mounted) the whole process's user+system time stands in.
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

let procReadable = true;

export function threadCpuSeconds(): number {
  if (procReadable) {
    try {
      const ns = Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ', 1)[0]);
      if (Number.isFinite(ns)) return ns / 1e9;
    } catch {
      procReadable = false;
    }
  }
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** The calling thread's V8 heap: bytes in use and bytes the heap has reserved (every space). */
export function threadHeapBytes(): { used: number; total: number } {
  const h = getHeapStatistics();
  return { used: h.used_heap_size, total: h.total_heap_size };
}
