// A throw-away certificate authority and one certificate it signs, made with the `openssl` command,
// for `make cluster` and the TLS tests: not for production (the CA's key sits beside the certificates).
// The certificate names the given hosts (IP addresses and DNS names) and serves both ends of a TLS
// connection (serverAuth and clientAuth), so the same pair serves client TLS, route TLS and a node's
// client certificate.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DevCerts {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** Whether `openssl` can be run here. */
export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Writes `<prefix>ca.pem`, `<prefix>ca.key`, `<prefix>cert.pem`, `<prefix>key.pem` into `dir`. */
export function makeDevCerts(dir: string, hosts: readonly string[] = ['127.0.0.1', 'localhost'], prefix = ''): DevCerts {
  const f = (name: string): string => join(dir, `${prefix}${name}`);
  const run = (args: string[]): void => void execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  run(['req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '3650', '-subj', `/CN=dicechess dev CA ${prefix}`.trim(),
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  run(['req', ...ec, '-keyout', f('key.pem'), '-out', f('cert.csr'), '-subj', '/CN=dicechess-nats']);
  const san = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
  writeFileSync(f('cert.ext'), [`subjectAltName=${san}`, 'basicConstraints=CA:FALSE', 'extendedKeyUsage=serverAuth,clientAuth', ''].join('\n'));
  run(['x509', '-req', '-in', f('cert.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('cert.pem'), '-days', '825', '-extfile', f('cert.ext')]);
  return { caFile: f('ca.pem'), certFile: f('cert.pem'), keyFile: f('key.pem') };
}
