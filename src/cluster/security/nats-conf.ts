// A nats-server (2.9) configuration file for a secured dicechess cluster: one account with JetStream,
// `node` and `monitor` users with the permissions of permissions.ts (no anonymous client), route
// authorisation between the servers, optional client and route TLS, optional encryption at rest.
// Used by `make cluster` (scripts/cluster.mjs) and the secured cluster tests; an operator may start
// from its output (docs/CLUSTER.md, "Securing a cluster").
import { monitorPermissions, nodePermissions } from './permissions.js';

/** A user proves itself with an nkey (its public key here) or a password (plain, or a bcrypt hash). */
export type NatsUser = { nkey: string } | { user: string; password: string };

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** The CA that client (or peer) certificates must chain to; with `verify`, a certificate is required. */
  caFile?: string;
  verify?: boolean;
}

export interface NatsServerConf {
  serverName: string;
  /** host:port for clients. */
  listen: string;
  storeDir: string;
  maxMemoryStore?: string;
  maxFileStore?: string;
  /** The account's name (default DICECHESS). */
  account?: string;
  /** Every user listed is valid at once: during a rotation, the old and the new. */
  nodes: NatsUser[];
  monitors: NatsUser[];
  tls?: TlsFiles;
  cluster?: {
    name: string;
    /** host:port for routes. */
    listen: string;
    /** host:port of the other servers' route listeners. */
    peers: string[];
    user: string;
    password: string;
    tls?: TlsFiles;
  };
  /** JetStream encryption at rest: `chachapoly` or `aes` with a key (kept out of the store). */
  encryption?: { cipher: 'chachapoly' | 'aes'; key: string };
}

const q = (s: string): string => JSON.stringify(s);

function tlsBlock(t: TlsFiles): string {
  const parts = [`cert_file: ${q(t.certFile)}`, `key_file: ${q(t.keyFile)}`];
  if (t.caFile !== undefined) parts.push(`ca_file: ${q(t.caFile)}`);
  if (t.verify === true) parts.push('verify: true');
  return `tls { ${parts.join(', ')} }`;
}

function userEntry(u: NatsUser, perms: string): string {
  return 'nkey' in u ? `{ nkey: ${q(u.nkey)}, permissions: ${perms} }` : `{ user: ${q(u.user)}, password: ${q(u.password)}, permissions: ${perms} }`;
}

/** The configuration file's text. */
export function natsServerConf(c: NatsServerConf): string {
  const account = c.account ?? 'DICECHESS';
  const js = [`store_dir: ${q(c.storeDir)}`];
  if (c.maxMemoryStore) js.push(`max_memory_store: ${c.maxMemoryStore}`);
  if (c.maxFileStore) js.push(`max_file_store: ${c.maxFileStore}`);
  if (c.encryption) js.push(`cipher: ${c.encryption.cipher}`, `key: ${q(c.encryption.key)}`);
  const users = [...c.nodes.map((u) => userEntry(u, '$NODE_PERMISSIONS')), ...c.monitors.map((u) => userEntry(u, '$MONITOR_PERMISSIONS'))];
  const lines = [
    `server_name: ${q(c.serverName)}`,
    `listen: ${q(c.listen)}`,
    `jetstream { ${js.join(', ')} }`,
    '',
    '# What a node may publish and subscribe to (src/cluster/security/permissions.ts).',
    `NODE_PERMISSIONS = ${JSON.stringify(nodePermissions())}`,
    '# Stream and consumer information only: no message, no key, no management.',
    `MONITOR_PERMISSIONS = ${JSON.stringify(monitorPermissions())}`,
    '',
    '# One account; no anonymous client (no no_auth_user).',
    `accounts { ${account}: { jetstream: enabled, users: [`,
    ...users.map((u) => `  ${u},`),
    '] } }',
  ];
  if (c.tls) lines.push('', tlsBlock(c.tls));
  if (c.cluster) {
    const r = c.cluster;
    const routes = r.peers.map((p) => q(`nats-route://${encodeURIComponent(r.user)}:${encodeURIComponent(r.password)}@${p}`));
    lines.push(
      '',
      'cluster {',
      `  name: ${q(r.name)}`,
      `  listen: ${q(r.listen)}`,
      `  authorization { user: ${q(r.user)}, password: ${q(r.password)} }`,
      `  routes: [${routes.join(', ')}]`,
      ...(r.tls ? [`  ${tlsBlock(r.tls)}`] : []),
      '}',
    );
  }
  return `${lines.join('\n')}\n`;
}
