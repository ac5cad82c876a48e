// Request bodies and query strings. Objects are zod's default (non-strict) objects: unknown fields
// are dropped, never refused (docs/API.md, "Conventions"). Arrays and strings are bounded so hostile input is
// refused cheaply, before any service sees it.
import { z } from 'zod';
import { described, named } from './schema-registry.js';
import { ChallengeColor, DeclineReason, TimeControl, count } from './common.js';
import type { Parsed } from './parse.js';
import { parseBody } from './parse.js';
import { DEFAULT_CAPACITY, LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT, MAX_CAPACITY } from './documented-defaults.js';

import { SEED_MAX, SEED_MIN, SEED_REJECT_REASON, SLUG_MAX, SLUG_PATTERN } from '../domain/rules.js';

/**
 * Reserved teams are kept out of RegisterRequest on purpose: registration (IdentityService.register)
 * answers a reserved team with its own problem code (`reserved_team`), distinct from a malformed slug.
 * The rules themselves live in domain/rules.ts.
 */
export {
  isReservedTeam, RESERVED_TEAMS, SEED_MAX, SEED_MIN, SEED_REJECT_REASON, SLUG_MAX, SLUG_PATTERN,
} from '../domain/rules.js';

const SLUG_MSG = `must be a slug: 1..${SLUG_MAX} of a-z, 0-9 and '-', not starting with '-'`;
const slug = (what: string) =>
  described(
    z
      .string({ error: (iss) => (iss.input === undefined ? 'is required' : SLUG_MSG) })
      .max(SLUG_MAX, { error: SLUG_MSG })
      .regex(SLUG_PATTERN, { error: SLUG_MSG }),
    what,
  );

export const RegisterRequest = named(
  'RegisterRequest',
  z.object({
    team: slug('Team slug. `anon` and `house` are reserved and refused with 400.'),
    name: slug('Bot name slug; a bot version belongs in its name.'),
  }),
  'Claims a durable (team, name) identity, first come first served.',
);

/** Names of existing bots; not re-checked as slugs (an odd name is simply an unknown bot, 404). */
const botRef = (what: string) => described(z.string().min(1).max(64), what);

export const CreateChallengeRequest = named(
  'CreateChallengeRequest',
  z.object({
    team: botRef('Team of the target bot.'),
    name: botRef('Name of the target bot.'),
    timeControl: TimeControl.optional(),
    color: described(ChallengeColor.optional(), 'The colour the challenger plays; `white` when not given.'),
  }),
  'Challenges one bot. Without `timeControl` the game is Unlimited; without `color` the challenger plays White.',
);

export const DeclineChallengeRequest = named(
  'DeclineChallengeRequest',
  z.object({ reason: described(DeclineReason.optional(), 'Why; the other side’s ChallengeDeclined carries it.') }),
  'An optional reason for a decline or a cancel; the body may be left out.',
);

export const SeekRequest = named(
  'SeekRequest',
  z.object({ timeControl: TimeControl.optional() }),
  'A standing public offer. Without `timeControl` the server offers Fischer 600+10.',
);

export const GuestSeekRequest = named(
  'GuestSeekRequest',
  z.object({ timeControl: TimeControl.optional() }),
  'A human guest offer in the lobby. Without `timeControl` the server offers Fischer 600+10.',
);

export const GuestHouseRequest = named(
  'GuestHouseRequest',
  z.object({ timeControl: TimeControl.optional() }),
  'A human guest’s game against a house bot. Without `timeControl` the game is Unlimited.',
);

export const GuestAcceptRequest = named(
  'GuestAcceptRequest',
  z.object({
    guestId: described(
      z.string().min(1).max(64).optional(),
      'An existing guest id to play as; omitted, a new guest is made.',
    ),
  }),
  'A human guest accepting a lobby seek.',
);

export const SeedRequest = named(
  'SeedRequest',
  z.object({
    seed: described(z.string().min(SEED_MIN).max(SEED_MAX), `Client dice seed, ${SEED_MIN} to ${SEED_MAX} characters.`),
  }),
  'One client seed per seat, before the opening roll. Malformed, duplicate or late seeds are ignored with 202.',
);

/**
 * The seed route answers 202 whatever the seed looks like, so the handler classifies rather than
 * rejects: a valid seed goes to the game, anything else may surface as a Rejected event.
 */
