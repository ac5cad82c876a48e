// A real `dicechess serve` process on a temporary LMDB data directory, for restart and crash tests.
// One harness per test: it owns the directory and every process it started, and its single teardown
// kills whatever is still running (SIGKILL) and only then removes the directory, whether the test
// passed or not. The child runs the compiled CLI of the same build as the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLines, request, type HttpResult, type LineReader, type Teardown } from './http.js';
export { nextEvent, randomPath } from './play.js';
import type { Tree } from './play.js';

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

/** Children of this test process still alive: killed synchronously if the runner itself exits. */
const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of alive) c.kill('SIGKILL');
});

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  readonly port: number;
  readonly base: string;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<Exit>;
  /** Sends a signal and waits for the exit. */
  stop(signal: 'SIGTERM' | 'SIGKILL' | 'SIGINT'): Promise<Exit>;
  req(method: string, path: string, opts?: { token?: string; body?: unknown }): Promise<HttpResult>;
  stream(path: string, token?: string): Promise<LineReader>;
}

/** A `serve` that was expected to refuse to start. */
export interface Refusal {
  /** Undefined if the server started after all (it was killed again). */
  readonly exit: Exit | undefined;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Harness {
  readonly dir: string;
  /** args are appended to the default flags, so they override them (e.g. ['--port', '8123']). */
  start(env?: Record<string, string>, args?: string[]): Promise<ServerProcess>;
  /** Runs `serve` that should exit during start-up; bounded like start(). */
  startRefused(args?: string[]): Promise<Refusal>;
}

/** Environment of every child: no seed grace, house bots answer at once, two game shards (two LMDB writer threads beside main). */
const BASE_ENV: Record<string, string> = {
  DICECHESS_SEED_GRACE_MS: '0',
  DICECHESS_HOUSE_MOVE_DELAY_MS: '0',
  DICECHESS_LOG_LEVEL: 'info',
  DICECHESS_SHARDS: '2',
};

export function harness(t: Teardown, prefix: string): Harness {
  const dir = mkdtempSync(join(tmpdir(), `dicechess-${prefix}-`));
  const mine = new Set<ChildProcess>();
  t.teardown(async () => {
    await Promise.all(
      [...mine].map(async (c) => {
        if (c.exitCode === null && c.signalCode === null) {
          const gone = new Promise((r) => c.once('exit', r));
          c.kill('SIGKILL');
          await gone;
        }
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  });
  /** A `serve` child with its output gathered; `exited` comes once the output is read to the end. */
  const spawnServe = (env: Record<string, string>, args: string[]) => {
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--data', join(dir, 'data'), ...args],
      { env: { ...process.env, ...BASE_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    mine.add(child);
    alive.add(child);
    const io = { child, out: '', stdout: '', stderr: '', gone: undefined as Exit | undefined, exited: undefined as unknown as Promise<Exit> };
    child.stdout!.setEncoding('utf8').on('data', (s: string) => ((io.stdout += s), (io.out += s)));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => ((io.stderr += s), (io.out += s)));
    io.exited = new Promise<Exit>((resolve) =>
      child.once('close', (code, signal) => {
        alive.delete(child);
        io.gone = { code, signal };
        resolve(io.gone);
      }),
    );
    return io;
  };
  return {
    dir,
    async startRefused(args = []) {
      const io = spawnServe({}, args);
      for (let i = 0; i < 2400 && io.gone === undefined; i++) {
        if (/"msg":"listening on /.test(io.stdout)) {
          io.child.kill('SIGKILL');
          await io.exited;
          return { exit: undefined, stdout: io.stdout, stderr: io.stderr };
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      if (io.gone === undefined) {
        io.child.kill('SIGKILL');
        throw new Error(`serve neither started nor exited within 120 s:\n${io.out}`);
      }
      return { exit: io.gone, stdout: io.stdout, stderr: io.stderr };
    },
    async start(env = {}, args = []) {
      const io = spawnServe(env, args);
      const { child, exited } = io;
      // Start-up: poll for the one "listening" line, bounded (a loaded machine may take seconds).
      let port: number | undefined;
      for (let i = 0; i < 2400 && port === undefined; i++) {
        const m = /"msg":"listening on http:\/\/127\.0\.0\.1:(\d+)"/.exec(io.out);
        if (m) port = Number(m[1]);
        else if (io.gone) throw new Error(`server exited during start-up (${JSON.stringify(io.gone)}):\n${io.out}`);
        else await new Promise((r) => setTimeout(r, 50));
      }
      if (port === undefined) {
        child.kill('SIGKILL');
        throw new Error(`server did not report its port within 120 s:\n${io.out}`);
      }
      const base = `http://127.0.0.1:${port}`;
      return {
        port,
        base,
        pid: child.pid!,
        output: () => io.out,
        exited,
        async stop(signal) {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
        req(method, path, o = {}) {
          const headers: Record<string, string> = {};
          if (o.token) headers.authorization = `Bearer ${o.token}`;
          let body: string | undefined;
          if (o.body !== undefined) {
            body = JSON.stringify(o.body);
            headers['content-type'] = 'application/json';
          }
          return request(method, base + path, { headers, body });
        },
        stream(path, token) {
          return openLines(base + path, token ? { authorization: `Bearer ${token}` } : undefined);
        },
      };
    },
  };
}




export type { Tree };
