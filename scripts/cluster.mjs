// `make cluster`: a local cluster to try cluster mode on one machine. Three nats-server processes in
// one JetStream cluster (client ports 4222-4224, route ports 6222-6224, stores in .cluster/nats-N),
// then three dicechess nodes a, b and c on HTTP ports 8081-8083, each logging to .cluster/node-X.log.
// Prints the URLs and runs until Ctrl-C (or SIGTERM); then stops the nodes (a clean stop hands their
// shards back), then the servers, each by the PID it started. CLUSTER_HTTP_PORT and
// CLUSTER_NATS_PORT move the first port of each range.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIR = join(ROOT, '.cluster');
const NATS = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const httpBase = Number(process.env.CLUSTER_HTTP_PORT ?? 8081);
const natsBase = Number(process.env.CLUSTER_NATS_PORT ?? 4222);
const routeBase = natsBase + 2000;
const NODES = ['a', 'b', 'c'];

mkdirSync(DIR, { recursive: true });
const children = [];
let stopping = false;

function start(what, cmd, args, logFile) {
  const out = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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
      const nc = await connect({ servers: url, timeout: 1000, reconnect: false });
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

const urls = NODES.map((_, i) => `nats://127.0.0.1:${natsBase + i}`);
for (let i = 0; i < NODES.length; i++) {
  const name = `nats-${i}`;
  const routes = NODES.map((_, j) => j).filter((j) => j !== i).map((j) => `"nats-route://127.0.0.1:${routeBase + j}"`);
  const conf = join(DIR, `${name}.conf`);
  writeFileSync(
    conf,
    [
      `server_name: "${name}"`,
      `listen: "127.0.0.1:${natsBase + i}"`,
      `jetstream { store_dir: "${join(DIR, name)}" }`,
      `cluster { name: "dicechess-local", listen: "127.0.0.1:${routeBase + i}", routes: [${routes.join(', ')}] }`,
      '',
    ].join('\n'),
  );
  start(name, NATS, ['-c', conf], join(DIR, `${name}.log`));
}
try {
  await Promise.all(urls.map((u) => jetStreamReady(u)));
} catch (e) {
  console.error(String(e));
  await stopAll();
}

const cli = join(ROOT, 'dist', 'src', 'cli.js');
NODES.forEach((node, i) => {
  const port = httpBase + i;
  start(`node ${node}`, process.execPath, [cli, 'serve', '--port', String(port), '--cluster', urls.join(','), '--node', node], join(DIR, `node-${node}.log`));
});

console.log(`NATS servers: ${urls.join(' ')} (logs and stores in .cluster/)`);
for (let i = 0; i < NODES.length; i++) console.log(`node ${NODES[i]}: http://127.0.0.1:${httpBase + i}   (log: .cluster/node-${NODES[i]}.log)`);
console.log('any node answers any route; Ctrl-C stops everything');
