// The baseline of bench/http.ts, run as a child process (forked with an IPC channel): a bare
// uWebSockets.js app that answers GET <path> (or POST, once the body is read) with fixed bytes and headers, copied from our server's
// answer to the same path. What our server spends beyond this is routing, auth/CORS, the game
// lookup and encoding the body. It exits when its parent goes away.
import uWS from 'uWebSockets.js';

interface Route {
  body: string;
  headers: [string, string][];
  /** 'post': answer POST <path> once the request body is read (default: GET). */
  method?: 'post';
}

if (!process.send) {
  console.error('bare-uws: run me with child_process.fork (IPC channel needed)');
  process.exit(2);
}

process.once('disconnect', () => process.exit(0));
process.once('SIGTERM', () => process.exit(0));

process.once('message', (msg: { routes: Record<string, Route> }) => {
  const app = uWS.App();
  for (const [path, route] of Object.entries(msg.routes)) {
    const body = Buffer.from(route.body, 'utf8');
    const answer = (res: uWS.HttpResponse): void => {
      res.writeStatus('200 OK');
      for (const [k, v] of route.headers) res.writeHeader(k, v);
      res.end(body);
    };
    if (route.method === 'post') {
      app.post(path, (res) => {
        res.onAborted(() => {});
        res.onData((_chunk, last) => {
          if (last) res.cork(() => answer(res));
        });
      });
    } else {
      app.get(path, answer);
    }
  }
  app.any('/*', (res) => {
    res.writeStatus('404 Not Found').end();
  });
  app.listen('127.0.0.1', 0, (socket) => {
    if (!socket) {
      console.error('bare-uws: cannot listen on 127.0.0.1');
      process.exit(1);
    }
    const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
    process.send?.({ port });
  });
});
