// Operations and documents: health, metrics, the OpenAPI and AsyncAPI documents, and the routes that
// exist only in later parts of the service (webhooks: 503 unless enabled).
import { asyncApiJson, openApiJson } from '../../wire/openapi.js';
import type { EdgeDeps, HandlerTable } from '../deps.js';
import { json, problem } from '../reply.js';

export function opsHandlers(deps: EdgeDeps): HandlerTable {
  const openapi = openApiJson(deps.version);
  const asyncapi = asyncApiJson(deps.version);
  // Webhook delivery is not part of this version: the config refuses `webhooks.enabled`, so these
  // handlers only run if that guard is removed without implementing them.
  const notYet = () => problem(503, 'webhooks_disabled', 'webhooks are not available on this server');
  return {
    health: () => json(200, { status: 'ok', version: deps.version }),
    metrics: async () => ({
      status: 200,
      body: await deps.metrics(),
      contentType: 'text/plain; version=0.0.4; charset=utf-8',
      headers: undefined,
    }),
    getOpenApi: () => json(200, openapi),
    getAsyncApi: () => json(200, asyncapi),
    registerWebhook: notYet,
    getWebhook: notYet,
    deleteWebhook: notYet,
  };
}
