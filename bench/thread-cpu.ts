// CPU seconds of each thread of a process, read from /proc/PID/task/TID/stat (utime + stime), grouped
// by what the thread is: `main` (the thread whose id is the process id), `edge` and `shard` (the
// server names its worker threads dc-edge-N and dc-shard-N, src/thread-name.ts) and `other` (V8's and
// libuv's helpers). Linux only; elsewhere every figure is empty.
import { readdirSync, readFileSync } from 'node:fs';

export type ThreadGroup = 'main' | 'edge' | 'shard' | 'other';

export interface ThreadCpu {
  /** Seconds by group. */
  readonly groups: Record<ThreadGroup, number>;
  /** Seconds by thread name, for the named threads (dc-edge-0, dc-shard-0…). */
  readonly named: Record<string, number>;
}

const TICKS = 100; // USER_HZ on Linux

export function readThreadCpu(pid: number): ThreadCpu {
  const groups: Record<ThreadGroup, number> = { main: 0, edge: 0, shard: 0, other: 0 };
  const named: Record<string, number> = {};
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return { groups, named };
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
      // The name is in parentheses and may hold spaces: the fields after it are counted from its end.
      const open = stat.indexOf('(');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(open + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the name.
      const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS;
      const group: ThreadGroup = tid === String(pid) ? 'main' : name.startsWith('dc-edge-') ? 'edge' : name.startsWith('dc-shard-') ? 'shard' : 'other';
      groups[group] += seconds;
      if (name.startsWith('dc-')) named[name] = (named[name] ?? 0) + seconds;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return { groups, named };
}

/** CPU ms per turn by group between two readings. */
export function msPerTurn(a: ThreadCpu, b: ThreadCpu, turns: number): Record<ThreadGroup, number> {
  const out = { main: 0, edge: 0, shard: 0, other: 0 };
  if (!turns) return out;
  for (const g of Object.keys(out) as ThreadGroup[]) out[g] = ((b.groups[g] - a.groups[g]) * 1000) / turns;
  return out;
}
