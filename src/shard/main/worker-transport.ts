// The server's shard transport: each shard is a worker thread (the script src/shard-worker.ts), and a
// batch crosses as one postMessage each way: small batches as objects, larger ones packed by
// msgpackr into one transferred buffer (codec.ts; docs/DECISIONS.md has the channels measured).
import { Worker, type MessagePort } from 'node:worker_threads';
import type { GameConfig } from '../../game/game-config.js';
import type { Command, ShardReply } from '../protocol/messages.js';
import { batchOf, wireOf } from '../protocol/codec.js';
import type { ShardChannel, ShardEvents, ShardTransport } from '../protocol/transport.js';

/** What a shard's worker thread is started with (workerData). */
export interface ShardWorkerData {
  index: number;
  /** Where the games are stored: a ForwardingStore (memory server) or the LMDB directory. */
  store: { memory: true } | { memory: false; dataDir: string };
  config: GameConfig;
  /** External ids of the house bots and how each plays. */
  house: [string, 'random' | 'greedy'][];
  logLevel: string;
  statsEveryMs: number;
}

/**
 * The young generation of a shard's V8 heap, MB (V8 splits it in three: two semi-spaces of 4 MB and
 * the space for large new objects). V8's default lets it grow to 48 MB under a high allocation rate
 * and keeps it there; at 32 pairs of play the smaller one held the shard's reserved heap near 35 MB
 * instead of 70, for no CPU per turn that the soak could tell apart (bench/results/2026-11-27-issue-21.md).
 */
export const SHARD_YOUNG_GENERATION_MB = 12;

/** Main-thread seconds spent crossing to and from the shards, for /metrics. */
export interface ChannelTime {
  /** Packing and posting command batches, and unpacking reply batches (msgpackr ones). */
  dispatch: number;
}

export class WorkerTransport implements ShardTransport {
  /** Grows with every batch: see ChannelTime. */
  readonly time: ChannelTime = { dispatch: 0 };

  constructor(
    private readonly script: URL,
    private readonly data: Omit<ShardWorkerData, 'index'>,
    /** With several HTTP threads: new ports to the edge threads for shard `index` (one per edge), at every start. */
    private readonly feedPorts?: (index: number) => MessagePort[],
  ) {}

  open(index: number, events: ShardEvents): ShardChannel {
    const worker = new Worker(this.script, {
      workerData: { ...this.data, index } satisfies ShardWorkerData,
      name: `shard-${index}`,
      resourceLimits: { maxYoungGenerationSizeMb: SHARD_YOUNG_GENERATION_MB },
    });
    const feeds = this.feedPorts?.(index) ?? [];
    if (feeds.length > 0) worker.postMessage({ feeds }, feeds);
    let closing = false;
    let dead = false;
    const die = (err: Error): void => {
      if (dead || closing) return;
      dead = true;
      events.died(err);
    };
    const time = this.time;
    worker.on('message', (data: unknown) => {
      if (dead) return;
      const t0 = performance.now();
      const batch = batchOf(data) as ShardReply[];
      time.dispatch += (performance.now() - t0) / 1000;
      events.replies(batch);
    });
    worker.on('error', (e) => die(e));
    worker.on('exit', (code) => die(new Error(`shard ${index} exited with code ${code}`)));
    return {
      send: (batch: Command[]) => {
        if (dead) return;
        const t0 = performance.now();
        const { data, transfer } = wireOf(batch);
        worker.postMessage(data, transfer);
        time.dispatch += (performance.now() - t0) / 1000;
      },
      close: async () => {
        closing = true;
        await worker.terminate();
      },
    };
  }
}
