// Response bodies of a bot's own identity: tokens, account, ladder membership, capacity and webhook.
// Re-exported by ../responses.ts with every other response body.
import { z } from 'zod';
import { described, named } from '../schema-registry.js';
import { DEFAULT_CAPACITY, MAX_CAPACITY } from '../documented-defaults.js';
import { count, dateTime } from '../common.js';
import { EventHosts } from '../tournament-schemas.js';

export const TokenResponse = named(
  'TokenResponse',
  z.strictObject({
    token: described(z.string(), 'Bearer token, shown in full only in this response.'),
    team: z.string(),
    name: z.string(),
    id: described(z.string(), 'External id `bot:team:<team>:<name>`.'),
  }),
  'A freshly minted or registered identity.',
);

export const RotatedToken = named(
  'RotatedToken',
  z.strictObject({ token: z.string() }),
  'The replacement token; the old one stopped authenticating.',
);

export const Account = named(
  'Account',
  z.strictObject({
    team: z.string(),
    name: z.string(),
    id: z.string(),
    eventHosts: described(EventHosts.optional(), 'Registered bots only: whose event invitations it accepts without answering.'),
  }),
  'The calling identity. Anonymous bots have team `anon` and a name with a generated suffix.',
);

export const LadderState = named(
  'LadderState',
  z.strictObject({ onLadder: z.boolean(), glickoRating: z.number(), glickoRd: z.number() }),
  'Ladder membership and Glicko-2 rating (a fresh bot: 1500 / 350).',
);


export const Capacity = named(
  'Capacity',
  z.strictObject({
    capacity: described(z.int().min(1).max(MAX_CAPACITY), `Ladder games the bot plays at once (${DEFAULT_CAPACITY} unless set).`),
    inGames: described(count(), 'Live ladder games the bot is in; a mirror pair counts 2.'),
  }),
  'Ladder capacity of the calling bot.',
);


export const WebhookCreated = named(
  'WebhookCreated',
  z.strictObject({
    url: z.url(),
    secret: described(
      z.string().regex(/^[0-9a-f]{64}$/),
      'Per-bot HMAC key (64 lowercase hex characters); never shown again. Deliveries are signed with it.',
    ),
  }),
  'The active webhook and its signing secret.',
);

const latency = (what: string) => described(z.number().min(0), `${what} round trip in ms over the bot’s recent deliveries; 0 before any.`);

export const WebhookStats = named(
  'WebhookStats',
  z.strictObject({
    applied: described(count(), 'Answers whose turn was played.'),
    declined: described(count(), 'Answers with no moves.'),
    refused: described(count(), 'Answers whose turn the game refused (illegal turn, or no longer the bot’s turn).'),
    malformed: described(count(), 'Answers that were not a move request, or over 64 KiB.'),
    httpError: described(count(), 'Answers with a status other than 200 (redirects included: never followed).'),
    timeout: described(count(), 'No whole answer within the smaller of the answer cap and the bot’s clock.'),
    unreachable: described(count(), 'Connection failures, or a host that no longer resolves.'),
    policyBlocked: described(count(), 'The URL policy refused the address at connection time.'),
    deliveries: described(count(), 'All deliveries with an outcome (the sum of the counts above).'),
    latencyMsP50: latency('Median'),
    latencyMsP90: latency('90th percentile'),
    latencyMsP99: latency('99th percentile'),
    latencyMsMax: latency('Largest'),
  }),
  'Delivery outcomes since registration (or the last server start), with latency percentiles.',
);

export const WebhookInfo = named(
  'WebhookInfo',
  z.strictObject({ url: z.url(), verifiedAt: dateTime('When the handshake succeeded.'), stats: WebhookStats }),
  'The active webhook; the secret is never returned again.',
);
