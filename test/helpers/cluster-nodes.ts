// Starts real `dicechess serve --cluster … --node NAME` processes for the whole-cluster tests: port 0,
// a settings file of the test's, the URL read from the node's "listening" log line. Every process is
// stopped by its PID (SIGTERM, then SIGKILL if it lingers); a test may kill -9 one.
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, startNatsCluster, type NatsCluster } from './nats-cluster.js';
import { spawnBound } from './spawn-bound.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI = join(ROOT, 'dist', 'src', 'cli.js');

export interface ClusterNodeProc {
  readonly name: string;
  /** http://127.0.0.1:PORT (or the `host` it was given) once it listens. */
  url: string;
  readonly child: ChildProcess;
  /** The node's log lines so far (bounded), for a failing test's message. */
  readonly log: string[];
  /** The shards it serves now, as its log says ("serving shard" / "stopped serving shard"). */
  serving(): Set<number>;
  kill9(): Promise<void>;
  /** SIGTERM (a clean stop: its shards are handed back), then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Alive processes started here, killed if the test process exits without stopping them. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) process.kill(c.pid, 'SIGKILL');
});

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((res) => child.once('exit', () => res()));
}

/** A settings file (merged over config/default.json) in a temp dir; returns its path and a remover. */
export function settingsFile(settings: Record<string, unknown>): { file: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'dc-node-'));
  const file = join(dir, 'settings.json');
  writeFileSync(file, JSON.stringify(settings));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts one node and resolves once it listens (or rejects with its log if it exits first). With
 * `starting`, it resolves as soon as the node answers at all (503 while it waits for its cluster):
 * `url` is then its starting address, the same port the node keeps once up.
 */
export function startNode(
  name: string,
  servers: string[],
  configFile: string,
  timeoutMs = 120_000,
  o: { starting?: boolean; wrap?: readonly string[]; host?: string; nodeArgs?: readonly string[]; env?: Record<string, string> } = {},
): Promise<ClusterNodeProc> {
  // `wrap` runs the node under another command (`ip netns exec NS`, for a host of its own), `host` is the address it listens on;
  // `nodeArgs` and `env` start it as an operator would (the benchmarks: docs/OPERATIONS.md's `node` options and allocator settings).
  const args = [...(o.nodeArgs ?? []), CLI, 'serve', ...(o.host ? ['--host', o.host] : []), '--port', '0', '--config', configFile, '--cluster', servers.join(','), '--node', name];
  const [command, ...prefix] = o.wrap && o.wrap.length > 0 ? [...o.wrap, process.execPath] : [process.execPath];
  const child = spawnBound(command, [...prefix, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...o.env, ...process.env, DICECHESS_LOG_LEVEL: 'info' },
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const log: string[] = [];
  // DC_NODE_LOGS=DIR: every line of every node also goes to DIR/NAME-PID.log (for a failure's post-mortem).
  const logDir = process.env.DC_NODE_LOGS;
  const logFile = logDir ? join(logDir, `${name}-${child.pid}.log`) : undefined;
  const serving = new Set<number>();
  const node: ClusterNodeProc = {
    name,
    url: '',
    child,
    log,
    serving: () => serving,
    async kill9() {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
      await exited(child);
    },
    async stop(graceMs = 15_000) {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
      }, graceMs);
      await exited(child);
      clearTimeout(timer);
    },
  };
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`node ${name} did not listen in time:\n${log.slice(-20).join('\n')}`)), timeoutMs);
    const take = (text: string) => {
      if (logFile) appendFileSync(logFile, text.endsWith('\n') ? text : `${text}\n`);
      for (const line of text.split('\n')) {
        if (line === '') continue;
        if (log.length >= 2000) log.shift();
        log.push(line);
        const s = /"shard":(\d+),(?:"games":\d+,)?"msg":"(serving shard|stopped serving shard)"/.exec(line);
        if (s) {
          if (s[2] === 'serving shard') serving.add(Number(s[1]));
          else serving.delete(Number(s[1]));
        }
        const m = /listening on (http:\/\/[^"\s]+)/.exec(line);
        const w = o.starting ? /starting: answering 503 on port (\d+)/.exec(line) : null;
        if ((m || w) && node.url === '') {
          node.url = m ? m[1] : `http://${o.host ?? '127.0.0.1'}:${w![1]}`;
          clearTimeout(timer);
          res(node);
        }
      }
    };
    let partOut = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      partOut += d;
      const cut = partOut.lastIndexOf('\n');
      if (cut >= 0) {
        take(partOut.slice(0, cut));
        partOut = partOut.slice(cut + 1);
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => take(d));
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      if (node.url === '') rej(new Error(`node ${name} exited (${code ?? sig}) before listening:\n${log.slice(-20).join('\n')}`));
    });
  });
}

/** True when the nodes serve the shards exactly as sorted names assign them (shard s to node s mod N). */
export function settled(nodes: readonly ClusterNodeProc[], shards: number): boolean {
  const sorted = [...nodes].sort((a, b) => (a.name < b.name ? -1 : 1));
  return sorted.every((n, i) => {
    const want = Array.from({ length: shards }, (_, s) => s).filter((s) => s % sorted.length === i);
    return n.serving().size === want.length && want.every((s) => n.serving().has(s));
  });
}

/**
 * A whole test cluster: three nats-server (one JetStream cluster) and nodes a, b and c started with
 * `settings` (whose `cluster.shards` they share), once every node serves its share of the shards.
 * Everything is stopped, by PID, at the test's teardown.
 */
export async function startNodeCluster(
  t: { teardown(fn: () => Promise<void>): void },
  name: string,
  settings: { cluster: { shards: number } & Record<string, unknown> } & Record<string, unknown>,
): Promise<{ nats: NatsCluster; nodes: ClusterNodeProc[] }> {
  const nats = await startNatsCluster({ name });
  const file = settingsFile(settings);
  const nodes: ClusterNodeProc[] = [];
  t.teardown(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await nats.stop();
    file.remove();
  });
  // One after the other: the first creates the cluster's buckets and streams, the others find them.
  for (const node of ['a', 'b', 'c']) nodes.push(await startNode(node, nats.urls, file.file));
  // Shards move while nodes join (drained, then taken): a test plays once each node serves its share.
  if (!(await eventually(() => settled(nodes, settings.cluster.shards), 60_000))) throw new Error('the shards never settled');
  return { nats, nodes };
}
