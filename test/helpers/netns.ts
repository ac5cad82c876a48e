// Test hosts of the project's own, in Linux network namespaces, for the partition tests. Each host is
// a namespace with two veth links to one bridge in the root namespace: a client link (the node's HTTP
// edge and the nats-server's client port, which the test process reaches over the bridge) and a route
// link (the nats-server's cluster routes), on two halves of a private /24. Each host runs one
// nats-server (routes to the others by their namespace addresses) and one `dicechess serve --cluster`
// node that talks to its own host's server. A test cuts and heals a host's links, or only its route
// link, and puts loss and delay on them (tc netem, or the user-space relay of netns-relay.ts where
// the kernel has no sch_netem).
// Every name starts with `dcn<pid>`: a run removes what a crashed earlier run left (a prefix whose
// process is gone) and deletes everything of its own at teardown, even when the test fails.
import { execFile, execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATS_SERVER, eventually, waitJetStream, waitPlacement } from './nats-cluster.js';
import { settingsFile, startNode, type ClusterNodeProc } from './cluster-nodes.js';
import { spawnBound } from './spawn-bound.js';

export const IP = ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip'].find((p) => existsSync(p)) ?? 'ip';
export const TC = ['/usr/sbin/tc', '/sbin/tc', '/usr/bin/tc'].find((p) => existsSync(p)) ?? 'tc';
const PREFIX = 'dcn';
const NAMES = ['a', 'b', 'c'];

/** Runs a command; resolves its output, or rejects with its stderr. */
export function sh(cmd: string, args: readonly string[]): Promise<string> {
  return new Promise((res, rej) =>
    execFile(cmd, [...args], { timeout: 20_000 }, (err, stdout, stderr) => (err ? rej(new Error(`${cmd} ${args.join(' ')}: ${stderr.trim() || err.message}`)) : res(stdout))),
  );
}
const ip = (...args: string[]) => sh(IP, args);
const quiet = (p: Promise<unknown>) => p.then(() => undefined, () => undefined);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why this machine cannot make the test hosts, or undefined when it can (a namespace is made and removed to see). */
export async function netnsUnavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'network namespaces need root (this test runs as uid ' + process.getuid?.() + ')';
  if (!existsSync(IP)) return 'iproute2 is not installed (no `ip`)';
  if (!existsSync(TC)) return 'iproute2 is not installed (no `tc`)';
  if (!existsSync(NATS_SERVER)) return `no nats-server at ${NATS_SERVER}`;
  const probe = `${PREFIX}${process.pid}-probe`;
  try {
    await ip('netns', 'add', probe);
  } catch (e) {
    return `cannot create a network namespace: ${(e as Error).message}`;
  } finally {
    await quiet(ip('netns', 'del', probe));
  }
  return undefined;
}

/** Removes the namespaces and links a crashed earlier run left: our prefix, whose process is gone. */
export async function removeStale(): Promise<string[]> {
  const removed: string[] = [];
  const stale = (name: string) => {
    const m = new RegExp(`^${PREFIX}(\\d+)`).exec(name);
    return m !== null && Number(m[1]) !== process.pid && !alive(Number(m[1]));
  };
  for (const line of (await ip('netns', 'list')).split('\n')) {
    const ns = line.split(' ')[0];
    if (!ns || !stale(ns)) continue;
    // Its processes died with the run that made them (parent-death signal); any left are killed.
    for (const pid of (await sh(IP, ['netns', 'pids', ns]).catch(() => '')).split('\n').filter(Boolean)) quietKill(Number(pid));
    await quiet(ip('netns', 'del', ns));
    removed.push(ns);
  }
  for (const line of (await ip('-o', 'link', 'show')).split('\n')) {
    const name = /^\d+: ([^:@]+)/.exec(line)?.[1];
    if (!name || !stale(name)) continue;
    await quiet(ip('link', 'del', name));
    removed.push(name);
  }
  return removed;
}

function quietKill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** A /24 under 10.213 that no route of the root namespace uses yet, chosen from the pid. */
async function freeSubnet(): Promise<number> {
  const routes = await ip('-4', 'route', 'show');
  for (let k = 0; k < 250; k++) {
    const r = 1 + ((process.pid + k) % 250);
    if (!routes.includes(`10.213.${r}.`)) return r;
  }
  throw new Error('no free 10.213.x.0/24');
}

