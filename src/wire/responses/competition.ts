// Response bodies of ranked play: the leaderboard and a bot's public profile.
// Re-exported by ../responses.ts with every other response body.
import { z } from 'zod';
import { described, named } from '../schema-registry.js';
import { count, dateTime, LadderKind, PublicFace, Seat, Termination } from '../common.js';

export const LeaderboardRow = named(
  'LeaderboardRow',
  z.strictObject({
    rank: z.int().min(1),
    team: z.string(),
    name: z.string(),
    rating: z.number(),
    rd: z.number(),
    onLadder: z.boolean(),
    games: count(),
    wins: count(),
    draws: count(),
    losses: count(),
  }),
  'One ranked bot; wins, draws and losses count rated decided games only.',
);

export const Leaderboard = named(
  'Leaderboard',
  z.strictObject({
    leaders: described(z.array(LeaderboardRow).max(1000), 'One page, best first (50 rows unless `limit` says otherwise).'),
    total: described(count(), 'How many bots are listed in all.'),
    provisional: described(
      z.array(LeaderboardRow).max(1000),
      'Bots on the ladder whose deviation is still above 110, in the same order; one page (50 rows unless `provisionalLimit` says otherwise), `rank` counting within this list.',
    ),
    provisionalTotal: described(count(), 'How many provisional bots there are in all.'),
  }),
  'Registered bots with deviation at most 110, best first; the provisional ones on the ladder apart.',
);

export const ProfileGame = named(
  'ProfileGame',
  z.strictObject({
    gameId: z.string(),
    seat: Seat,
    opponent: PublicFace,
    result: described(z.enum(['win', 'draw', 'loss']), 'From the profiled bot’s point of view.'),
    rated: z.boolean(),
    ladder: described(
      LadderKind.optional(),
      'Present on a ladder game only: `mirror` (one of a mirror pair) or `single` (one rated game); absent otherwise.',
    ),
    termination: Termination,
    finishedAt: dateTime('ISO 8601 date-time (UTC).'),
  }),
  'A recently finished game of a profiled bot.',
);

export const PROFILE_RECENT_MAX = 20;

export const RatingPoint = named(
  'RatingPoint',
  z.strictObject({
    at: dateTime('When the batch ran (ISO 8601, UTC).'),
    rating: z.number(),
    rd: z.number(),
  }),
  'A bot’s rating right after a rating batch.',
);


export const BotProfile = named(
  'BotProfile',
  z.strictObject({
    team: z.string(),
    name: z.string(),
    rating: z.number(),
    rd: z.number(),
    provisional: described(z.boolean(), 'True while the deviation is above 110.'),
    onLadder: z.boolean(),
    games: count(),
    wins: count(),
    draws: count(),
    losses: count(),
    recent: described(z.array(ProfileGame).max(PROFILE_RECENT_MAX), 'Up to 20, newest first.'),
    ratingHistory: described(z.array(RatingPoint).max(500), 'The rating after each rating batch the bot took part in, oldest first (the last 500).'),
    offLadderReason: described(z.string().nullable(), 'Why the server took the bot off the ladder; null when it did not.'),
    ladder: described(
      z.strictObject({ pairs: count(), singles: count() }),
      'Ladder games the server started for the bot, by kind: mirror pairs (each two games) and single games.',
    ),
  }),
  'Public profile of a registered bot.',
);
