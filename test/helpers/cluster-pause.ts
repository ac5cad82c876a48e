// Helpers for the whole-cluster tests of a paused owner and of a restart of the whole cluster: pause
// and resume a node process (SIGSTOP / SIGCONT, by PID), a cluster whose nodes can be killed and
// started again on the same settings, the lines a node logs from some moment on, and the checks of a
// game's log read straight from JetStream (versions contiguous, every counting version written by
// the writer of the last takeover before it).
import { readFileSync } from 'node:fs';
import { GameLog, type LogEntry } from '../../src/cluster/log/game-log.js';
import { foldVersion, type Folded } from '../../src/cluster/log/record-codec.js';
import { eventually, startNatsCluster, type NatsCluster } from './nats-cluster.js';
import { settingsFile, startNode, type ClusterNodeProc } from './cluster-nodes.js';

/** Whether the process is stopped (state T in /proc/PID/stat, after the command's parentheses). */
function stoppedNow(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
  } catch {
    return false;
  }
}

/** SIGSTOP of the node, returning once the kernel shows it stopped. */
export async function pauseNode(node: ClusterNodeProc): Promise<void> {
  const pid = node.child.pid;
  if (pid === undefined || node.child.exitCode !== null || node.child.signalCode !== null) throw new Error(`${node.name} is not running`);
  process.kill(pid, 'SIGSTOP');
  if (!(await eventually(() => stoppedNow(pid), 10_000))) throw new Error(`${node.name} did not stop`);
}

/** SIGCONT of the node (harmless when it is not stopped or has exited). */
export function resumeNode(node: ClusterNodeProc): void {
  const pid = node.child.pid;
  if (pid !== undefined && node.child.exitCode === null && node.child.signalCode === null) process.kill(pid, 'SIGCONT');
}

/** Every line the node logs from now on (stdout and stderr), as it logs them. */
export function linesFrom(node: ClusterNodeProc): string[] {
  const out: string[] = [];
  let part = '';
  const take = (d: string | Buffer) => {
    part += d.toString();
    const cut = part.lastIndexOf('\n');
    if (cut < 0) return;
    for (const line of part.slice(0, cut).split('\n')) if (line !== '' && out.length < 20_000) out.push(line);
    part = part.slice(cut + 1);
  };
  node.child.stdout?.on('data', take);
  node.child.stderr?.on('data', take);
  return out;
}

/** True when every shard is served by some node, as the nodes' logs say. */
export function covered(nodes: readonly ClusterNodeProc[], shards: number): boolean {
  return Array.from({ length: shards }, (_, s) => s).every((s) => nodes.some((n) => n.serving().has(s)));
}

export interface RestartableCluster {
  nats: NatsCluster;
  /** The current process of nodes a, b and c (replaced by restart). */
  nodes: ClusterNodeProc[];
  /** Starts node i again (after it was killed) with the same name and settings. */
  restart(i: number): Promise<void>;
  /** Resolves whether every shard came to be served by a node (the first to serve it, by its log). */
  settle(timeoutMs?: number): Promise<boolean>;
}

/**
 * Three nats-server and nodes a, b and c, like startNodeCluster, but whose nodes a test may kill and
 * start again (on the same settings file); everything is stopped by PID at the test's teardown.
 */
export async function startRestartableCluster(
  t: { teardown(fn: () => Promise<void>): void },
  name: string,
  settings: { cluster: { shards: number } & Record<string, unknown> } & Record<string, unknown>,
): Promise<RestartableCluster> {
  const nats = await startNatsCluster({ name });
  const file = settingsFile(settings);
  const nodes: ClusterNodeProc[] = [];
  const names = ['a', 'b', 'c'];
  t.teardown(async () => {
    for (const n of nodes) resumeNode(n);
    await Promise.all(nodes.map((n) => n.stop()));
    await nats.stop();
    file.remove();
  });
  // Every shard served, not the exact share of each node: on a busy machine a short lease lapses now
  // and then and shards move back and forth for a while, which changes nothing for the players.
  const settle = (timeoutMs = 90_000) => eventually(() => covered(nodes, settings.cluster.shards), timeoutMs);
  for (const node of names) nodes.push(await startNode(node, nats.urls, file.file));
  if (!(await settle())) throw new Error('some shard was never served');
  return {
    nats,
    nodes,
    settle,
    async restart(i) {
      nodes[i] = await startNode(names[i], nats.urls, file.file);
    },
  };
}

/** What a game's log shows: its entries, and what is wrong with them (empty when nothing). */
export interface LogAudit {
  entries: LogEntry[];
  /** The record versions of the counting entries, folded in order. */
  versions: number[];
  final: Folded | undefined;
  problems: string[];
}

/**
 * Reads a game's log and checks it: every counting version entry carries the epoch of the last
 * counting takeover marker before it (0 before the first), i.e. was written by the node that took
 * the game over last; each writer's entries are numbered 1, 2, 3… with no gap or repeat; the record
 * versions never go back (a write may carry more than one: a move and the next roll) and the history
 * only grows.
 */
export async function auditLog(log: GameLog, gameId: string): Promise<LogAudit> {
  const entries = await log.replay(gameId);
  const problems: string[] = [];
  const versions: number[] = [];
  let epoch = 0;
  let n = 0;
  let final: Folded | undefined;
  for (const e of entries) {
    if (!e.counts) continue;
    if (e.kind === 'takeover') {
      epoch = e.seq;
      n = 0;
      continue;
    }
    if (e.epoch !== epoch) problems.push(`seq ${e.seq}: written at epoch ${e.epoch}, counts after the marker at ${epoch}`);
    if (e.version !== n + 1) problems.push(`seq ${e.seq}: append ${e.version} of its writer after ${n}`);
    n = e.version;
    const before = final;
    final = foldVersion(final, e.data);
    const v = final.rec.version;
    if (before !== undefined && v < before.rec.version) problems.push(`seq ${e.seq}: version ${v} after ${before.rec.version}`);
    if (before !== undefined && final.rec.history.length < before.rec.history.length) problems.push(`seq ${e.seq}: the history shrank`);
    versions.push(v);
  }
  if (final === undefined) problems.push('no counting version');
  return { entries, versions, final, problems };
}
