// Gives memory back once a thread has gone quiet after work. Under load V8 grows a thread's heap for
// the garbage it makes and, left alone, keeps it: nothing starts a full collection while no script
// allocates, so an idle server went on holding the heaps its busiest minute needed (issue 21: main's
// heap in use stayed at 44 MB for a minute after the load where a fresh server has 25). Every few
// seconds each thread (main and every shard) compares its own CPU time with the last reading: once
// it has been quiet for a few intervals in a row after real work, it runs one full collection, which
// also hands the freed heap pages back to the system. A quiet thread is not serving anyone, so the
// pause (tens of ms) costs nobody a wait; a busy one is never collected this way.
//
// The decision (IdleCollector) is pure and driven by the readings it is given, so it is unit-tested
// with made-up readings; armIdleCollection wires it to the thread's CPU clock, a timer and V8.
// DICECHESS_IDLE_GC=0 turns it off.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { threadCpuSeconds, threadHeapBytes } from './shard/owner/cpu.js';

export interface IdleCollectorOptions {
  /** A reading's interval counts as quiet when the thread was on CPU for less than this share of it. */
  quietShare: number;
  /** Quiet intervals in a row before a collection. */
  quietIntervals: number;
  /** CPU seconds the thread must have spent since the last collection for another to be worth it. */
  minWorkSeconds: number;
}

export const IDLE_COLLECTOR_DEFAULTS: IdleCollectorOptions = { quietShare: 0.03, quietIntervals: 2, minWorkSeconds: 1 };

/**
 * Decides, one reading at a time, when a thread has gone quiet after work. `observe` takes the
 * thread's CPU seconds so far and the wall seconds since the previous reading, and returns true
 * when now is the time to collect (then it counts the work from zero again).
 */
export class IdleCollector {
  private lastCpu: number | undefined;
  private quiet = 0;
  private work = 0;
  private readonly o: IdleCollectorOptions;

  constructor(options: Partial<IdleCollectorOptions> = {}) {
    this.o = { ...IDLE_COLLECTOR_DEFAULTS, ...options };
  }

  observe(cpuSeconds: number, wallSeconds: number): boolean {
    const last = this.lastCpu;
    this.lastCpu = cpuSeconds;
    if (last === undefined || wallSeconds <= 0) return false;
    const used = Math.max(0, cpuSeconds - last);
    this.work += used;
    if (used >= this.o.quietShare * wallSeconds) {
      this.quiet = 0;
      return false;
    }
    this.quiet++;
    if (this.quiet < this.o.quietIntervals || this.work < this.o.minWorkSeconds) return false;
    this.work = 0;
    this.quiet = 0;
    return true;
  }
}

/**
 * V8's full collection, when this process may have it: `gc` when node runs with --expose-gc, else
 * the same function taken from a fresh context after turning the flag on (V8 adds `gc` to every
 * context made while the flag is set; the flag changes nothing else). Undefined if neither works.
 */
export function fullCollection(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return () => void (exposed as () => void)();
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as (() => void) | undefined;
    return gc ? () => void gc() : undefined;
  } catch {
    return undefined;
  }
}

export const IDLE_CHECK_MS = 5_000;

/**
 * Arms the idle collection on the calling thread: a reading every `everyMs` (an unref'd timer, so it
 * never keeps a thread alive). Returns a function that disarms it. Off (a no-op) when
 * DICECHESS_IDLE_GC is `0` or V8's collection cannot be had.
 */
export function armIdleCollection(
  onCollected: (freedBytes: number) => void = () => undefined,
  everyMs = IDLE_CHECK_MS,
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  if (env.DICECHESS_IDLE_GC === '0') return () => undefined;
  const collect = fullCollection();
  if (!collect) return () => undefined;
  const decide = new IdleCollector();
  let last = performance.now();
  decide.observe(threadCpuSeconds(), 0);
  const timer = setInterval(() => {
    const now = performance.now();
    const wall = (now - last) / 1000;
    last = now;
    if (!decide.observe(threadCpuSeconds(), wall)) return;
    const before = threadHeapBytes().total;
    collect();
    onCollected(before - threadHeapBytes().total);
    // The collection's own CPU is not work to collect after.
    decide.observe(threadCpuSeconds(), 0);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
