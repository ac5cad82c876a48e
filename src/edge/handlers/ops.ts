// Operations and documents: health, metrics, the OpenAPI and AsyncAPI documents.
import { asyncApiJson, openApiJson } from '../../wire/openapi.js';
import type { EdgeDeps, Handlers } from '../deps.js';
import { json } from '../reply.js';

/** What the operations routes use. */
export type OpsRouteDeps = Pick<EdgeDeps, 'version' | 'metrics'>;

export function opsHandlers(deps: OpsRouteDeps): Handlers<'health' | 'metrics' | 'getOpenApi' | 'getAsyncApi'> {
  const openapi = openApiJson(deps.version);
  const asyncapi = asyncApiJson(deps.version);
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
  };
}
