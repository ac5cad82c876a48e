// Listening and stopping. Port 0 picks a free port (tests); the actual one is read back from the
// listen socket.
import uWS, { type TemplatedApp, type us_listen_socket, type us_socket } from 'uWebSockets.js';

export interface Listening {
  /** The port actually bound. */
  readonly port: number;
  /** Stops accepting and closes every open connection of the app, streams included (their onClose runs). */
  close(): void;
}

/** Rejects when the address cannot be bound (a start-up failure, reported once with the cause). */
export function listen(app: TemplatedApp, host: string, port: number): Promise<Listening> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket: us_listen_socket | false) => {
      if (socket === false) {
        reject(new Error(`cannot listen on ${host}:${port}`));
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
          // Keep-alive and stream connections would otherwise hold the process (and tests) open.
          app.close();
        },
      });
    });
  });
}
