// Secured nats-servers for the cluster security tests: the configuration `make cluster` writes
// (src/cluster/security/nats-conf.ts: one account, `node` and `monitor` users, route authorisation),
// with fresh keys and passwords in a temp dir, and optionally TLS from a throw-away CA made with
// openssl. Started and stopped by PID through startNatsCluster.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { connect, nkeys, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { natsClientOptions, type NatsClientConfig } from '../../src/cluster/transport/nats-auth.js';
import { natsServerConf } from '../../src/cluster/security/nats-conf.js';
import { MONITOR_INBOX_PREFIX } from '../../src/cluster/security/permissions.js';
import { makeDevCerts, type DevCerts } from '../../src/cluster/security/dev-certs.js';
import { startNatsCluster, type NatsCluster } from './nats-cluster.js';

export interface SecureNats extends NatsCluster {
  /** Where the keys, passwords and certificates are. */
  readonly secrets: string;
  /** The node user's settings (cluster.nats), an nkey seed file and, with TLS, the CA. */
  readonly nodeSettings: NatsClientConfig;
  readonly monitor: { user: string; password: string };
  readonly certs: DevCerts | undefined;
  /** Server i's log so far. */
  serverLog(i: number): string;
  /** A connection as the node user. */
  connectNode(): Promise<NatsConnection>;
  /** A connection as the monitor user (its own inbox prefix). */
  connectMonitor(): Promise<NatsConnection>;
  /** Connection options with TLS as needed and the given credentials (or none). */
  clientOptions(auth?: Partial<NodeConnectionOptions>): Partial<NodeConnectionOptions>;
}

const noAuth: NatsClientConfig = { credsFile: '', nkeySeedFile: '', user: '', passwordFile: '', tls: { caFile: '', certFile: '', keyFile: '' } };

export async function startSecureNats(o: { size?: number; name?: string; tls?: boolean } = {}): Promise<SecureNats> {
  const secrets = mkdtempSync(join(tmpdir(), 'dc-nats-secrets-'));
  const user = nkeys.createUser();
  const seedFile = join(secrets, 'node.nk');
  writeFileSync(seedFile, `${new TextDecoder().decode(user.getSeed())}\n`);
  chmodSync(seedFile, 0o600);
  const monitor = { user: 'monitor', password: randomBytes(18).toString('hex') };
  const routePassword = randomBytes(18).toString('hex');
  const certs = o.tls === true ? makeDevCerts(secrets) : undefined;
  const nodeSettings: NatsClientConfig = { ...noAuth, nkeySeedFile: seedFile, tls: { ...noAuth.tls, caFile: certs?.caFile ?? '' } };
  const scheme = certs ? 'tls' : 'nats';
  const tlsOnly = (): Partial<NodeConnectionOptions> => (certs ? { tls: { caFile: certs.caFile } } : {});
  const nodeClient = natsClientOptions([`${scheme}://x`], nodeSettings);
  if (!nodeClient.ok) throw new Error(nodeClient.error);
  let cluster: NatsCluster;
  try {
    cluster = await startNatsCluster({
      size: o.size ?? 1,
      name: o.name ?? 'dc-secure',
      scheme,
      client: nodeClient.value,
      probe: false,
      // Each server logs to a file of its own, for the tests that look for permission violations.
      conf: (a) =>
        `log_file: ${JSON.stringify(join(a.dir, `${a.name}.log`))}\n` +
        natsServerConf({
          serverName: a.name,
          listen: `127.0.0.1:${a.port}`,
          storeDir: a.storeDir,
          maxMemoryStore: '64MB',
          maxFileStore: '512MB',
          nodes: [{ nkey: user.getPublicKey() }],
          monitors: [monitor],
          tls: certs ? { certFile: certs.certFile, keyFile: certs.keyFile } : undefined,
          cluster:
            (o.size ?? 1) > 1
              ? {
                  name: a.clusterName,
                  listen: `127.0.0.1:${a.clusterPort}`,
                  peers: a.peers.map((p) => `127.0.0.1:${p}`),
                  user: 'route',
                  password: routePassword,
                  tls: certs ? { certFile: certs.certFile, keyFile: certs.keyFile, caFile: certs.caFile, verify: true } : undefined,
                }
              : undefined,
        }),
    });
  } catch (e) {
    rmSync(secrets, { recursive: true, force: true });
    throw e;
  }
  const clientOptions = (auth: Partial<NodeConnectionOptions> = {}): Partial<NodeConnectionOptions> => ({ ...tlsOnly(), ...auth });
  return {
    ...cluster,
    secrets,
    nodeSettings,
    monitor,
    certs,
    clientOptions,
    serverLog: (i) => {
      try {
        return readFileSync(join(dirname(cluster.servers[i].configFile), `${cluster.servers[i].name}.log`), 'utf8');
      } catch {
        return '';
      }
    },
    connectNode: () => connect({ ...nodeClient.value, servers: cluster.urls, timeout: 3000, reconnect: false }),
    connectMonitor: () =>
      connect({ ...clientOptions({ user: monitor.user, pass: monitor.password }), inboxPrefix: MONITOR_INBOX_PREFIX, servers: cluster.urls, timeout: 3000, reconnect: false }),
    async stop() {
      await cluster.stop();
      rmSync(secrets, { recursive: true, force: true });
    },
  };
}
