// Routes of a bot's own identity: tokens, its account, ladder membership and capacity, and its
// webhook. Part of the route catalogue (../routes.ts), which lists every group in document order.
import * as Q from '../requests.js';
import * as R from '../responses.js';
import { json, noContent, route } from '../route-spec.js';
import { DEFAULT_CAPACITY, DOCUMENTED_DEFAULTS as D, MAX_CAPACITY } from '../documented-defaults.js';

const REGISTERED_ONLY = 'Anonymous or static (house) caller: registered bots only.';
const WEBHOOKS_OFF = 'Webhooks are disabled on this server (checked before authentication).';
const LADDER_CHANGES = '`too_many_ladder_changes`: more ladder joins and leaves than the bot’s budget (60 per hour by default); see Retry-After.';

export const identity = [
  route({
    operationId: 'mintAnonymous', method: 'POST', path: '/bot/anon', auth: 'public', tag: 'Identity',
    summary: 'Mint an anonymous token (ephemeral, unranked, about 24 hours).',
    request: { query: Q.AnonQuery },
    ok: { 201: json(R.TokenResponse, 'A new anonymous identity; the token is shown only here.') },
    errors: { 429: `More than ${D.anonMintsPerHour} mints per hour from this address; see Retry-After.` },
  }),
  route({
    operationId: 'register', method: 'POST', path: '/bot/register', auth: 'public', tag: 'Identity',
    summary: 'Register a durable (team, name) identity.',
    request: { body: Q.RegisterRequest },
    ok: { 201: json(R.TokenResponse, 'The registered identity; the token is shown only here.') },
    errors: {
      400: 'Invalid slug, or the reserved team `anon` or `house`.',
      409: 'This team and name are already taken.',
      429: `More than ${D.registrationsPerHour} successful registrations per hour from this address; see Retry-After.`,
    },
  }),
  route({
    operationId: 'rotateToken', method: 'POST', path: '/bot/token', auth: 'bearer', tag: 'Identity',
    summary: 'Rotate the token; the old one stops authenticating at once.',
    ok: { 200: json(R.RotatedToken, 'The replacement token.') },
    errors: { 403: 'Anonymous callers re-mint; static callers rotate through the server configuration.' },
  }),
  route({
    operationId: 'getAccount', method: 'GET', path: '/bot/account', auth: 'bearer', tag: 'Identity',
    summary: 'Who am I.',
    ok: { 200: json(R.Account, 'The calling identity.') },
  }),
  route({
    operationId: 'joinLadder', method: 'POST', path: '/bot/ladder/join', auth: 'bearer', tag: 'Identity',
    summary: 'Join the rating ladder; the server then pairs the bot on its own.',
    ok: { 200: json(R.LadderState, 'Membership and rating.') },
    errors: { 403: REGISTERED_ONLY, 429: LADDER_CHANGES },
  }),
  route({
    operationId: 'leaveLadder', method: 'POST', path: '/bot/ladder/leave', auth: 'bearer', tag: 'Identity',
    summary: 'Leave the rating ladder; the rating is frozen and the bot stays listed.',
    ok: { 200: json(R.LadderState, 'Membership and rating.') },
    errors: { 403: REGISTERED_ONLY, 429: LADDER_CHANGES },
  }),
  route({
    operationId: 'getCapacity', method: 'GET', path: '/bot/capacity', auth: 'bearer', tag: 'Identity',
    summary: 'How many ladder games the bot plays at once, and how many it is in now.',
    ok: { 200: json(R.Capacity, 'Capacity and live ladder games.') },
    errors: { 403: REGISTERED_ONLY },
  }),
  route({
    operationId: 'setCapacity', method: 'POST', path: '/bot/capacity', auth: 'bearer', tag: 'Identity',
    summary: `Set how many ladder games the server may seat the bot in at once (1 to ${MAX_CAPACITY}, ${DEFAULT_CAPACITY} by default; a mirror pair counts 2).`,
    request: { body: Q.CapacityRequest },
    ok: { 200: json(R.Capacity, 'The new capacity and live ladder games.') },
    errors: { 400: `Capacity missing, not a whole number, or outside 1..${MAX_CAPACITY}.`, 403: REGISTERED_ONLY },
  }),
];

export const webhooks = [
  route({
    operationId: 'registerWebhook', method: 'POST', path: '/bot/webhook', auth: 'bearer', tag: 'Webhooks',
    summary: 'Register or replace the webhook after a verification handshake.',
    description:
      'The URL must be https and every address its host resolves to public (not loopback, private, ' +
      'link-local, CGNAT, reserved, multicast, or their IPv4-mapped and NAT64 forms). The server then POSTs ' +
      'a signed `verification` delivery (see the `webhooks` section) and waits, at most the answer cap, for ' +
      '200 `{"nonce": <same>}`. Registering again replaces URL and secret; delivery statistics start over.',
    request: { body: Q.WebhookRequest },
    ok: { 201: json(R.WebhookCreated, 'Active; the secret is shown only here.') },
    errors: {
      403: REGISTERED_ONLY,
      422: 'URL policy violation (code `webhook_url_refused`) or failed handshake (`webhook_handshake_failed`); `detail` says which rule or what the handshake got.',
      429: `More than ${D.webhookRegistrationsPerHour} registrations per hour from this address; see Retry-After.`,
      503: WEBHOOKS_OFF,
    },
  }),
  route({
    operationId: 'getWebhook', method: 'GET', path: '/bot/webhook', auth: 'bearer', tag: 'Webhooks',
    summary: 'The active webhook and its delivery statistics.',
    ok: { 200: json(R.WebhookInfo, 'The webhook.') },
    errors: { 403: REGISTERED_ONLY, 404: 'No webhook registered (code `no_webhook`).', 503: WEBHOOKS_OFF },
  }),
  route({
    operationId: 'deleteWebhook', method: 'DELETE', path: '/bot/webhook', auth: 'bearer', tag: 'Webhooks',
    summary: 'Stop deliveries from the next turn on; games keep running.',
    ok: { 204: noContent('Removed.') },
    errors: { 403: REGISTERED_ONLY, 404: 'No webhook registered (code `no_webhook`).', 503: WEBHOOKS_OFF },
  }),
];
