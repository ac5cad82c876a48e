// /metrics as an operator scrapes it: the totals are counters (rate() works on them), and with
// metrics.port the exposition moves to a listener of its own while the public port answers 404.
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { request } from '../../helpers/http.js';

/** The `# TYPE name kind` lines of an exposition, by name. */
function types(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) out.set(m[1], m[2]);
  return out;
}

t.test('running totals are exported as counters', async (t) => {
  const app = await bootApp(t, { overrides: { 'webhooks.enabled': true } });
  const r = await app.req('GET', '/metrics');
  t.equal(r.status, 200);
  const kinds = types(r.text);
  for (const name of [
    'dicechess_thread_cpu_seconds_total',
    'dicechess_shard_main_seconds_total',
    'dicechess_replica_updates_applied_total',
    'dicechess_webhook_deliveries_dropped_total',
  ]) t.equal(kinds.get(name), 'counter', `${name} is a counter`);
  // Kept one more version for dashboards that read it (docs/OPERATIONS.md says so).
  t.equal(kinds.get('dicechess_webhook_deliveries_dropped'), 'gauge', 'the old name is still there, deprecated');
  t.match(r.text, /^dicechess_thread_cpu_seconds_total\{thread="main"\} \d/m, 'the main thread has its series');
});

t.test('metrics.port moves /metrics to its own listener, and off the public port', async (t) => {
  const app = await bootApp(t, { overrides: { 'metrics.port': 0 } });
  const port = app.server.metricsPort;
  t.ok(port !== undefined && port > 0 && port !== app.port, `a port of their own: ${port}`);
  const scraped = await request('GET', `http://127.0.0.1:${port}/metrics`);
  t.equal(scraped.status, 200);
  t.equal(types(scraped.text).get('dicechess_live_games'), 'gauge', 'the whole exposition is there');
  t.equal((await request('GET', `http://127.0.0.1:${port}/health`)).status, 404, 'and nothing else');
  const pub = await app.req('GET', '/metrics');
  t.equal(pub.status, 404, 'the public port has no /metrics');
  t.equal((pub.json as { code: string }).code, 'not_found');
  t.equal((await app.req('GET', '/health')).status, 200, 'the public port serves the rest');
});

t.test('without metrics.port, /metrics stays on the public port and no other port is opened', async (t) => {
  const app = await bootApp(t);
  t.equal(app.server.metricsPort, undefined);
  t.equal((await app.req('GET', '/metrics')).status, 200);
});
