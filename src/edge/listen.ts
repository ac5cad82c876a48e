// Listening and stopping. Port 0 picks a free port (tests); the actual one is read back from the
// listen socket.
import net from 'node:net';
import uWS, { type TemplatedApp, type us_listen_socket, type us_socket } from 'uWebSockets.js';

export interface Listening {
  /** The port actually bound. */
  readonly port: number;
  /** Stops accepting and closes every open connection of the app, streams included (their onClose runs). */
  close(): void;
}

/** What listen() needs of the edge: the app, and a way to cut the connections it tracks. */
export interface Listenable {
  readonly app: TemplatedApp;
  /** Closes every connection with a request in flight or a stream open, and any that arrives later. */
  closeConnections(): void;
}

/**
 * LIBUS_LISTEN_EXCLUSIVE_PORT. By default uSockets sets SO_REUSEPORT, so a second server on a busy
 * port starts as well and the kernel splits connections between the two; exclusive makes it fail.
 */
const EXCLUSIVE_PORT = 1;

type ListenCallback = (socket: us_listen_socket | false) => void;
/** The binding takes (host, port, options, cb); its typings only declare (port, options, cb). */
interface ListenWithOptions {
  listen(host: string, port: number, options: number, cb: ListenCallback): unknown;
}

/** Rejects when the address cannot be bound, with a one-line cause (e.g. "port 8080 is already in use"). */
export function listen(edge: Listenable, host: string, port: number): Promise<Listening> {
  const app = edge.app;
  return new Promise((resolve, reject) => {
    (app as unknown as ListenWithOptions).listen(host, port, EXCLUSIVE_PORT, (socket) => {
      if (socket === false) {
        void whyNotListening(host, port).then((why) => reject(new Error(`cannot listen on ${host}:${port}: ${why}`)));
        return;
      }
      // The listen socket is a socket as far as uSockets is concerned; the typings keep them apart.
      const actual = uWS.us_socket_local_port(socket as unknown as us_socket);
      let open = true;
      resolve({
        port: actual,
        close() {
          if (!open) return;
          open = false;
          uWS.us_listen_socket_close(socket);
          // This uWS build has no app.close(): the edge cuts what it tracks, and idle keep-alive
          // connections either bring a request (refused by closing them) or time out in uWS.
          edge.closeConnections();
        },
      });
    });
  });
}

/**
 * uSockets reports a failed bind as `false` without the reason, so ask the OS once more through
 * node:net (which binds without SO_REUSEPORT too) to say why, in words an operator can act on.
 */
export function whyNotListening(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => {
      switch (e.code) {
        case 'EADDRINUSE':
          resolve(`port ${port} is already in use`);
          break;
        case 'EADDRNOTAVAIL':
          resolve(`address ${host} is not an address of this machine`);
          break;
        case 'EACCES':
          resolve(`no permission to listen on port ${port}`);
          break;
        default:
          resolve(e.code ?? e.message);
      }
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve('the address could not be bound')));
  });
}
