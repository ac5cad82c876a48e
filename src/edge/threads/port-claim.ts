// Keeping the port to one process when several edge threads share it. Each edge thread binds with
// SO_REUSEPORT (the kernel then spreads connections over them), and that option would also let a
// second server of the same user bind the same port and take half of the connections silently. So
// before the threads bind, this process takes an advisory lock named after the address (a second
// dicechess process with edge threads stops there), and binds the address once without SO_REUSEPORT
// (anything already listening there, a one-thread dicechess included, makes that fail). Once the
// threads listen, a program that binds without SO_REUSEPORT fails as it would against one thread.
// What is left open: a program of the same user that binds with SO_REUSEPORT and takes no lock.
import net from 'node:net';
import { closeSync, constants, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { whyNotListening } from '../listen.js';

// fs-native-extensions (already used for the data directory's lock, src/store/dir-lock.ts): an
// open-file-description lock, dropped by the kernel when the process ends however it ends.
const { tryLock } = createRequire(import.meta.url)('fs-native-extensions') as { tryLock(fd: number): boolean };

export interface PortClaim {
  /** The port to bind (port 0 resolved to a free one). */
  readonly port: number;
  /** Lets go of the lock (idempotent). */
  release(): void;
}

/** The lock file of an address: one per host and port, in the system's temporary directory. */
export function portLockPath(host: string, port: number): string {
  return join(tmpdir(), `dicechess-http-${host.replace(/[^0-9A-Za-z.]/g, '_')}-${port}.lock`);
}

/** Rejects with the same one-line cause as listen() (e.g. "port 8080 is already in use"). */
export async function claimPort(host: string, port: number): Promise<PortClaim> {
  const actual = port === 0 ? await freePort(host) : port;
  const fail = (why: string): Error => new Error(`cannot listen on ${host}:${actual}: ${why}`);
  let fd: number | undefined;
  try {
    fd = openSync(portLockPath(host, actual), constants.O_RDWR | constants.O_CREAT, 0o666);
  } catch {
    fd = undefined; // another user's lock file: the bind test below still guards the port
  }
  if (fd !== undefined && !tryLock(fd)) {
    closeSync(fd);
    throw fail(`port ${actual} is already in use`);
  }
  const release = (): void => {
    if (fd === undefined) return;
    closeSync(fd);
    fd = undefined;
  };
  if (!(await bindsAlone(host, actual))) {
    release();
    throw fail(await whyNotListening(host, actual));
  }
  return { port: actual, release };
}

/** A port the system gives for `host` now (port 0 cannot be shared: uSockets binds it without SO_REUSEPORT). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => reject(new Error(`cannot listen on ${host}:0: ${e.code ?? e.message}`)));
    probe.listen({ host, port: 0, exclusive: true }, () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

/** Whether the address can be bound without SO_REUSEPORT right now (nobody listens on it). */
function bindsAlone(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}