export type SeedClass = { ok: true; seed: string } | { ok: false; reason: string; detail: string };

export function classifySeed(body: unknown): SeedClass {
  const r: Parsed<{ seed: string }> = parseBody(SeedRequest, body);
  return r.ok ? { ok: true, seed: r.value.seed } : { ok: false, reason: SEED_REJECT_REASON, detail: r.detail };
}

// Three dice make at most three micro-moves, and a UCI micro-move is at most five characters;
// the bounds leave room for sloppy clients yet refuse a megabyte of "moves" at once.
export const MOVES_MAX = 16;
export const MOVE_CHARS_MAX = 8;

export const MoveRequest = named(
  'MoveRequest',
  z.object({
    moves: described(
      z.array(z.string().max(MOVE_CHARS_MAX)).max(MOVES_MAX),
      'One UCI micro-move per spent die: a root-to-leaf path of the legal-move tree; empty for a forced pass.',
    ),
    version: described(
      count().optional(),
      'Optional: the `v` of the DiceRolled these moves answer (or the game state\'s `version` while that roll is pending). ' +
        'With it, a retry of a turn already applied gets the same verdict again (200, same `version`; 409 if the moves differ), ' +
        'publishes nothing, and is never applied to a later roll.',
    ),
  }),
  'A turn. Also the answer a webhook gives to a yourTurn delivery.',
);

export const WebhookRequest = named(
  'WebhookRequest',
  z.object({
    url: described(
      z.url({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be an absolute URL') })
        .max(2048, { error: 'must be at most 2048 characters' }),
      'HTTPS URL resolving to a public address; the server verifies it with a handshake before storing it.',
    ),
  }),
  'Registers (or replaces) the caller’s webhook.',
);

/** The answer a webhook endpoint gives to the verification handshake. */
export const VerificationAnswer = named(
  'VerificationAnswer',
  z.object({ nonce: z.string().max(512) }),
  'Echo of the handshake nonce.',
);

export const AnonQuery = z.object({
  name: described(z.string().optional(), 'Display label; slugged, cut to 20 characters and given a random suffix.'),
});

export const SecretQuery = z.object({
  secret: described(
    z.string().min(1, { error: 'is required' }),
    'The capability secret returned when the seek was made.',
  ),
});

export const LobbySeeksQuery = z.object({
  limit: described(z.string().regex(/^[0-9]{1,7}$/, { error: 'must be a whole number' }).optional(), 'Seeks per page, 1 to 500; 100 when omitted.'),
  after: described(
    z.string().regex(/^[0-9]{1,15}$/, { error: 'must be a cursor from `next`' }).optional(),
    'The `next` of the previous page; the first page when omitted.',
  ),
});

export const CapacityRequest = named(
  'CapacityRequest',
  z.object({
    capacity: described(
      z.int().min(1).max(MAX_CAPACITY),
      `Ladder games the bot plays at once, 1 to ${MAX_CAPACITY} (${DEFAULT_CAPACITY} by default; a mirror pair counts 2).`,
    ),
  }),
  'Sets how many ladder games the server may seat the caller in at once.',
);

export const LeaderboardQuery = z.object({
  limit: described(z.string().regex(/^[0-9]{1,7}$/, { error: 'must be a whole number' }).optional(), `Rows per page, 1 to ${LEADERBOARD_MAX_LIMIT}; ${LEADERBOARD_DEFAULT_LIMIT} when omitted.`),
  offset: described(z.string().regex(/^[0-9]{1,9}$/, { error: 'must be a whole number' }).optional(), 'Rows to skip from the top; 0 when omitted.'),
  provisionalLimit: described(
    z.string().regex(/^[0-9]{1,7}$/, { error: 'must be a whole number' }).optional(),
    `Rows of the provisional list, 0 to ${LEADERBOARD_MAX_LIMIT} (0 leaves it empty); ${LEADERBOARD_DEFAULT_LIMIT} when omitted.`,
  ),
  provisionalOffset: described(
    z.string().regex(/^[0-9]{1,9}$/, { error: 'must be a whole number' }).optional(),
    'Rows of the provisional list to skip from its top; 0 when omitted.',
  ),
});
