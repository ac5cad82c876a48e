// The composition root of an edge thread (docs/ARCHITECTURE.md, "Edge threads"): a uWS app with main's
// routes and the web page, listening on the server's port beside the other edge threads, carrying
// requests to main and main's answers back as packed batches over the parent port.
import { parentPort, workerData } from 'node:worker_threads';
import uWS from 'uWebSockets.js';
import { bindWebPages, loadWebAssets } from './edge/web.js';
import { AtOnce } from './edge/threads/at-once.js';
import { EdgeServer } from './edge/threads/edge-server.js';
import type { EdgeControl, EdgeThreadData } from './edge/threads/protocol.js';
import { nameThread } from './thread-name.js';

const data = workerData as EdgeThreadData;
nameThread(`dc-edge-${data.index}`);
if (!parentPort) throw new Error('edge-worker runs only as a worker thread');
const port = parentPort;

const counters = new Int32Array(data.counters);
const feedCounters = new Int32Array(data.feedCounters);
const app = uWS.App();
// Main's messages taken while the thread waits for an answer (at-once.ts) are handled at once, but
// for the orders that touch the listening socket or the app ('listen', 'unlisten', 'stop'), which
// must not run inside a uWS request handler: those wait for the next turn. (Deferring every message
// after such an order would keep the awaited answer from the waiting request.)
const atOnce = new AtOnce(new Int32Array(data.wakes), data.index, port, (msg) => {
  const m = msg as ArrayBuffer | EdgeControl;
  if (m instanceof ArrayBuffer || m.ctl === 'feed') take(m);
  else setImmediate(() => control(m));
}, data.routes.length);
const server: EdgeServer = new EdgeServer({
  app,
  routes: data.routes,
  post: (buf) => port.postMessage(buf, [buf]),
  counted: () => void Atomics.add(counters, data.index, 1),
  fed: () => void Atomics.add(feedCounters, data.index, 1),
  maxBufferedBytes: data.maxBufferedBytes,
  atOnce,
});
data.feeds.forEach((feed, shard) => server.feeds.connect(shard, feed));
const web = data.webDir === null ? undefined : loadWebAssets(data.webDir);
if (web) bindWebPages(app, web);

port.on('message', (msg: ArrayBuffer | EdgeControl) => take(msg));

function take(msg: ArrayBuffer | EdgeControl): void {
  if (msg instanceof ArrayBuffer) server.receive(msg);
  else control(msg);
}

function control(msg: EdgeControl): void {
  switch (msg.ctl) {
    case 'listen':
      void server.listen(msg.host, msg.port).then((ok) => port.postMessage({ ctl: 'listening', ok } satisfies EdgeControl));
      return;
    case 'unlisten':
      server.unlisten();
      return;
    case 'feed':
      server.feeds.connect(msg.shard, msg.port);
      return;
    case 'stop':
      // Every socket closed and the port let go: the thread ends by itself (terminating a thread that
      // holds uWS sockets aborts the process).
      server.stop();
      server.feeds.close();
      port.close();
      return;
  }
}
