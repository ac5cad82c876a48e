// The edge threads of a server with `http.threads` > 1, seen from main: it starts them with the
// routes main's router recorded, makes them all listen on one port (port-claim.ts keeps other
// processes off it), links each to main (edge-link.ts), and stops them. What `listen()` gives back is
// the same Listening as one thread's, so the composition root and the tests cannot tell them apart.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../domain/log.js';
import type { Listenable, Listening } from '../listen.js';
import { wake } from './at-once.js';
import { EdgeLink } from './edge-link.js';
import type { FeedHub } from './feed-hub.js';
import { claimPort } from './port-claim.js';
import type { EdgeControl, EdgeThreadData } from './protocol.js';
import type { RecordingApp } from './recording-app.js';

export interface EdgeThreadsOptions {
  /** The edge thread's script (src/edge-worker.ts, compiled). */
  readonly script: URL;
  readonly count: number;
  /** The built web page's directory, or null. */
  readonly webDir: string | null;
  readonly log: Logger;
  /** Runs around the handling of each batch from an edge thread (main gathers stream writes so). */
  readonly around?: (fn: () => void) => void;
  /** The ports between the edge threads and the shards (game streams' lines go straight to the edges). */
  readonly feeds?: FeedHub;
  /** `streams.maxBufferedBytes`: what a followed stream may hold on its edge thread. */
  readonly maxBufferedBytes?: number;
}

/** A Listening whose threads have ended once `stopped` settles. */
export interface ThreadedListening extends Listening {
  readonly stopped: Promise<void>;
}

/** How long a stopping server waits for its edge threads to end before it goes on without them. */
const STOP_WAIT_MS = 5000;

interface Thread {
  readonly worker: Worker;
  readonly link: EdgeLink;
  readonly exited: Promise<void>;
  listened: ((ok: boolean) => void) | undefined;
}

export class EdgeThreads {
  private readonly counters: Int32Array;
  private readonly feedCounters: Int32Array;
  /** One word per thread, bumped after each batch main posts to it (at-once.ts). */
  private readonly wakes: Int32Array;
  private threads: Thread[] = [];

  constructor(
    private readonly recording: RecordingApp,
    private readonly o: EdgeThreadsOptions,
  ) {
    this.counters = new Int32Array(new SharedArrayBuffer(4 * o.count));
    this.feedCounters = new Int32Array(new SharedArrayBuffer(4 * o.count));
    this.wakes = new Int32Array(new SharedArrayBuffer(4 * o.count));
  }

  /** Game updates each edge thread has received from the shards (tests: only threads with a stream of the game get any). */
  feedUpdatesPerThread(): number[] {
    return Array.from(this.feedCounters, (_, i) => Atomics.load(this.feedCounters, i));
  }

  /** Requests each edge thread has taken since it started (a debug counter). */
  requestsPerThread(): number[] {
    return Array.from(this.counters, (_, i) => Atomics.load(this.counters, i));
  }

  /** Starts the threads and binds the port on every one; rejects with a one-line cause. */
  async listen(edge: Listenable, host: string, port: number): Promise<ThreadedListening> {
    const claim = await claimPort(host, port);
    const routes = this.recording.keys();
    for (let index = 0; index < this.o.count; index++) {
      this.threads.push(this.start({
        index, routes, webDir: this.o.webDir, counters: this.counters.buffer as SharedArrayBuffer,
        feedCounters: this.feedCounters.buffer as SharedArrayBuffer, feeds: this.o.feeds?.takeEdgeEnds(index) ?? [],
        maxBufferedBytes: this.o.maxBufferedBytes ?? 1 << 20, wakes: this.wakes.buffer as SharedArrayBuffer,
      }));
    }
    const results = await Promise.all(
      this.threads.map(
        (t) =>
          new Promise<boolean>((resolve) => {
            t.listened = resolve;
            void t.exited.then(() => resolve(false));
            t.worker.postMessage({ ctl: 'listen', host, port: claim.port } satisfies EdgeControl);
          }),
      ),
    );
    let open = true;
    const stopped = (): Promise<void> => {
      open = false;
      this.o.feeds?.forget();
      for (const t of this.threads) t.worker.postMessage({ ctl: 'unlisten' } satisfies EdgeControl);
      edge.closeConnections();
      for (const t of this.threads) {
        t.link.closeAll();
        t.link.flush();
        t.worker.postMessage({ ctl: 'stop' } satisfies EdgeControl);
      }
      const all = Promise.all(this.threads.map((t) => t.exited)).then(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((done) => {
        timer = setTimeout(() => {
          this.o.log.warn({ threads: this.threads.length }, 'edge threads did not end in time');
          done();
        }, STOP_WAIT_MS);
        timer.unref();
      });
      return Promise.race([all, late]).finally(() => {
        clearTimeout(timer);
        claim.release();
      });
    };
    if (results.some((ok) => !ok)) {
      await stopped();
      throw new Error(`cannot listen on ${host}:${claim.port}: the address could not be bound by every edge thread`);
    }
    let stopping: Promise<void> | undefined;
    const listening: ThreadedListening = {
      port: claim.port,
      close: () => {
        if (open) stopping = stopped();
      },
      get stopped() {
        return stopping ?? Promise.resolve();
      },
    };
    return listening;
  }

  private start(data: EdgeThreadData): Thread {
    const worker = new Worker(this.o.script, { workerData: data, transferList: [...data.feeds], name: `edge-${data.index}` });
    this.o.feeds?.started(data.index, worker);
    const wakes = this.wakes;
    const link = new EdgeLink(worker, this.recording.routes, this.o.log, this.o.around, data.feeds.length > 0, () => wake(wakes, data.index));
    const exited = new Promise<void>((done) => worker.once('exit', () => done()));
    const t: Thread = { worker, link, exited, listened: undefined };
    worker.on('message', (msg: ArrayBuffer | EdgeControl) => {
      if (msg instanceof ArrayBuffer) link.receive(msg);
      else if (msg.ctl === 'listening') {
        t.listened?.(msg.ok);
        t.listened = undefined;
      }
    });
    worker.on('error', (err) => this.o.log.error({ err, thread: `edge-${data.index}` }, 'edge thread failed'));
    return t;
  }
}