export interface NetHost {
  readonly name: string;
  readonly ns: string;
  /** Client address (HTTP edge, nats client port) and route address (nats cluster routes). */
  readonly addr: string;
  readonly routeAddr: string;
  /** The root-namespace ends of its client and route links (bridge ports). */
  readonly clientLink: string;
  readonly routeLink: string;
  readonly natsUrl: string;
  nats: ChildProcess | undefined;
}

export interface NetCluster {
  readonly hosts: NetHost[];
  readonly nodes: ClusterNodeProc[];
  /** The hosts' nats-servers as the test process reaches them over the bridge. */
  readonly natsUrls: string[];
  /** Both links of host i down (the host is cut off from everything) / up again. */
  cut(i: number): Promise<void>;
  heal(i: number): Promise<void>;
  /** Only host i's route link down (its nats-server loses its routes; its node keeps its connection to it) / up. */
  cutRoutes(i: number): Promise<void>;
  healRoutes(i: number): Promise<void>;
  /** The prefix of every name of this run (namespaces, links). */
  readonly prefix: string;
  readonly bridge: string;
}

/**
 * Makes three hosts and starts a nats-server and a node on each, resolving once every node serves
 * its shards. Everything is removed at the test's teardown (processes by PID, then namespaces,
 * links and the bridge), and also when the process exits without it.
 */
