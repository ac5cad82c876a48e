// How a node proves who it is to the NATS servers and how it checks theirs (docs/CLUSTER.md,
// "Securing a cluster"): a creds file, an nkey seed file, or a user with a password file; TLS with a
// CA file and an optional client certificate. Secrets are read from files, never from argv.
//
// Each file is read at start-up (a missing or malformed one stops the node with a message naming the
// setting) and again at every (re)connection, so an operator rotates a credential by replacing the
// file: the next reconnect uses the new one. A file that cannot be read at a reconnect leaves the last
// good content in use rather than failing the connection on the spot.
import { readFileSync } from 'node:fs';
import {
  credsAuthenticator,
  nkeyAuthenticator,
  nkeys,
  usernamePasswordAuthenticator,
  type Authenticator,
  type NodeConnectionOptions,
} from '@nats-io/transport-node';
import type { Result } from '../../domain/result.js';
import type { Config } from '../../server-config.js';

export type NatsClientConfig = Config['cluster']['nats'];

export type ReadFile = (path: string) => string;

const readText: ReadFile = (path) => readFileSync(path, 'utf8');

/** The connection options (authenticator, tls) the settings ask for; {} with none. */
export function natsClientOptions(
  servers: readonly string[],
  c: NatsClientConfig | undefined,
  read: ReadFile = readText,
): Result<Partial<NodeConnectionOptions>, string> {
  const out: Partial<NodeConnectionOptions> = {};
  if (c !== undefined) {
    const auth = authenticator(c, read);
    if (!auth.ok) return auth;
    if (auth.value !== undefined) out.authenticator = auth.value;
    const { caFile, certFile, keyFile } = c.tls;
    for (const [key, path] of [['caFile', caFile], ['certFile', certFile], ['keyFile', keyFile]] as const) {
      if (path === '') continue;
      const text = tryRead(read, path, `cluster.nats.tls.${key}`);
      if (!text.ok) return text;
      if (!/-----BEGIN [A-Z ]+-----/.test(text.value)) return { ok: false, error: `cluster.nats.tls.${key} ${path}: not a PEM file` };
    }
    // The client reads these files itself at every connection (a renewed certificate is taken up then).
    if (caFile !== '' || certFile !== '') {
      out.tls = { ...(caFile !== '' ? { caFile } : {}), ...(certFile !== '' ? { certFile, keyFile } : {}) };
    }
  }
  // A tls:// URL asks for TLS even without a CA file (the system's trusted CAs then apply).
  if (out.tls === undefined && servers.some((s) => s.startsWith('tls://'))) out.tls = {};
  return { ok: true, value: out };
}

function authenticator(c: NatsClientConfig, read: ReadFile): Result<Authenticator | undefined, string> {
  if (c.credsFile !== '') {
    const first = tryRead(read, c.credsFile, 'cluster.nats.credsFile');
    if (!first.ok) return first;
    if (!/-----BEGIN NATS USER JWT-----/.test(first.value) || !/-----BEGIN USER NKEY SEED-----/.test(first.value)) {
      return { ok: false, error: `cluster.nats.credsFile ${c.credsFile}: not a NATS creds file (a user JWT and a user nkey seed)` };
    }
    const current = rereading(read, c.credsFile, first.value);
    return { ok: true, value: credsAuthenticator(() => new TextEncoder().encode(current())) };
  }
  if (c.nkeySeedFile !== '') {
    const first = tryRead(read, c.nkeySeedFile, 'cluster.nats.nkeySeedFile');
    if (!first.ok) return first;
    const seed = first.value.trim();
    if (!seedIsUser(seed)) return { ok: false, error: `cluster.nats.nkeySeedFile ${c.nkeySeedFile}: not a user nkey seed (one line starting SU)` };
    const current = rereading(read, c.nkeySeedFile, seed, (s) => (seedIsUser(s.trim()) ? s.trim() : undefined));
    return { ok: true, value: nkeyAuthenticator(() => new TextEncoder().encode(current())) };
  }
  if (c.user !== '') {
    const first = tryRead(read, c.passwordFile, 'cluster.nats.passwordFile');
    if (!first.ok) return first;
    const pass = firstLine(first.value);
    if (pass === '') return { ok: false, error: `cluster.nats.passwordFile ${c.passwordFile}: empty` };
    const current = rereading(read, c.passwordFile, pass, (s) => firstLine(s) || undefined);
    return { ok: true, value: usernamePasswordAuthenticator(c.user, current) };
  }
  return { ok: true, value: undefined };
}

function tryRead(read: ReadFile, path: string, setting: string): Result<string, string> {
  try {
    return { ok: true, value: read(path) };
  } catch (e) {
    return { ok: false, error: `${setting} ${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
}

/** A password file holds the password on its first line (a trailing newline is not part of it). */
function firstLine(text: string): string {
  return text.split(/\r?\n/)[0] ?? '';
}

function seedIsUser(seed: string): boolean {
  if (!seed.startsWith('SU')) return false;
  try {
    nkeys.fromSeed(new TextEncoder().encode(seed));
    return true;
  } catch {
    return false;
  }
}

/** The file's content read anew at each call, or the last good one when it cannot be read or is not valid. */
function rereading(read: ReadFile, path: string, first: string, valid: (s: string) => string | undefined = (s) => s): () => string {
  let last = first;
  return () => {
    try {
      const v = valid(read(path));
      if (v !== undefined) last = v;
    } catch {
      // keep the last good content
    }
    return last;
  };
}

/**
 * A connection error in words an operator can act on: which cause (TLS trust, a certificate's name,
 * refused credentials, nothing listening) and which setting to look at. The raw message follows.
 */
export function explainConnectError(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  const code = e instanceof Error ? (e as NodeJS.ErrnoException).code ?? ((e as { cause?: NodeJS.ErrnoException }).cause?.code ?? '') : '';
  const text = `${code} ${raw} ${e instanceof Error && e.cause instanceof Error ? e.cause.message : ''}`;
  if (/SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|CERT_UNTRUSTED|self[- ]signed|unable to verify|unable to get (local )?issuer/i.test(text)) {
    return `TLS handshake failed: the server's certificate is not trusted (set cluster.nats.tls.caFile / DICECHESS_CLUSTER_TLS_CA to the CA that signed it): ${raw}`;
  }
  if (/ERR_TLS_CERT_ALTNAME_INVALID|altnames|Hostname\/IP does not match/i.test(text)) {
    return `TLS handshake failed: the server's certificate does not name the host in the URL: ${raw}`;
  }
  if (/CERT_HAS_EXPIRED|certificate has expired/i.test(text)) return `TLS handshake failed: the server's certificate has expired: ${raw}`;
  if (/authorization violation|authentication|AUTHORIZATION/i.test(text)) {
    return `NATS refused the credentials (cluster.nats.credsFile, nkeySeedFile or user/passwordFile): ${raw}`;
  }
  if (/tls.*required|requires tls|TLS required/i.test(text)) return `the server requires TLS (use tls:// URLs or set cluster.nats.tls.caFile): ${raw}`;
  return raw;
}
