// The rules port backed by a Piscina worker pool: bounded queue, a deadline per task.
import { Piscina } from 'piscina';
import type { RulesPort, TreeResult } from './types.js';
import { treeLeafCount } from '../engine/index.js';

export interface PoolOptions {
  workers: number;
  maxQueue: number;
  taskTimeoutMs: number;
}

export class PoolRules implements RulesPort {
  private readonly pool: Piscina;
  private readonly timeoutMs: number;

  constructor(opts: PoolOptions) {
    this.pool = new Piscina({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: opts.workers,
      maxThreads: opts.workers,
      maxQueue: opts.maxQueue,
      idleTimeout: 60_000,
    });
    this.timeoutMs = opts.taskTimeoutMs;
  }

  async tree(dfen: string): Promise<TreeResult> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    const r = (await this.pool.run(dfen, { name: 'tree', signal })) as Uint8Array | string;
    if (typeof r === 'string') throw new Error(`engine worker refused ${dfen}: ${r}`);
    return { bytes: r, leaves: treeLeafCount(r) };
  }

  /** Tasks waiting for a worker (for metrics and health). */
  get queued(): number {
    return this.pool.queueSize;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
