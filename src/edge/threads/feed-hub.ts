// Main's part in the edge feeds (docs/ARCHITECTURE.md, "Edge threads"): it makes one MessageChannel
// per (edge thread, shard) pair and hands out the two ends, then stays out of the way: a game's lines
// go from its shard to the edges that follow it without crossing main. A shard that starts again
// (after it died) gets new channels, and each edge thread is handed its new end.
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { EdgeControl } from './protocol.js';

export class FeedHub {
  /** By edge, then shard: the edge's ends not yet handed to its thread. */
  private readonly held: MessagePort[][];
  private readonly threads: (Worker | undefined)[];

  constructor(readonly edges: number) {
    this.held = Array.from({ length: edges }, () => []);
    this.threads = Array.from({ length: edges }, () => undefined);
  }

  /** New channels for shard `index` (its start, or a start again): the shard's ends, by edge. */
  readonly shardEnds = (index: number): MessagePort[] => {
    const out: MessagePort[] = [];
    for (let edge = 0; edge < this.edges; edge++) {
      const { port1, port2 } = new MessageChannel();
      const thread = this.threads[edge];
      if (thread !== undefined) {
        thread.postMessage({ ctl: 'feed', shard: index, port: port1 } satisfies EdgeControl, [port1]);
      } else {
        this.held[edge][index]?.close();
        this.held[edge][index] = port1;
      }
      out.push(port2);
    }
    return out;
  };

  /** Edge `edge`'s ends, by shard, for its workerData (transferred). */
  takeEdgeEnds(edge: number): MessagePort[] {
    const ends = this.held[edge];
    this.held[edge] = [];
    return ends;
  }

  /** Edge `edge`'s thread runs: a shard that starts again sends it its new end. */
  started(edge: number, thread: Worker): void {
    this.threads[edge] = thread;
  }

  /** The edge threads are gone (the server stops): ends not handed over are closed. */
  forget(): void {
    this.threads.fill(undefined);
    for (const ends of this.held) for (const p of ends) p?.close();
  }
}
