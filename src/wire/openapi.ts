// The OpenAPI 3.1 document, generated from the route catalogue and the same zod schemas that parse
// requests, so it cannot drift from the code. Built once per version; the JSON text is cached too,
// so GET /openapi.json costs a map lookup.
import './schemas.js'; // every named shape registered before the first conversion
import type { JsonObject } from './jsonschema.js';
import { componentSchemas, documentCache, inlineSchema, refTo } from './jsonschema.js';
import { ROUTES, TAGS } from './routes.js';
import type { ResponseSpec, RouteSpec } from './route-spec.js';
import { CONTENT_TYPES, CONTRACT_VERSION, pathParams } from './route-spec.js';
import { MoveRequest, VerificationAnswer } from './requests.js';
import { Problem } from './responses.js';
import { WebhookVerification, WebhookYourTurn } from './events.js';

export { buildAsyncApi, asyncApiJson } from './asyncapi.js';

export { CONTRACT_VERSION } from './route-spec.js';

const DESCRIPTION = [
  'A play platform for dice chess: each turn starts with a roll of three dice and is a sequence of UCI',
  `micro-moves. Contract ${CONTRACT_VERSION}.`,
  'Errors other than move verdicts are `application/problem+json` with a stable snake_case `code`.',
  'Every route may also answer 500 (a bug). A known path with a wrong method answers 405 with `Allow`;',
  'an unknown path answers 404. All three are problems (`x-unmatched-responses` has them). Every GET also answers HEAD',
  '(same status and headers, no body), and every known path answers an OPTIONS CORS preflight with 204.',
  'The two ndjson streams are described event by event in the AsyncAPI document at /asyncapi.json.',
].join(' ');

const HEADERS: Record<number, JsonObject> = {
  401: { 'WWW-Authenticate': { description: 'Always `Bearer realm="dicechess"`.', schema: { type: 'string' } } },
  405: { Allow: { description: 'The methods this path answers.', schema: { type: 'string' } } },
  429: {
    'Retry-After': { description: 'Whole seconds to wait, at least 1.', schema: { type: 'integer', minimum: 1 } },
  },
  503: {
    'Retry-After': { description: 'With `server_full`: whole seconds to wait, at least 1.', schema: { type: 'integer', minimum: 1 } },
  },
};

function response(status: number, spec: ResponseSpec, where: string): JsonObject {
  const out: JsonObject = { description: spec.description };
  const headers = HEADERS[status];
  if (headers) out.headers = headers;
  if (spec.contentType) {
    const schema = spec.schema ? refTo(spec.schema, where) : { type: 'string' };
    out.content = { [spec.contentType]: { schema } };
  }
  return out;
}

function parameters(r: RouteSpec): JsonObject[] {
  const out: JsonObject[] = pathParams(r.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    description: r.params?.[name] ?? 'Opaque identifier.',
    schema: { type: 'string' },
  }));
  const shape = r.request?.query?.shape ?? {};
  for (const name of Object.keys(shape)) {
    const field = shape[name]!;
    const { description, ...schema } = inlineSchema(field);
    const p: JsonObject = { name, in: 'query', required: !field.safeParse(undefined).success, schema };
    if (typeof description === 'string') p.description = description;
    out.push(p);
  }
  return out;
}

function operation(r: RouteSpec): JsonObject {
  const op: JsonObject = { operationId: r.operationId, tags: [r.tag], summary: r.summary };
  if (r.description) op.description = r.description;
  const params = parameters(r);
  if (params.length > 0) op.parameters = params;
  if (r.request?.body) {
    op.requestBody = {
      required: r.request.bodyRequired ?? true,
      content: { [CONTENT_TYPES.json]: { schema: refTo(r.request.body, r.operationId) } },
    };
  }
  const responses: JsonObject = {};
  for (const [status, spec] of Object.entries(r.responses)) {
    responses[status] = response(Number(status), spec, `${r.operationId} ${status}`);
  }
  op.responses = responses;
  op.security = r.auth === 'public' ? [] : [{ bearer: [] }];
  if (r.auth === 'seatOrBearer') op['x-seat-token'] = 'A guest’s seatToken is accepted as the Bearer here.';
  return op;
}

