// Starts real nats-server processes as one JetStream cluster on 127.0.0.1 for the cluster tests:
// free ports, a temp store dir and config file each, ready once every server answers JetStream
// (meta leader elected). Stops them by PID; a test may also kill -9, pause (SIGSTOP) or resume
// (SIGCONT) one of them, or start a stopped one again on the same ports and store.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NodeConnectionOptions } from '@nats-io/transport-node';
import { StorageType, jetstreamManager } from '@nats-io/jetstream';
import { spawnBound } from './spawn-bound.js';

export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export interface NatsServerProc {
  readonly name: string;
  readonly port: number;
  readonly clusterPort: number;
  readonly url: string;
  readonly configFile: string;
  child: ChildProcess | undefined;
}

export interface NatsCluster {
  readonly servers: NatsServerProc[];
  /** Every client URL, for a client that may fail over between them. */
  readonly urls: string[];
  /** kill -9 of server i; it stays down until start(i). */
  kill9(i: number): Promise<void>;
  pause(i: number): void;
  resume(i: number): void;
  /** Starts server i again on its ports and store (after kill9), and waits until it serves JetStream. */
  start(i: number): Promise<void>;
  /** Starts every server not running (a cluster made with `deferred`), and waits until JetStream places streams. */
  startAll(): Promise<void>;
  /** Stops every server by PID and removes the temp dir. */
  stop(): Promise<void>;
}

/** Ports that were free a moment ago (all held at once so no two are the same). */
async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  const ports: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = createServer();
    await new Promise<void>((res, rej) => {
      s.once('error', rej);
      s.listen(0, '127.0.0.1', () => res());
    });
    servers.push(s);
    const addr = s.address();
    if (addr === null || typeof addr === 'string') throw new Error('no port');
    ports.push(addr.port);
  }
  await Promise.all(servers.map((s) => new Promise<void>((res) => s.close(() => res()))));
  return ports;
}

/** Alive processes started here, killed if the test process exits without stop(). */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) if (c.exitCode === null && c.pid !== undefined) process.kill(c.pid, 'SIGKILL');
});

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((res) => child.once('exit', () => res()));
}

/**
 * Waits until a stream with `replicas` copies can be placed: every server answering JetStream is not
 * enough on a busy machine, where the meta leader may not count every peer yet ("no suitable peers
 * for placement" at the first stream a test makes). A probe stream is made and removed.
 */
export async function waitPlacement(url: string, replicas: number, timeoutMs = 30_000, client: Partial<NodeConnectionOptions> = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const nc = await connect({ ...client, servers: url, timeout: 1000 });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 2000 });
    for (;;) {
      try {
        await jsm.streams.add({ name: 'DC_PLACEMENT_PROBE', subjects: ['dc.placement-probe'], num_replicas: replicas, storage: StorageType.Memory });
        await jsm.streams.delete('DC_PLACEMENT_PROBE');
        return;
      } catch (e) {
        if (Date.now() >= deadline) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await nc.close();
  }
}

/** Waits until a client on url gets an answer from JetStream (the cluster has a meta leader). */
export async function waitJetStream(url: string, timeoutMs = 30_000, client: Partial<NodeConnectionOptions> = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const nc = await connect({ ...client, servers: url, timeout: 1000, reconnect: false });
      try {
        const jsm = await jetstreamManager(nc, { timeout: 1000 });
        await jsm.getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`JetStream at ${url} not ready: ${String(last)}`);
}

/** What a secured cluster's configuration is made from (test/helpers/nats-secure.ts). */
export interface ServerConfArgs {
  name: string;
  clusterName: string;
  port: number;
  clusterPort: number;
  /** The other servers' route ports. */
  peers: number[];
  storeDir: string;
  /** The temp dir the cluster lives in (removed at stop()). */
  dir: string;
}

export interface NatsClusterOptions {
  size?: number;
  name?: string;
  /** A server's whole configuration text (default: no authentication, no TLS). */
  conf?: (a: ServerConfArgs) => string;
  /** Credentials and TLS of the helper's own clients (readiness checks). */
  client?: Partial<NodeConnectionOptions>;
  /** The URLs' scheme (tls when the servers require TLS). */
  scheme?: 'nats' | 'tls';
  /** Probe stream placement at start (needs a client that may create and delete any stream; default true). */
  probe?: boolean;
  /** The servers' ports and settings are chosen but nothing is started until `startAll()` (a node started first waits for them). */
  deferred?: boolean;
  /** Each server's JetStream file store limit (default 512MB: enough for any test, not for a long soak). */
  maxFileStore?: string;
}