export async function startNetnsCluster(
  t: { teardown(fn: () => Promise<void>): void },
  settings: { cluster: { shards: number } & Record<string, unknown> } & Record<string, unknown>,
): Promise<NetCluster> {
  await removeStale();
  const prefix = `${PREFIX}${process.pid}`;
  const r = await freeSubnet();
  const bridge = `${prefix}-br`;
  const dir = mkdtempSync(join(tmpdir(), 'dc-netns-'));
  const file = settingsFile(settings);
  const hosts: NetHost[] = NAMES.map((n, i) => ({
    name: n,
    ns: `${prefix}-${n}`,
    addr: `10.213.${r}.${11 + i}`,
    routeAddr: `10.213.${r}.${129 + i}`,
    clientLink: `${prefix}${n}c`,
    routeLink: `${prefix}${n}r`,
    natsUrl: `nats://10.213.${r}.${11 + i}:4222`,
    nats: undefined,
  }));
  const nodes: ClusterNodeProc[] = [];

  // Synchronous removal, for a process that exits without its teardown (an uncaught error).
  const removeAllSync = () => {
    for (const h of hosts) if (h.nats?.pid !== undefined && h.nats.exitCode === null && h.nats.signalCode === null) quietKill(h.nats.pid);
    for (const n of nodes) if (n.child.pid !== undefined && n.child.exitCode === null && n.child.signalCode === null) quietKill(n.child.pid);
    for (const h of hosts) for (const args of [['netns', 'del', h.ns], ['link', 'del', h.clientLink], ['link', 'del', h.routeLink]]) {
      try {
        execFileSync(IP, args, { stdio: 'ignore' });
      } catch {
        // already gone
      }
    }
    try {
      execFileSync(IP, ['link', 'del', bridge], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  };
  process.once('exit', removeAllSync);
  t.teardown(async () => {
    // Links up first, so that the nodes' clean stop can hand their shards back.
    for (const h of hosts) for (const l of [h.clientLink, h.routeLink]) await quiet(ip('link', 'set', l, 'up'));
    await Promise.all(nodes.map((n) => n.stop(10_000)));
    await Promise.all(hosts.map(async (h) => {
      const c = h.nats;
      if (!c || c.pid === undefined || c.exitCode !== null || c.signalCode !== null) return;
      process.kill(c.pid, 'SIGKILL');
      await new Promise((res) => c.once('exit', res));
    }));
    for (const h of hosts) await quiet(ip('netns', 'del', h.ns)); // takes the veth pairs with it
    for (const h of hosts) for (const l of [h.clientLink, h.routeLink]) await quiet(ip('link', 'del', l));
    await quiet(ip('link', 'del', bridge));
    // Anything else of this run's (a relay's bridge a failed scenario did not remove).
    for (const name of await leftovers(prefix)) await quiet(hosts.some((h) => h.ns === name) ? ip('netns', 'del', name) : ip('link', 'del', name));
    rmSync(dir, { recursive: true, force: true });
    file.remove();
    process.removeListener('exit', removeAllSync);
    const left = await leftovers(prefix);
    if (left.length > 0) console.error(`# netns: left behind after teardown: ${left.join(', ')}`);
  });

  await ip('link', 'add', bridge, 'type', 'bridge');
  await ip('addr', 'add', `10.213.${r}.1/25`, 'dev', bridge);
  await ip('link', 'set', bridge, 'up');
  for (const h of hosts) {
    await ip('netns', 'add', h.ns);
    await ip('link', 'add', h.clientLink, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', h.ns);
    await ip('link', 'add', h.routeLink, 'type', 'veth', 'peer', 'name', 'eth1', 'netns', h.ns);
    for (const l of [h.clientLink, h.routeLink]) {
      await ip('link', 'set', l, 'master', bridge);
      await ip('link', 'set', l, 'up');
    }
    await ip('-n', h.ns, 'addr', 'add', `${h.addr}/25`, 'dev', 'eth0');
    await ip('-n', h.ns, 'addr', 'add', `${h.routeAddr}/25`, 'dev', 'eth1');
    for (const l of ['lo', 'eth0', 'eth1']) await ip('-n', h.ns, 'link', 'set', l, 'up');
  }

  for (const h of hosts) {
    const routes = hosts.filter((o) => o !== h).map((o) => `"nats-route://${o.routeAddr}:6222"`);
    const conf = join(dir, `${h.name}.conf`);
    writeFileSync(
      conf,
      [
        `server_name: "${h.ns}"`,
        'listen: "0.0.0.0:4222"',
        `jetstream { store_dir: "${join(dir, h.name)}", max_memory_store: 64MB, max_file_store: 512MB }`,
        `cluster { name: "${prefix}", listen: "${h.routeAddr}:6222", routes: [${routes.join(', ')}] }`,
        '',
      ].join('\n'),
    );
    // `ip netns exec` execs the server in place: the PID recorded is the server's.
    const child = spawnBound(IP, ['netns', 'exec', h.ns, NATS_SERVER, '-c', conf], { stdio: ['ignore', 'ignore', 'ignore'] });
    h.nats = child;
  }
  await Promise.all(hosts.map((h) => waitJetStream(h.natsUrl, 60_000)));
  await waitPlacement(hosts[0].natsUrl, 3, 60_000);

  // One after the other: the first creates the cluster's buckets and streams, the others find them.
  for (const h of hosts) {
    nodes.push(await startNode(h.name, ['nats://127.0.0.1:4222'], file.file, 120_000, { wrap: [IP, 'netns', 'exec', h.ns], host: h.addr }));
  }
  const shards = settings.cluster.shards;
  const covered = () => Array.from({ length: shards }, (_, s) => s).every((s) => nodes.some((n) => n.serving().has(s)));
  if (!(await eventually(covered, 90_000))) throw new Error('some shard was never served');

  const links = (i: number) => [hosts[i].clientLink, hosts[i].routeLink];
  return {
    hosts,
    nodes,
    prefix,
    bridge,
    natsUrls: hosts.map((h) => h.natsUrl),
    async cut(i) {
      for (const l of links(i)) await ip('link', 'set', l, 'down');
    },
    async heal(i) {
      for (const l of links(i)) await ip('link', 'set', l, 'up');
    },
    async cutRoutes(i) {
      await ip('link', 'set', hosts[i].routeLink, 'down');
    },
    async healRoutes(i) {
      await ip('link', 'set', hosts[i].routeLink, 'up');
    },
  };
}

/** Namespaces and links whose names start with `prefix` (what a run must not leave behind). */
export async function leftovers(prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (const line of (await ip('netns', 'list')).split('\n')) if (line.startsWith(prefix)) out.push(line.split(' ')[0]);
  for (const line of (await ip('-o', 'link', 'show')).split('\n')) {
    const name = /^\d+: ([^:@]+)/.exec(line)?.[1];
    if (name?.startsWith(prefix)) out.push(name);
  }
  return out;
}
