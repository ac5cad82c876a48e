// The edge toolkit in one import: routes, replies, bodies, streams, limits, client addresses.
export { createRouter, Router, type Handler, type ObservedResponse, type RouteOptions, type RouterOptions } from './router.js';
export { RequestContext, bearerToken, readJson, type Method, type RequestHeaders } from './context.js';
export { DEFAULT_BODY_LIMIT, type BodyResult } from './body.js';
export {
  json,
  noContent,
  problem,
  unauthorized,
  tooManyRequests,
  internalError,
  JSON_TYPE,
  PROBLEM_TYPE,
  type Headers,
  type Reply,
} from './reply.js';
export { Responder, type BugLog } from './responder.js';
export { openNdjson, NDJSON_TYPE, type CloseReason, type NdjsonOptions, type NdjsonStream } from './ndjson.js';
export { RateLimiter, type RateLimiterOptions, type RateVerdict } from './rate-limit.js';
export { normalizeIp, parseTrustedProxies, rateLimitKey, resolveClientIp, type TrustedProxies } from './client-ip.js';
export { CorsRules, type CorsPolicy } from './cors.js';
export { listen, type Listening } from './listen.js';