export async function startNatsCluster(opts: NatsClusterOptions = {}): Promise<NatsCluster> {
  const size = opts.size ?? 3;
  const clusterName = opts.name ?? 'dc-test';
  const dir = mkdtempSync(join(tmpdir(), 'dc-nats-'));
  const client = opts.client ?? {};
  const ports = await freePorts(size * 2);
  const servers: NatsServerProc[] = [];
  for (let i = 0; i < size; i++) {
    const port = ports[2 * i];
    const clusterPort = ports[2 * i + 1];
    const name = `${clusterName}-n${i}`;
    const routes = ports
      .filter((_, j) => j % 2 === 1 && j !== 2 * i + 1)
      .map((p) => `"nats-route://127.0.0.1:${p}"`)
      .join(', ');
    const configFile = join(dir, `${name}.conf`);
    const peers = ports.filter((_, j) => j % 2 === 1 && j !== 2 * i + 1);
    const args: ServerConfArgs = { name, clusterName, port, clusterPort, peers, storeDir: join(dir, name), dir };
    writeFileSync(
      configFile,
      opts.conf?.(args) ?? [
        `server_name: "${name}"`,
        `listen: "127.0.0.1:${port}"`,
        `jetstream { store_dir: "${join(dir, name)}", max_memory_store: 64MB, max_file_store: ${opts.maxFileStore ?? '512MB'} }`,
        size > 1 ? `cluster { name: "${clusterName}", listen: "127.0.0.1:${clusterPort}", routes: [${routes}] }` : '',
        '',
      ].join('\n'),
    );
    servers.push({ name, port, clusterPort, url: `${opts.scheme ?? 'nats'}://127.0.0.1:${port}`, configFile, child: undefined });
  }

  const launch = (s: NatsServerProc) => {
    const child = spawnBound(NATS_SERVER, ['-c', s.configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      if (err.length < 4000) err += d.toString('utf8');
    });
    child.once('exit', () => live.delete(child));
    child.once('error', (e) => {
      err += String(e);
    });
    live.add(child);
    s.child = child;
  };
  /** Whether the process is stopped (state T in /proc/PID/stat, after the command's parentheses). */
  const stopped = (pid: number): boolean => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
    } catch {
      return false;
    }
  };
  const signal = (i: number, sig: NodeJS.Signals) => {
    const pid = servers[i].child?.pid;
    if (pid === undefined || servers[i].child?.exitCode !== null) throw new Error(`${servers[i].name} is not running`);
    process.kill(pid, sig);
  };

  const startAll = async (): Promise<void> => {
    for (const s of servers) if (s.child === undefined || s.child.exitCode !== null || s.child.signalCode !== null) launch(s);
    try {
      await Promise.all(servers.map((s) => waitJetStream(s.url, 30_000, client)));
      if (size > 1 && opts.probe !== false) await waitPlacement(servers[0].url, size, 30_000, client);
    } catch (e) {
      for (const s of servers) if (s.child?.pid !== undefined && s.child.exitCode === null) process.kill(s.child.pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  };
  if (!opts.deferred) await startAll();

  return {
    servers,
    urls: servers.map((s) => s.url),
    async kill9(i) {
      const child = servers[i].child;
      signal(i, 'SIGKILL');
      if (child) await exited(child);
    },
    pause: (i) => {
      signal(i, 'SIGSTOP');
      // A stop takes effect when the kernel next schedules the process: wait until it shows as
      // stopped, so nothing sent after pause() returns is answered (a busy machine delays it).
      const pid = servers[i].child?.pid as number;
      for (let n = 0; n < 5000 && !stopped(pid); n++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    },
    resume: (i) => signal(i, 'SIGCONT'),
    async start(i) {
      launch(servers[i]);
      await waitJetStream(servers[i].url, 30_000, client);
    },
    startAll,
    async stop() {
      await Promise.all(
        servers.map(async (s) => {
          const c = s.child;
          if (!c || c.pid === undefined || c.exitCode !== null || c.signalCode !== null) return;
          process.kill(c.pid, 'SIGKILL');
          await exited(c);
        }),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Polls `cond` every 25 ms until it holds or `timeoutMs` passed; resolves whether it held. Real
 * servers expire keys and elect leaders on the wall clock, so cluster tests wait on it here; they
 * assert the outcome, never how long it took.
 */
export async function eventually(cond: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return cond();
}
