// How many threads serve HTTP (`http.threads`, docs/OPERATIONS.md) and what the composition root
// builds for them: with one, today's edge on the main thread; with more, main's router is built on a
// RecordingApp and the edge threads (src/edge/threads/) serve its routes and the web page.
import { availableParallelism } from 'node:os';
import type { TemplatedApp } from 'uWebSockets.js';
import type { Logger } from './domain/log.js';
import { listen, type Listenable, type Listening } from './edge/listen.js';
import { EdgeThreads } from './edge/threads/pool.js';
import { RecordingApp } from './edge/threads/recording-app.js';
import { loadWebAssets, type WebAssets } from './edge/web.js';
import type { Config } from './server-config.js';

/** `http.threads` as a count: 'auto' is about half the cores, at least 1. */
export function httpThreadCount(threads: Config['http']['threads']): number {
  return threads === 'auto' ? Math.max(1, Math.floor(availableParallelism() / 2)) : threads;
}

export interface HttpEdge {
  /** The app main's router is built on (undefined: a new uWS app, or the cluster's starting one). */
  readonly app: TemplatedApp | undefined;
  /** The web page main binds itself (one thread only; edge threads serve it themselves). */
  readonly web: WebAssets | undefined;
  /** The edge threads, when there are several. */
  readonly threads: EdgeThreads | undefined;
  listen(edge: Listenable, host: string, port: number): Promise<Listening & { readonly stopped?: Promise<void> }>;
}

/**
 * A cluster node keeps one thread: its edge is handed over from the starting app on the same socket
 * (src/edge/starting.ts), which is one uWS app.
 */
export function httpEdge(config: Config, o: { cluster: boolean; webDir: string; log: Logger; around: (fn: () => void) => void }): HttpEdge {
  const count = o.cluster ? 1 : httpThreadCount(config.http.threads);
  if (count === 1) return { app: undefined, web: loadWebAssets(o.webDir), threads: undefined, listen };
  const recording = new RecordingApp();
  const threads = new EdgeThreads(recording, {
    script: new URL('./edge-worker.js', import.meta.url), count, log: o.log, around: o.around,
    webDir: loadWebAssets(o.webDir) === undefined ? null : o.webDir,
  });
  return { app: recording.app, web: undefined, threads, listen: (edge, host, port) => threads.listen(edge, host, port) };
}
