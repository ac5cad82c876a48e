// The composition root of an edge thread (docs/ARCHITECTURE.md, "Edge threads"): a uWS app with main's
// routes and the web page, listening on the server's port beside the other edge threads, carrying
// requests to main and main's answers back as packed batches over the parent port.
import { parentPort, workerData } from 'node:worker_threads';
import uWS from 'uWebSockets.js';
import { bindWebPages, loadWebAssets } from './edge/web.js';
import { EdgeServer } from './edge/threads/edge-server.js';
import type { EdgeControl, EdgeThreadData } from './edge/threads/protocol.js';

const data = workerData as EdgeThreadData;
const port = parentPort;
if (!port) throw new Error('edge-worker runs only as a worker thread');

const counters = new Int32Array(data.counters);
const app = uWS.App();
const server = new EdgeServer({
  app,
  routes: data.routes,
  post: (buf) => port.postMessage(buf, [buf]),
  counted: () => void Atomics.add(counters, data.index, 1),
});
const web = data.webDir === null ? undefined : loadWebAssets(data.webDir);
if (web) bindWebPages(app, web);

port.on('message', (msg: ArrayBuffer | EdgeControl) => {
  if (msg instanceof ArrayBuffer) return server.receive(msg);
  switch (msg.ctl) {
    case 'listen':
      void server.listen(msg.host, msg.port).then((ok) => port.postMessage({ ctl: 'listening', ok } satisfies EdgeControl));
      return;
    case 'unlisten':
      server.unlisten();
      return;
    case 'stop':
      // Every socket closed and the port let go: the thread ends by itself (terminating a thread that
      // holds uWS sockets aborts the process).
      server.stop();
      port.close();
      return;
  }
});
