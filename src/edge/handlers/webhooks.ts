// Webhook routes. With webhooks disabled the binder answers 503 before these run (and before auth).
import { rateLimitKey } from '../client-ip.js';
import type { EdgeDeps, Handlers } from '../deps.js';
import { json, noContent, problem, tooManyRequests } from '../reply.js';
import { serviceProblem } from './errors.js';

/** What the webhook routes use. */
export type WebhookRouteDeps = Pick<EdgeDeps, 'webhooks'> & {
  limits: Pick<EdgeDeps['limits'], 'webhookRegistrations'>;
};

export function webhookHandlers(deps: WebhookRouteDeps): Handlers<'registerWebhook' | 'getWebhook' | 'deleteWebhook'> {
  const off = () => problem('webhooks_disabled');
  return {
    registerWebhook: async (call) => {
      const hooks = deps.webhooks;
      if (!hooks) return off();
      const p = call.principal;
      if (p.tier !== 'registered') return problem('registered_only', 'only registered bots can hold a webhook');
      // Every attempt counts, failed handshakes included: each one makes the server call out.
      const budget = deps.limits.webhookRegistrations.take(rateLimitKey(call.ctx.ip));
      if (!budget.ok) {
        return tooManyRequests('too_many_webhook_registrations', budget.retryAfterSeconds, `at most ${deps.limits.webhookRegistrations.limit} webhook registrations per hour per address`);
      }
      const r = await hooks.register(p, call.body.url);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    getWebhook: (call) => {
      if (!deps.webhooks) return off();
      const r = deps.webhooks.info(call.principal);
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    deleteWebhook: async (call) => {
      if (!deps.webhooks) return off();
      const r = await deps.webhooks.remove(call.principal);
      return r.ok ? noContent() : serviceProblem(r.error);
    },
  };
}
