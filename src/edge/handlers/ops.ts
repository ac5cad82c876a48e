// Operations and documents: health, readiness, metrics, the OpenAPI and AsyncAPI documents.
import { asyncApiJson, openApiJson } from '../../wire/openapi.js';
import type { EdgeDeps, Handlers, ReadinessReport } from '../deps.js';
import { json, problem, type Reply } from '../reply.js';

/** What the operations routes use. */
export type OpsRouteDeps = Pick<EdgeDeps, 'version' | 'metrics' | 'ready'>;

const ALWAYS_READY: ReadinessReport = { ready: true, parts: {} };

export function opsHandlers(deps: OpsRouteDeps): Handlers<'health' | 'ready' | 'metrics' | 'getOpenApi' | 'getAsyncApi'> {
  const openapi = openApiJson(deps.version);
  const asyncapi = asyncApiJson(deps.version);
  const metrics = deps.metrics;
  return {
    health: () => json(200, { status: 'ok', version: deps.version }),
    ready: () => {
      const r = deps.ready?.() ?? ALWAYS_READY;
      // A plain JSON body with 503, not a problem: a probe reads the status, a person reads `parts`.
      return json(r.ready ? 200 : 503, { status: r.ready ? 'ready' : 'not_ready', parts: r.parts });
    },
    metrics: async (): Promise<Reply> =>
      metrics === null
        ? problem('not_found', 'the metrics are served on their own port')
        : { status: 200, body: await metrics(), contentType: 'text/plain; version=0.0.4; charset=utf-8', headers: undefined },
    getOpenApi: () => json(200, openapi),
    getAsyncApi: () => json(200, asyncapi),
  };
}
