// The webhook delivery bounds: their defaults, and each one set by its DICECHESS_* variable.
import t from 'tap';
import { loadConfig } from '../../../src/server-config.js';

t.test('webhook delivery bounds: defaults and variables', async (t) => {
  /** Variable, key under `webhooks`, default. */
  const bounds: [string, string, number][] = [
    ['DICECHESS_WEBHOOKS_MAX_CONCURRENT', 'maxConcurrentDeliveries', 256],
    ['DICECHESS_WEBHOOKS_CONNECTIONS_PER_BOT', 'connectionsPerBot', 8],
    ['DICECHESS_WEBHOOKS_MAX_POOLS', 'maxPools', 1024],
    ['DICECHESS_WEBHOOKS_MAX_QUEUED_PER_BOT', 'maxQueuedPerBot', 1000],
    ['DICECHESS_WEBHOOKS_MAX_QUEUED', 'maxQueued', 50_000],
  ];
  const at = (env: Record<string, string>, key: string): unknown => {
    const c = loadConfig({ env });
    if (!c.ok) throw new Error(c.error);
    return (c.value.webhooks as Record<string, unknown>)[key];
  };
  bounds.forEach(([name, key, byDefault], i) => {
    t.equal(at({}, key), byDefault, `webhooks.${key} defaults to ${byDefault}`);
    t.equal(at({ [name]: String(i + 2) }, key), i + 2, `${name} sets webhooks.${key}`);
  });
  t.match(loadConfig({ env: { DICECHESS_WEBHOOKS_MAX_QUEUED: '0' } }), { ok: false, error: /webhooks\.maxQueued/ }, 'a bound below 1 is refused');
});