const SIGNATURE_HEADERS: JsonObject[] = [
  {
    name: 'X-Game-Timestamp',
    in: 'header',
    required: true,
    description: 'Unix time in seconds; reject deliveries outside ±5 minutes.',
    schema: { type: 'string' },
  },
  {
    name: 'X-Game-Signature',
    in: 'header',
    required: true,
    description:
      'Lowercase hex HMAC-SHA256, keyed by the UTF-8 bytes of the webhook secret, over `<timestamp>.<raw body>` ' +
      '(the timestamp header’s value, a dot, the body bytes as received).',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  {
    name: 'X-DiceChess-Timestamp',
    in: 'header',
    required: true,
    description: 'The same value as X-Game-Timestamp (for bots written against the earlier deployment).',
    schema: { type: 'string' },
  },
  {
    name: 'X-DiceChess-Signature',
    in: 'header',
    required: true,
    description: 'The same value as X-Game-Signature.',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
];

function webhooks(): JsonObject {
  const delivery = (id: string, summary: string, description: string, body: JsonObject, answer: JsonObject): JsonObject => ({
    post: {
      operationId: id,
      summary,
      description,
      parameters: SIGNATURE_HEADERS,
      security: [{ webhookSignature: [] }],
      requestBody: { required: true, content: { [CONTENT_TYPES.json]: { schema: body } } },
      responses: {
        200: { description: 'The answer (read up to 64 KiB).', content: { [CONTENT_TYPES.json]: { schema: answer } } },
        default: { description: 'Anything else plays nothing; redirects are never followed; the clock keeps running.' },
      },
    },
  });
  return {
    verification: delivery(
      'webhookVerification',
      'Handshake before the webhook is stored; answer with the same nonce.',
      'Sent by POST /bot/webhook to the URL being registered, signed with the new secret (which the ' +
        'receiver cannot know yet). The answer must be 200 `{"nonce": <same>}` within the answer cap.',
      refTo(WebhookVerification, 'webhook verification'),
      refTo(VerificationAnswer, 'webhook verification answer'),
    ),
    yourTurn: delivery(
      'webhookYourTurn',
      'It is the bot’s turn. Single attempt, no redelivery; answer within the smaller of the server cap ' +
        'and the mover’s clock.',
      'Sent for every roll published for the bot’s seat that has a choice (forced passes are played by ' +
        'the server). `state` is exactly the body of GET /games/{id}; when its `legalMoves` is null (over ' +
        'the inline cap) fetch GET /games/{id}/moves. A 200 `{moves}` answer is judged exactly like ' +
        'POST /bot/game/{id}/move (same validation, verdict and events); an empty list, an illegal turn, a ' +
        'malformed or oversized body, another status, a timeout or a failed connection plays nothing. A ' +
        'roll is delivered once, except that a delivery cut off by a server restart is sent again after ' +
        'the restart. Webhook bots send no dice seed. GET /bot/webhook `stats` counts every outcome.',
      refTo(WebhookYourTurn, 'webhook yourTurn'),
      refTo(MoveRequest, 'webhook yourTurn answer'),
    ),
  };
}

function build(serverVersion: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const r of ROUTES) {
    const item = (paths[r.path] ??= {});
    item[r.method.toLowerCase()] = operation(r);
  }
  const problem = (description: string, status: number): JsonObject =>
    response(status, { description, schema: Problem, contentType: CONTENT_TYPES.problem }, 'global');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Dice chess bot service',
      // info.version is the version of the API described; the server's build has its own field.
      version: CONTRACT_VERSION,
      description: DESCRIPTION,
      // The package is private and grants no licence (package.json says UNLICENSED, npm's word for it).
      license: { name: 'UNLICENSED', identifier: 'LicenseRef-UNLICENSED' },
      'x-server-version': serverVersion,
    },
    servers: [{ url: '/' }],
    tags: TAGS.map((t) => ({ name: t.name, description: t.description })),
    paths,
    webhooks: webhooks(),
    // Answers that belong to no operation (OpenAPI has no place for them): an unknown path, a known
    // path with a method it does not answer, and a bug.
    'x-unmatched-responses': {
      404: problem('Unknown route.', 404),
      405: problem('Known path, method not answered here.', 405),
      500: problem('A bug: no request should ever get one.', 500),
    },
    components: {
      schemas: componentSchemas('draft-2020-12') as JsonObject,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A bot token (`dcb_…`), a static house-bot token, or on game routes a guest’s seatToken.',
        },
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Game-Signature',
          description:
            'How a webhook receiver knows a delivery is the server’s: lowercase hex HMAC-SHA256, keyed by the ' +
            'webhook secret, over `<X-Game-Timestamp>.<raw body>` (also sent as X-DiceChess-Signature and ' +
            'X-DiceChess-Timestamp). Reject a bad signature or a timestamp outside ±5 minutes.',
        },
      },
    },
  };
}

const cached = documentCache(build);

/** The OpenAPI 3.1 document for a server version (frozen; the same object on every call for a version). */
export function buildOpenApi(version: string): JsonObject {
  return cached(version).doc;
}

/** The document as JSON text, serialised once per version (the body of GET /openapi.json). */
export function openApiJson(version: string): string {
  return cached(version).json;
}
