// GET /metrics on a port of its own, so that the public port need not expose it: Prometheus scrapes
// an address the outside cannot reach (127.0.0.1 unless configured otherwise). Every other path
// there is a 404, like an unknown path on the public port.
import uWS from 'uWebSockets.js';
import type { BugLog } from './responder.js';
import { listen, type Listening } from './listen.js';
import { createRouter } from './router.js';

export async function listenMetrics(host: string, port: number, text: () => Promise<string>, logger: BugLog): Promise<Listening> {
  const router = createRouter(uWS.App(), { logger });
  router.get('/metrics', async () => ({
    status: 200,
    body: await text(),
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
    headers: undefined,
  }));
  return listen(router, host, port);
}
