// Three secured nats-servers (route authorisation with a route user and password, route TLS with a
// certificate each server checks, client TLS, the node and monitor users): the routes form one
// JetStream cluster — a bucket with three copies is made and written through one server by the node
// user and read through another — and every server's configuration names the route user and leaves
// no route URL without credentials.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { openBucket } from '../../../src/cluster/transport/nats.js';
import { natsClientOptions } from '../../../src/cluster/transport/nats-auth.js';
import { hasOpenssl } from '../../../src/cluster/security/dev-certs.js';
import { eventually } from '../../helpers/nats-cluster.js';
import { startSecureNats } from '../../helpers/nats-secure.js';

const tls = hasOpenssl();
// make test installs openssl (with nats-server): without it the routes' TLS is not checked, and that fails.
t.ok(tls, 'openssl is installed, so the routes run TLS');
const nats = await startSecureNats({ name: 'dc-routes', size: 3, tls });
t.teardown(() => nats.stop());

t.test('the routes form one JetStream cluster', async (t) => {
  const security = natsClientOptions(nats.urls, nats.nodeSettings);
  if (!security.ok) throw new Error(security.error);
  const a = await connect({ ...security.value, servers: nats.urls[0], reconnect: false, timeout: 3000 });
  const b = await connect({ ...security.value, servers: nats.urls[2], reconnect: false, timeout: 3000 });
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  let made = false;
  // The meta leader may not count every peer yet right after start: asked again for a while.
  t.ok(await eventually(async () => (made = made || (await openBucket(a, { bucket: 'dc_bots', replicas: 3 }).then(() => true, () => false))), 30_000), 'an R3 bucket was made');
  const kvA = await openBucket(a, { bucket: 'dc_bots', replicas: 3 });
  await kvA.put('bot.r', new TextEncoder().encode('across'));
  const kvB = await openBucket(b, { bucket: 'dc_bots', replicas: 3 });
  t.equal((await kvB.get('bot.r'))?.string(), 'across', 'read through another server');
  const info = await (await jetstreamManager(b)).streams.info('KV_dc_bots');
  t.equal(info.cluster?.replicas?.length, 2, 'two other copies besides the leader');
});

t.test('every route is authenticated (and encrypted when openssl is there)', async (t) => {
  for (const s of nats.servers) {
    const conf = readFileSync(s.configFile, 'utf8');
    t.match(conf, /authorization \{ user: "route", password: "[0-9a-f]{36}" \}/, `${s.name}: route authorisation`);
    const urls = conf.match(/nats-route:\/\/[^"]+/g) ?? [];
    t.equal(urls.length, 2, `${s.name}: two routes`);
    t.ok(urls.every((u) => /^nats-route:\/\/route:[0-9a-f]{36}@/.test(u)), `${s.name}: each route URL carries the route credentials`);
    if (tls) t.match(conf, /cluster \{[\s\S]*tls \{ cert_file: [^}]*verify: true \}/, `${s.name}: route TLS verifying its peer`);
    t.notMatch(conf, /^\s*no_auth_user/m, `${s.name}: no anonymous user`);
  }
});
