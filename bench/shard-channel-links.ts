// The four channels the `channel` benchmark compares, each linking the main thread to one shard
// worker: a single-thread Piscina pool (entries as the task's result, or posted on a MessagePort),
// and a plain worker_threads Worker (structured clone, or one msgpackr buffer transferred).
import { MessageChannel, Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { decodeBatch, encodeBatch } from '../src/shard/protocol/codec.js';
import { StandInShard, type Command, type Entry } from './shard-channel-actor.js';

export interface Link {
  readonly name: string;
  readonly note: string;
  /** Sends one batch; its entries arrive later through `deliver` as one array. */
  send(cmds: Command[]): void;
  deliver: (entries: Entry[]) => void;
  /** The worker thread's own on-CPU nanoseconds, as it reads them. */
  workerCpuNs(): Promise<number>;
  close(): Promise<void>;
}

const fail = (err: unknown): void => {
  console.error('channel bench: a batch failed', err);
  process.exitCode = 1;
};

abstract class Base {
  deliver: (entries: Entry[]) => void = () => {};
}

const TASK = new URL('./shard-channel-task.js', import.meta.url).href;
const WORKER = new URL('./shard-channel-worker.js', import.meta.url);

/** Piscina's own shape: one task per batch, its entries the task's result. Atomics left at the
 * default ('sync'): between tasks the worker thread is parked in Atomics.wait, so it has no event
 * loop of its own then (no timers, no I/O callbacks), which a shard needs. */
class PiscinaResult extends Base implements Link {
  readonly name = 'piscina';
  readonly note = 'Piscina 1 thread, a task per batch, entries as the result (atomics sync)';
  private readonly pool = new Piscina({ filename: TASK, minThreads: 1, maxThreads: 1 });
  send(cmds: Command[]): void {
    this.pool.run(cmds).then((r) => this.deliver(r as Entry[]), fail);
  }
  async workerCpuNs(): Promise<number> {
    return ((await this.pool.run({ ctl: 'cpu' })) as { ns: number }).ns;
  }
  close(): Promise<void> {
    return this.pool.destroy();
  }
}

/** Piscina as a shard would need it: events (solicited or not) on a MessagePort handed over once,
 * and atomics 'async' so the worker's event loop runs between tasks. */
class PiscinaPort extends Base implements Link {
  readonly name = 'piscina+port';
  readonly note = 'Piscina 1 thread, a task per batch, entries on a MessagePort (atomics async)';
  private readonly pool = new Piscina({ filename: TASK, minThreads: 1, maxThreads: 1, atomics: 'async' });
  private readonly events = new MessageChannel();
  async start(): Promise<this> {
    this.events.port1.on('message', (m: Entry[]) => this.deliver(m));
    await this.pool.run({ ctl: 'port', port: this.events.port2 }, { transferList: [this.events.port2] });
    return this;
  }
  send(cmds: Command[]): void {
    this.pool.run(cmds).then(undefined, fail);
  }
  async workerCpuNs(): Promise<number> {
    return ((await this.pool.run({ ctl: 'cpu' })) as { ns: number }).ns;
  }
  async close(): Promise<void> {
    this.events.port1.close();
    await this.pool.destroy();
  }
}

/** A plain Worker; one postMessage per batch each way. */
class PlainWorker extends Base implements Link {
  readonly name: string;
  readonly note: string;
  private readonly worker = new Worker(WORKER);
  private cpuWaiter: ((ns: number) => void) | undefined;

  constructor(private readonly packed: boolean) {
    super();
    this.name = packed ? 'worker+msgpackr' : 'worker';
    this.note = packed
      ? 'worker_threads, one msgpackr buffer per batch each way, transferred (src/shard/protocol/codec.ts)'
      : 'worker_threads, one structured-clone array per batch each way';
    this.worker.on('message', (m: Uint8Array | Entry[] | { ctl: 'cpu'; ns: number }) => {
      if (m instanceof Uint8Array) this.deliver(decodeBatch(m) as Entry[]);
      else if (Array.isArray(m)) this.deliver(m);
      else this.cpuWaiter?.(m.ns);
    });
    this.worker.on('error', fail);
  }
  send(cmds: Command[]): void {
    if (this.packed) {
      const buf = encodeBatch(cmds);
      this.worker.postMessage(buf, [buf.buffer]);
    } else {
      this.worker.postMessage(cmds);
    }
  }
  workerCpuNs(): Promise<number> {
    return new Promise((resolve) => {
      this.cpuWaiter = resolve;
      this.worker.postMessage({ ctl: 'cpu' });
    });
  }
  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

export async function openLinks(): Promise<Link[]> {
  return [new PiscinaResult(), await new PiscinaPort().start(), new PlainWorker(false), new PlainWorker(true)];
}

/** No thread and no channel: each batch answered on the next loop turn (setImmediate) with entries made from cached
 * lines. What the main thread then spends (making commands, handling entries) is the floor under
 * every channel's main-thread row. */
export class FloorLink extends Base implements Link {
  readonly name = 'floor';
  readonly note = 'no thread, no channel: the driver alone';
  private readonly cached = new StandInShard().handle([
    { gameId: 'g-floor', seat: 'white', moves: ['e2e4', 'e7e5'], at: 0 },
  ])[0];
  send(cmds: Command[]): void {
    const c = this.cached;
    const out: Entry[] = cmds.map((cmd) => ({ gameId: cmd.gameId, lines: c.lines, patch: c.patch, verdict: c.verdict, at: cmd.at }));
    setImmediate(() => this.deliver(out));
  }
  async workerCpuNs(): Promise<number> {
    return 0;
  }
  async close(): Promise<void> {}
}
