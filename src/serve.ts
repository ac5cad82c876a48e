// `dicechess serve`: the server as a process, from start-up to a clean stop on SIGINT or SIGTERM.
import type { Config } from './server-config.js';
import { armMainHeapSnapshots } from './debug-heap.js';
import { armIdleCollection } from './idle-memory.js';
import { createLogger } from './log.js';
import { startServer } from './main.js';

/** `dicechess serve`: runs until SIGINT/SIGTERM, then shuts down cleanly. Returns the exit code. */
export async function serveUntilSignal(config: Config): Promise<number> {
  const log = createLogger(config.logLevel);
  // Listening for the signals before the server starts: one sent as soon as "listening" is logged
  // (before start-up has returned) still means a clean stop, not the default instant exit.
  const signalled = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down');
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  // A step of a cluster node's start-up that gave up rejects (StartFailed): said as any other failure.
  const started = await startServer(config, { log }).catch((e: Error) => ({ ok: false as const, error: e.message }));
  if (!started.ok) {
    log.error({}, started.error);
    // The log goes to stdout as JSON; whoever started the server reads one plain line on stderr.
    process.stderr.write(`dicechess: ${started.error}\n`);
    return 1;
  }
  const server = started.value;
  const disarm = armMainHeapSnapshots((path) => log.info({ path }, 'heap snapshot written'));
  const disarmIdle = armIdleCollection((freed) => log.info({ thread: 'main', freedMb: Math.round(freed / 1048576) }, 'idle: heap collected'));
  await signalled;
  disarm();
  disarmIdle();
  await server.close();
  log.info({}, 'stopped');
  return 0;
}
