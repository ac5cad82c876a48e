// Webhook routes. With webhooks disabled the binder answers 503 before these run (and before auth).
import { rateLimitKey } from '../client-ip.js';
import { caller, type EdgeDeps, type HandlerTable } from '../deps.js';
import { json, noContent, problem, tooManyRequests } from '../reply.js';
import { serviceProblem } from './errors.js';

export function webhookHandlers(deps: EdgeDeps): HandlerTable {
  const off = () => problem(503, 'webhooks_disabled', 'webhooks are disabled on this server');
  return {
    registerWebhook: async (call) => {
      const hooks = deps.webhooks;
      if (!hooks) return off();
      const p = caller(call);
      if (p.tier !== 'registered') return problem(403, 'registered_only', 'only registered bots can hold a webhook');
      // Every attempt counts, failed handshakes included: each one makes the server call out.
      const budget = deps.limits.webhookRegistrations.take(rateLimitKey(call.ctx.ip));
      if (!budget.ok) {
        return tooManyRequests(budget.retryAfterSeconds, 'at most 5 webhook registrations per hour per address', 'too_many_webhook_registrations');
      }
      const r = await hooks.register(p, (call.body as { url: string }).url);
      return r.ok ? json(201, r.value) : serviceProblem(r.error);
    },

    getWebhook: (call) => {
      if (!deps.webhooks) return off();
      const r = deps.webhooks.info(caller(call));
      return r.ok ? json(200, r.value) : serviceProblem(r.error);
    },

    deleteWebhook: async (call) => {
      if (!deps.webhooks) return off();
      const r = await deps.webhooks.remove(caller(call));
      return r.ok ? noContent() : serviceProblem(r.error);
    },
  };
}
