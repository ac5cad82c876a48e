// TLS between a node and a secured nats-server (one server, R1; its certificate from a throw-away CA
// made here with openssl, src/cluster/security/dev-certs.ts): a node that trusts another CA (or only
// the system's) refuses to start, its message naming the untrusted certificate and the setting to
// fix; a node given the right CA (cluster.nats.tls.caFile) on tls:// URLs plays a game to its end.
// Before this change a node had no TLS settings: the trusting node could not be told the CA.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settingsFile, startNode, type ClusterNodeProc } from '../../helpers/cluster-nodes.js';
import { checkPlayed, playHouseGame } from '../../helpers/cluster-play.js';
import { eventually } from '../../helpers/nats-cluster.js';
import { startSecureNats } from '../../helpers/nats-secure.js';
import { hasOpenssl, makeDevCerts } from '../../../src/cluster/security/dev-certs.js';

if (!hasOpenssl()) {
  // make test installs it (with nats-server): a machine without it fails here rather than skipping.
  t.fail('openssl is not installed: the TLS certificates of this test are made with it');
} else {
  const nats = await startSecureNats({ name: 'dc-tls', tls: true });
  const otherDir = mkdtempSync(join(tmpdir(), 'dc-other-ca-'));
  const other = makeDevCerts(otherDir, ['127.0.0.1'], 'other-');
  const base = { cluster: { shards: 2, replicas: 1, leaseTtlMs: 10_000 }, games: { houseMoveDelayMs: 0, seedGraceMs: 0 } };
  const files = {
    wrongCa: settingsFile({ ...base, cluster: { ...base.cluster, nats: { ...nats.nodeSettings, tls: { ...nats.nodeSettings.tls, caFile: other.caFile } } } }),
    systemCa: settingsFile({ ...base, cluster: { ...base.cluster, nats: { ...nats.nodeSettings, tls: { ...nats.nodeSettings.tls, caFile: '' } } } }),
    rightCa: settingsFile({ ...base, cluster: { ...base.cluster, nats: nats.nodeSettings } }),
  };
  const nodes: ClusterNodeProc[] = [];
  t.teardown(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await nats.stop();
    for (const f of Object.values(files)) f.remove();
    rmSync(otherDir, { recursive: true, force: true });
  });
  t.ok(nats.urls.every((u) => u.startsWith('tls://')), 'the servers are reached on tls:// URLs');

  const refusal = (file: string): Promise<string> =>
    startNode('untrusting', nats.urls, file).then(
      (n) => {
        nodes.push(n);
        return 'started';
      },
      (e: Error) => e.message,
    );

  t.test('a node that does not trust the server certificate refuses to start, saying why', async (t) => {
    t.match(await refusal(files.wrongCa.file), /TLS handshake failed: the server's certificate is not trusted.*cluster\.nats\.tls\.caFile/, 'another CA');
    t.match(await refusal(files.systemCa.file), /TLS handshake failed: the server's certificate is not trusted/, 'the system CAs only');
  });

  t.test('a node that trusts the CA plays a game to its end', async (t) => {
    const node = await startNode('a', nats.urls, files.rightCa.file);
    nodes.push(node);
    t.ok(await eventually(() => node.serving().size === 2, 60_000), 'it serves both shards');
    const p = await playHouseGame([node], 'tls', 1, () => {});
    await checkPlayed(t, [node], p);
    t.same(nats.serverLog(0).split('\n').filter((l) => /Violation/.test(l)), [], 'no permission violation');
  });
}
