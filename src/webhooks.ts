// Composition of the webhook feature (kept beside main.ts so the root stays short): the pinned client,
// the per-bot statistics, the deliverer (a game lifecycle listener), the registration service behind
// the routes, and the webhook metrics.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Config } from './server-config.js';
import type { Clock } from './domain/clock.js';
import type { WebhookRecord } from './domain/records.js';
import type { Logger } from './domain/log.js';
import type { GameHandle } from './game/types.js';
import { UndiciWebhookClient } from './services/webhooks/client.js';
import { WebhookDeliverer } from './services/webhooks/deliverer.js';
import { systemResolver, type Resolver } from './services/webhooks/policy.js';
import { WebhookRegistry } from './services/webhooks/registration.js';
import { DeliveryStats, OUTCOMES, type Outcome } from './services/webhooks/stats.js';
import type { Store } from './store/types.js';
import { totalsCounter } from './metric-totals.js';
import { parseBody } from './wire/parse.js';
import { MoveRequest } from './wire/requests.js';

export interface WebhookParts {
  deliverer: WebhookDeliverer;
  routes: WebhookRegistry;
  /** Adds the delivery metrics to the server's Prometheus registry. */
  registerMetrics(registry: Registry): void;
  stop(): Promise<void>;
}

export interface WebhookRootDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  version: string;
  setWebhook(botId: string, hook: WebhookRecord | null): Promise<boolean>;
  /** DNS override (tests). */
  resolver?: Resolver;
  /** Tests observe the pinned lookups. */
  onPinnedLookup?: (host: string, address: string) => void;
  /** Cluster mode: this node delivers a game's rolls only while it owns the game's shard. */
  delivers?: ((game: GameHandle) => boolean) | undefined;
}

/** A webhook answer judged exactly as the body of POST /bot/game/{id}/move is. */
export function parseMovesAnswer(text: string): { moves: string[]; version?: number } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = parseBody(MoveRequest, value);
  if (!parsed.ok) return null;
  const { moves, version } = parsed.value;
  return version === undefined ? { moves } : { moves, version };
}

export function createWebhooks(config: Config['webhooks'], d: WebhookRootDeps): WebhookParts {
  if (config.allowInsecureLocalTargets) {
    d.log.warn(
      { allowInsecureLocalTargets: true },
      'webhooks: insecure local targets allowed (http, loopback and private addresses); for local development only',
    );
  }
  const answerCapMs = config.answerCapSeconds * 1000;
  const client = new UndiciWebhookClient({
    policy: { resolve: d.resolver ?? systemResolver, allowInsecureLocalTargets: config.allowInsecureLocalTargets },
    clock: d.clock,
    maxPools: config.maxPools,
    connectionsPerPool: config.connectionsPerBot,
    recheckMs: 60_000,
    userAgent: `dicechess/${d.version}`,
    onPinnedLookup: d.onPinnedLookup,
  });
  const stats = new DeliveryStats();
  // Created unregistered: the root decides which Prometheus registry serves them.
  const total = new Counter({
    name: 'dicechess_webhook_deliveries_total',
    help: 'Webhook turn deliveries by outcome',
    labelNames: ['outcome'],
    registers: [],
  });
  for (const outcome of OUTCOMES) total.inc({ outcome }, 0);
  const seconds = new Histogram({
    name: 'dicechess_webhook_delivery_seconds',
    help: 'Round trip of webhook turn deliveries',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [],
  });
  const deliverer = new WebhookDeliverer({
    store: d.store,
    client,
    clock: d.clock,
    stats,
    parseMoves: parseMovesAnswer,
    answerCapMs,
    maxInFlight: config.maxConcurrentDeliveries,
    // One bot gets no more calls in flight than its own pool has connections.
    maxInFlightPerBot: config.connectionsPerBot,
    maxQueuedPerBot: config.maxQueuedPerBot,
    maxQueued: config.maxQueued,
    log: d.log,
    delivers: d.delivers,
    observe: (outcome: Outcome, ms: number) => {
      total.inc({ outcome });
      seconds.observe(ms / 1000);
    },
  });
  // Rolls of the games resumed at start wait until main releases it, once the server listens.
  deliverer.hold();
  const routes = new WebhookRegistry({ store: d.store, client, clock: d.clock, stats, answerCapMs, setWebhook: d.setWebhook });
  return {
    deliverer,
    routes,
    registerMetrics(registry) {
      registry.registerMetric(total);
      registry.registerMetric(seconds);
      new Gauge({
        name: 'dicechess_webhook_deliveries_pending',
        help: 'Webhook deliveries running or waiting for a slot',
        registers: [registry],
        collect() {
          this.set(deliverer.pending());
        },
      });
      totalsCounter({
        name: 'dicechess_webhook_deliveries_dropped_total',
        help: 'Webhook turn deliveries never queued because a queue bound was reached',
        registers: [registry],
        read: () => [{ labels: {}, value: deliverer.droppedCount() }],
      });
      // The name before it became a counter, kept for one more version so dashboards can move over.
      new Gauge({
        name: 'dicechess_webhook_deliveries_dropped',
        help: 'Deprecated, removed in the next version: use dicechess_webhook_deliveries_dropped_total',
        registers: [registry],
        collect() {
          this.set(deliverer.droppedCount());
        },
      });
    },
    stop: () => deliverer.stop(),
  };
}
