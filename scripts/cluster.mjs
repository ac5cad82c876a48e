// `make cluster`: a local cluster to try cluster mode on one machine. Three nats-server processes in
// one JetStream cluster (client ports 4222-4224, route ports 6222-6224, stores in .cluster/nats-N),
// then three dicechess nodes a, b and c on HTTP ports 8081-8083, each logging to .cluster/node-X.log.
// Prints the URLs and runs until Ctrl-C (or SIGTERM); then stops the nodes (a clean stop hands their
// shards back), then the servers, each by the PID it started. CLUSTER_HTTP_PORT and
// CLUSTER_NATS_PORT move the first port of each range.
//
// The cluster is secured as docs/CLUSTER.md ("Securing a cluster") describes: each run writes fresh
// credentials into .cluster/secrets/ (the node user's nkey seed, the monitor's and the routes'
// passwords) and a server configuration per server (one account, node and monitor users with their
// permissions, route authorisation); with `openssl` at hand (and CLUSTER_TLS not `off`) also a
// throw-away CA and a certificate, for client and route TLS (tls:// URLs). The nodes get their
// credentials through DICECHESS_CLUSTER_* variables naming those files, never on their command line.
import { spawn } from 'node:child_process';
import { chmodSync, createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, nkeyAuthenticator, nkeys } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIR = join(ROOT, '.cluster');
const NATS = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const httpBase = Number(process.env.CLUSTER_HTTP_PORT ?? 8081);
const natsBase = Number(process.env.CLUSTER_NATS_PORT ?? 4222);
const routeBase = natsBase + 2000;
const NODES = ['a', 'b', 'c'];
const DIST = join(ROOT, 'dist', 'src', 'cluster', 'security');
const { natsServerConf } = await import(join(DIST, 'nats-conf.js'));
const { MONITOR_INBOX_PREFIX } = await import(join(DIST, 'permissions.js'));
const { hasOpenssl, makeDevCerts } = await import(join(DIST, 'dev-certs.js'));

mkdirSync(DIR, { recursive: true });
const SECRETS = join(DIR, 'secrets');
mkdirSync(SECRETS, { recursive: true, mode: 0o700 });
/** A secret file only its owner reads. */
function secret(name, text) {
  const file = join(SECRETS, name);
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
const nodeUser = nkeys.createUser();
const nodeSeed = new TextDecoder().decode(nodeUser.getSeed());
const seedFile = secret('node.nk', `${nodeSeed}\n`);
const monitorPassword = randomBytes(18).toString('base64url');
const monitorPasswordFile = secret('monitor.password', `${monitorPassword}\n`);
const routePassword = randomBytes(18).toString('base64url');
const useTls = process.env.CLUSTER_TLS !== 'off' && hasOpenssl();
const certs = useTls ? makeDevCerts(SECRETS) : undefined;
const clientTls = certs ? { tls: { caFile: certs.caFile } } : {};
const children = [];
let stopping = false;

function start(what, cmd, args, logFile, env = process.env) {
  const out = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`${what} (pid ${child.pid}) exited (${code ?? signal}); see ${logFile}`);
  });
  children.push({ what, child });
  return child;
}

const exited = (child) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));

async function stopAll() {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping the nodes, then the NATS servers…');
  // Nodes first (they hand their shards back), then the servers they need for that.
  for (const group of [children.filter((c) => c.what.startsWith('node')), children.filter((c) => c.what.startsWith('nats'))]) {
    await Promise.all(
      group.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        process.kill(child.pid, 'SIGTERM');
        const timer = setTimeout(() => child.exitCode === null && child.signalCode === null && process.kill(child.pid, 'SIGKILL'), 15_000);
        await exited(child);
        clearTimeout(timer);
      }),
    );
  }
  console.log('stopped');
  process.exit(0);
}
process.on('SIGINT', () => void stopAll());
process.on('SIGTERM', () => void stopAll());

async function jetStreamReady(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const nc = await connect({ ...clientTls, authenticator: nkeyAuthenticator(nodeUser.getSeed()), servers: url, timeout: 1000, reconnect: false });
      try {
        await (await jetstreamManager(nc, { timeout: 1000 })).getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`JetStream at ${url} is not ready: ${e}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

const urls = NODES.map((_, i) => `${certs ? 'tls' : 'nats'}://127.0.0.1:${natsBase + i}`);
for (let i = 0; i < NODES.length; i++) {
  const name = `nats-${i}`;
  const conf = join(DIR, `${name}.conf`);
  const tls = certs ? { certFile: certs.certFile, keyFile: certs.keyFile } : undefined;
  // The configuration holds the monitor's and the routes' passwords: readable by its owner only.
  writeFileSync(
    conf,
    natsServerConf({
      serverName: name,
      listen: `127.0.0.1:${natsBase + i}`,
      storeDir: join(DIR, name),
      nodes: [{ nkey: nodeUser.getPublicKey() }],
      monitors: [{ user: 'monitor', password: monitorPassword }],
      tls,
      cluster: {
        name: 'dicechess-local',
        listen: `127.0.0.1:${routeBase + i}`,
        peers: NODES.map((_, j) => j).filter((j) => j !== i).map((j) => `127.0.0.1:${routeBase + j}`),
        user: 'route',
        password: routePassword,
        tls: tls && { ...tls, caFile: certs.caFile, verify: true },
      },
    }),
    { mode: 0o600 },
  );
  chmodSync(conf, 0o600);
  start(name, NATS, ['-c', conf], join(DIR, `${name}.log`));
}
try {
  await Promise.all(urls.map((u) => jetStreamReady(u)));
} catch (e) {
  console.error(String(e));
  await stopAll();
}

const cli = join(ROOT, 'dist', 'src', 'cli.js');
// Files named in the environment, so no secret shows in `ps`.
// glibc's fixed trim threshold and 4 MB semi-spaces, as `make run` starts a server (docs/OPERATIONS.md,
// "Memory of a long-running server"); a value already in the environment wins.
const MALLOC = { MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '131072' };
const nodeEnv = { ...MALLOC, ...process.env, DICECHESS_CLUSTER_NKEY_SEED_FILE: seedFile, ...(certs ? { DICECHESS_CLUSTER_TLS_CA: certs.caFile } : {}) };
NODES.forEach((node, i) => {
  const port = httpBase + i;
  start(`node ${node}`, process.execPath, ['--max-semi-space-size=4', cli, 'serve', '--port', String(port), '--cluster', urls.join(','), '--node', node], join(DIR, `node-${node}.log`), nodeEnv);
});

console.log(`NATS servers: ${urls.join(' ')} (logs, stores and configurations nats-N.conf in .cluster/)`);
console.log(`credentials in .cluster/secrets/: node user nkey seed node.nk (public key ${nodeUser.getPublicKey()}),`);
console.log(`  monitor user "monitor" with password in ${monitorPasswordFile} (inbox prefix ${MONITOR_INBOX_PREFIX}), route user "route"`);
console.log(certs ? `TLS on (clients and routes): CA ${certs.caFile}, certificate ${certs.certFile}` : 'TLS off (no openssl, or CLUSTER_TLS=off)');
for (let i = 0; i < NODES.length; i++) console.log(`node ${NODES[i]}: http://127.0.0.1:${httpBase + i}   (log: .cluster/node-${NODES[i]}.log)`);
console.log('any node answers any route; Ctrl-C stops everything');
