// Response bodies of the routes that make games: challenges, seeks and the public lobby.
// Re-exported by ../responses.ts with every other response body.
import { z } from 'zod';
import { described, named } from '../schema-registry.js';
import { ChallengeColor, Participant, Seat, TimeControl } from '../common.js';

export const Challenge = named(
  'Challenge',
  z.strictObject({
    id: z.string(),
    challenger: Participant,
    target: Participant,
    timeControl: TimeControl,
    color: ChallengeColor,
    targetOnline: described(z.boolean().optional(), 'Advisory: whether the target holds an account stream.'),
  }),
  'A pending challenge.',
);

export const ChallengeList = named(
  'ChallengeList',
  z.strictObject({
    in: described(z.array(Challenge), 'Challenges addressed to the caller.'),
    out: described(z.array(Challenge), 'The caller’s own challenges.'),
  }),
  'Pending challenges in both directions.',
);

export const GameCreated = named('GameCreated', z.strictObject({ gameId: z.string() }), 'The new game.');

export const SeekCreated = named(
  'SeekCreated',
  z.strictObject({
    seekId: z.string(),
    secret: described(z.string(), 'Capability secret to poll and cancel the seek.'),
  }),
  'An open seek.',
);

export const GuestSeekCreated = named(
  'GuestSeekCreated',
  z.strictObject({ seekId: z.string(), secret: z.string(), guestId: z.string() }),
  'An open guest seek.',
);

export const GuestAccepted = named(
  'GuestAccepted',
  z.strictObject({
    gameId: z.string(),
    seat: Seat,
    seatToken: described(z.string(), 'Bearer token for the game routes of this seat.'),
  }),
  'The guest’s seat in the new game.',
);

export const GuestHouseGame = named(
  'GuestHouseGame',
  z.strictObject({
    gameId: z.string(),
    seat: Seat,
    seatToken: described(z.string(), 'Bearer token for the game routes of this seat.'),
    guestId: described(z.string(), 'The guest id the seat was issued under.'),
  }),
  'A guest’s seat in a new game against a house bot.',
);

export const LobbySeek = named(
  'LobbySeek',
  z.strictObject({
    id: z.string(),
    timeControl: TimeControl,
    kind: z.enum(['Bot', 'Human']),
    name: described(z.string().nullable(), 'Team-qualified bot name; null for a human.'),
  }),
  'An open seek as the public lobby shows it.',
);

export const LobbySeekList = named(
  'LobbySeekList',
  z.strictObject({
    seeks: described(z.array(LobbySeek), 'Open seeks, oldest first (one page: 100 unless `limit` says otherwise).'),
    next: described(z.string().optional(), 'Present when more seeks follow: pass it as `after` for the next page.'),
  }),
  'The public lobby.',
);

export const SeekPoll = named(
  'SeekPoll',
  z.union([
    z.strictObject({ matched: z.literal(false), gameId: z.null(), seat: z.null() }),
    z.strictObject({
      matched: z.literal(true),
      gameId: z.string(),
      seat: Seat,
      seatToken: described(
        z.string().optional(),
        'Only for a matched guest seek: the Bearer token with which the guest who offered it plays its seat.',
      ),
    }),
  ]),
  'Seek status; each poll keeps an open seek alive.',
);
