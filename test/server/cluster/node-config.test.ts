// Cluster mode's settings: off by default; `--cluster`/`--node` over DICECHESS_CLUSTER_SERVERS and
// DICECHESS_NODE over the file; a cluster without a node name, a bad URL or a bad name is refused.
import t from 'tap';
import { parseServeFlags, serveConfig, type ServeFlags } from '../../../src/cli/serve-flags.js';
import { shardOf } from '../../../src/cluster/coordination/ownership.js';
import { shardIndex, shardKey } from '../../../src/shard/protocol/messages.js';

function flags(...args: string[]): ServeFlags {
  const f = parseServeFlags(args);
  if (typeof f === 'string') throw new Error(f);
  return f;
}

const cluster = (args: string[], env: Record<string, string> = {}) => {
  const c = serveConfig(flags(...args), env);
  return c.ok ? c.value.cluster : c.error;
};

t.test('off by default, with its defaults', async (t) => {
  const nats = { credsFile: '', nkeySeedFile: '', user: '', passwordFile: '', tls: { caFile: '', certFile: '', keyFile: '' } };
  t.same(cluster([]), { servers: [], node: '', shards: 16, replicas: 3, leaseTtlMs: 10_000, followIdleMs: 60_000, followMax: 10_000, finishedCache: { entries: 2000, bytes: 67_108_864 }, startTimeoutMs: 120_000, keepFinishedLogs: false, nats });
});

t.test('flags and environment', async (t) => {
  t.match(cluster(['--cluster', 'nats://127.0.0.1:4222,nats://127.0.0.1:4223', '--node', 'a']), {
    servers: ['nats://127.0.0.1:4222', 'nats://127.0.0.1:4223'],
    node: 'a',
  });
  t.match(cluster([], { DICECHESS_CLUSTER_SERVERS: 'nats://h1:4222, nats://h2:4222', DICECHESS_NODE: '42' }), {
    servers: ['nats://h1:4222', 'nats://h2:4222'],
    node: '42',
  }, 'a numeric node name stays a name');
  t.match(cluster(['--node', 'b'], { DICECHESS_CLUSTER_SERVERS: 'nats://h1:4222', DICECHESS_NODE: 'a' }), { node: 'b' }, 'a flag over the environment');
  t.match(cluster([], { DICECHESS_CLUSTER_SERVERS: 'nats://h1:4222', DICECHESS_NODE: 'a', DICECHESS_CLUSTER_SHARDS: '32', DICECHESS_CLUSTER_REPLICAS: '1' }), { shards: 32, replicas: 1 });
  t.match(cluster([], { DICECHESS_CLUSTER_START_TIMEOUT_MS: '5000' }), { startTimeoutMs: 5000 }, 'the start-up budget from the environment');
});

t.test('refused settings name the field', async (t) => {
  t.match(cluster(['--cluster', 'nats://h:4222']), /cluster\.node/, 'a cluster needs a node name');
  t.match(cluster(['--cluster', 'http://h:4222', '--node', 'a']), /cluster\.servers/, 'only NATS URLs');
  t.match(cluster(['--cluster', 'nats://h:4222', '--node', 'no dots.here']), /cluster\.node/);
  t.match(cluster([], { DICECHESS_CLUSTER_REPLICAS: '2' }), /cluster\.replicas/);
  t.match(cluster([], { DICECHESS_CLUSTER_START_TIMEOUT_MS: 'soon' }), /cluster\.startTimeoutMs/);
  t.equal(parseServeFlags(['--cluster']), '--cluster needs a value');
  t.equal(parseServeFlags(['--node']), '--node needs a value');
});

t.test('ownership and routing map a game to the same logical shard; a mirror pair shares one', async (t) => {
  for (let i = 0; i < 200; i++) {
    const id = `game${i}x${(i * 7919).toString(36)}`;
    const twin = `twin${i}`;
    t.equal(shardOf(id, 16), shardIndex(shardKey(id, null), 16));
    t.equal(shardOf(id, 16, twin), shardOf(twin, 16, id), `pair ${i}: one shard`);
  }
});
