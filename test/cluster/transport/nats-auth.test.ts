// A node's NATS credentials and TLS settings (src/cluster/transport/nats-auth.ts, cluster.nats in
// src/server-config.ts): taken from files named in the settings or DICECHESS_CLUSTER_* variables, one
// way of authenticating at a time, refused with the setting's name when a file is missing or not what
// it should be, read again at each connection (a rotated file is taken up; a vanished one leaves the
// last good content), and connection errors explained. The settings did not exist before.
import t from 'tap';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from '@nats-io/transport-node';
import { loadConfig } from '../../../src/server-config.js';
import { explainConnectError, natsClientOptions, type NatsClientConfig } from '../../../src/cluster/transport/nats-auth.js';

const dir = mkdtempSync(join(tmpdir(), 'dc-nats-auth-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const none: NatsClientConfig = { credsFile: '', nkeySeedFile: '', user: '', passwordFile: '', tls: { caFile: '', certFile: '', keyFile: '' } };
const natsOf = (env: Record<string, string>) => {
  const c = loadConfig({ env });
  return c.ok ? c.value.cluster.nats : c.error;
};

t.test('settings from the environment; one way of authenticating at a time', async (t) => {
  t.match(natsOf({ DICECHESS_CLUSTER_CREDS: '/etc/dc/node.creds', DICECHESS_CLUSTER_TLS_CA: '/etc/dc/ca.pem' }), { credsFile: '/etc/dc/node.creds', tls: { caFile: '/etc/dc/ca.pem' } });
  t.match(natsOf({ DICECHESS_CLUSTER_NKEY_SEED_FILE: '/k.nk' }), { nkeySeedFile: '/k.nk' });
  t.match(natsOf({ DICECHESS_CLUSTER_USER: '1234', DICECHESS_CLUSTER_PASSWORD_FILE: '/p' }), { user: '1234', passwordFile: '/p' }, 'a numeric user stays a name');
  t.match(natsOf({ DICECHESS_CLUSTER_TLS_CERT: '/c.pem', DICECHESS_CLUSTER_TLS_KEY: '/k.pem' }), { tls: { certFile: '/c.pem', keyFile: '/k.pem' } });
  t.match(natsOf({ DICECHESS_CLUSTER_CREDS: '/a', DICECHESS_CLUSTER_NKEY_SEED_FILE: '/b' }), /cluster\.nats.*one of/);
  t.match(natsOf({ DICECHESS_CLUSTER_USER: 'node' }), /cluster\.nats\.passwordFile/);
  t.match(natsOf({ DICECHESS_CLUSTER_TLS_CERT: '/c.pem' }), /cluster\.nats\.tls\.keyFile/);
});

t.test('files missing or malformed are refused, naming the setting', async (t) => {
  const err = (c: Partial<NatsClientConfig>) => {
    const r = natsClientOptions(['nats://h:4222'], { ...none, ...c });
    return r.ok ? 'accepted' : r.error;
  };
  t.match(err({ nkeySeedFile: join(dir, 'absent.nk') }), /cluster\.nats\.nkeySeedFile .*absent\.nk.*ENOENT/);
  t.match(err({ nkeySeedFile: file('account.nk', new TextDecoder().decode(nkeys.createAccount().getSeed())) }), /not a user nkey seed/);
  t.match(err({ credsFile: file('bad.creds', 'hello') }), /cluster\.nats\.credsFile.*not a NATS creds file/);
  t.match(err({ user: 'node', passwordFile: file('empty.pw', '\n') }), /passwordFile.*empty/);
  t.match(err({ tls: { caFile: file('ca.txt', 'not pem'), certFile: '', keyFile: '' } }), /cluster\.nats\.tls\.caFile.*not a PEM file/);
  t.equal(err({ nkeySeedFile: file('user.nk', `${new TextDecoder().decode(nkeys.createUser().getSeed())}\n`) }), 'accepted');
});

t.test('TLS: a CA file or a tls:// URL asks for it', async (t) => {
  const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n');
  const with_ = natsClientOptions(['nats://h:4222'], { ...none, tls: { caFile: ca, certFile: '', keyFile: '' } });
  t.same(with_.ok && with_.value.tls, { caFile: ca });
  const url = natsClientOptions(['tls://h:4222'], none);
  t.same(url.ok && url.value.tls, {}, 'the system CAs');
  const plain = natsClientOptions(['nats://h:4222'], none);
  t.same(plain.ok && plain.value, {}, 'nothing asked, nothing set');
});

t.test('a rotated file is read at the next connection; a vanished one leaves the last good', async (t) => {
  const pw = file('node.pw', 'first\n');
  const r = natsClientOptions(['nats://h:4222'], { ...none, user: 'node', passwordFile: pw });
  if (!r.ok) throw new Error(r.error);
  const auth = r.value.authenticator as (nonce?: string) => { user?: string; pass?: string };
  t.same(auth(), { user: 'node', pass: 'first' });
  writeFileSync(pw, 'second\n');
  t.same(auth(), { user: 'node', pass: 'second' }, 'rotated');
  unlinkSync(pw);
  t.same(auth(), { user: 'node', pass: 'second' }, 'the last good one');
  const a = nkeys.createUser();
  const b = nkeys.createUser();
  const seed = file('rot.nk', new TextDecoder().decode(a.getSeed()));
  const k = natsClientOptions(['nats://h:4222'], { ...none, nkeySeedFile: seed });
  if (!k.ok) throw new Error(k.error);
  const sign = k.value.authenticator as (nonce?: string) => { nkey?: string };
  t.equal(sign('nonce').nkey, a.getPublicKey());
  writeFileSync(seed, new TextDecoder().decode(b.getSeed()));
  t.equal(sign('nonce').nkey, b.getPublicKey(), 'the new key signs');
});

t.test('connection errors say their cause', async (t) => {
  const tlsErr = Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' });
  t.match(explainConnectError(tlsErr), /TLS handshake failed: the server's certificate is not trusted.*caFile/);
  t.match(explainConnectError(new Error("'Authorization Violation'")), /NATS refused the credentials/);
  t.equal(explainConnectError(new Error('ECONNREFUSED')), 'ECONNREFUSED');
});
