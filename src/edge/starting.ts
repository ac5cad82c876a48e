// The HTTP side of a cluster node that is still starting: it listens at once (so an operator's
// health check and a load balancer see a node that is alive but not ready, rather than a refused
// port) and answers every request, /health included, 503 `node_starting` with Retry-After and the
// reason it is waiting. The real edge needs the store, the games and the services, which exist only
// once the cluster is up. It is built on `app`, which only records its routes, and `handOver` puts
// them on the listening app: the same socket goes on, so no connection is refused in between (closing
// the socket and binding it again fails for a minute after the server closed any connection: the
// port is held by those connections' TIME_WAIT, and uSockets' exclusive bind does not reuse it).
import uWS, { type HttpRequest, type HttpResponse, type TemplatedApp } from 'uWebSockets.js';
import type { Logger } from '../domain/log.js';
import { listen, type Listenable, type Listening } from './listen.js';
import { problem, statusLine } from './reply.js';

export interface StartingEdge {
  /** The port bound (the real edge answers on it after `handOver`). */
  readonly port: number;
  /** The app to build the real edge on: its routes are recorded, and take effect at `handOver`. */
  readonly app: TemplatedApp;
  /** What the node waits for now, shown in the answers' detail. */
  waitingFor(cause: string): void;
  /** Stops answering (start-up failed). */
  close(): void;
  /** The real edge (built on `app`) answers from now on, on the same socket. */
  handOver(edge: Listenable): Listening;
}

/** How long a client should wait before asking again (seconds). */
const RETRY_AFTER = '1';

type Handler = (res: HttpResponse, req: HttpRequest) => void;
/** The app methods the edge registers routes with (router.ts, web.ts). */
const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'del', 'head', 'options', 'any']);

export async function listenStarting(host: string, port: number, log: Logger): Promise<StartingEdge> {
  const app = uWS.App();
  let cause = '';
  // The router's own catch-all (paths no route matches): uWS allows one handler per method and
  // pattern, and this app's catch-all is the starting one, so that one hands over to it.
  let fallback: Handler | undefined;
  app.any('/*', (res, req) => {
    if (fallback !== undefined) return fallback(res, req);
    const detail = `this node is starting: it is waiting for its cluster${cause === '' ? '' : ` (${cause})`}; retry shortly`;
    const reply = problem('node_starting', detail, { 'retry-after': RETRY_AFTER });
    res.writeStatus(statusLine(reply.status));
    res.writeHeader('content-type', reply.contentType ?? 'application/problem+json');
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
    res.writeHeader('cache-control', 'no-store');
    res.end(reply.body);
  });
  let closeConnections = (): void => {};
  const listening: Listening = await listen({ app, closeConnections: () => closeConnections() }, host, port);
  log.info({ port: listening.port }, `starting: answering 503 on port ${listening.port} until the cluster is up`);

  const recorded: [method: string, pattern: string, handler: Handler][] = [];
  const deferred: TemplatedApp = new Proxy(app, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && ROUTE_METHODS.has(prop)) {
        return (pattern: string, handler: Handler) => {
          recorded.push([prop, pattern, handler]);
          return receiver;
        };
      }
      const v: unknown = Reflect.get(target, prop);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    port: listening.port,
    app: deferred,
    waitingFor: (c) => void (cause = c.length > 300 ? `${c.slice(0, 300)}…` : c),
    close: () => listening.close(),
    handOver(edge) {
      // Added in one turn of the event loop: no request sees half of the routes.
      for (const [method, pattern, handler] of recorded) {
        if (method === 'any' && pattern === '/*') fallback = handler;
        else (app as unknown as Record<string, (p: string, h: Handler) => void>)[method](pattern, handler);
      }
      recorded.length = 0;
      closeConnections = () => edge.closeConnections();
      return listening;
    },
  };
}
