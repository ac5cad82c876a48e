// Response bodies (docs/API.md describes each, the lobby, history, health and
// problem shapes included). All strict: the documents promise exactly these fields.
import { z } from 'zod';
import { described, named } from './schema-registry.js';
import { DEFAULT_CAPACITY, MAX_CAPACITY } from './documented-defaults.js';
import {
  ClientSeeds, Clocks, count, GameStatus, HistoryEntry, LadderKind, LegalMoveTree, Participant, Players,
  PublicFace, Seat, Termination, TimeControl,
} from './common.js';

const dateTime = (what: string) => described(z.iso.datetime(), what);

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
  z.strictObject({ team: z.string(), name: z.string(), id: z.string() }),
  'The calling identity. Anonymous bots have team `anon` and a name with a generated suffix.',
);

export const LadderState = named(
  'LadderState',
  z.strictObject({ onLadder: z.boolean(), glickoRating: z.number(), glickoRd: z.number() }),
  'Ladder membership and Glicko-2 rating (a fresh bot: 1500 / 350).',
);

export const Challenge = named(
  'Challenge',
  z.strictObject({
    id: z.string(),
    challenger: Participant,
    target: Participant,
    timeControl: TimeControl,
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

export const MyGame = named(
  'MyGame',
  z.strictObject({
    gameId: z.string(),
    seat: Seat,
    activeSeat: Seat,
    dicePending: z.boolean(),
    timeControl: TimeControl,
    clocks: Clocks.nullable(),
    version: count(),
  }),
  'A live game the caller is seated in.',
);

export const MyGameList = named(
  'MyGameList',
  z.strictObject({ games: z.array(MyGame) }),
  'Every live game the caller is seated in.',
);

export const PublicGame = named(
  'PublicGame',
  z.strictObject({
    gameId: z.string(),
    players: Players,
    timeControl: TimeControl,
    activeSeat: Seat,
    dicePending: z.boolean(),
    clocks: Clocks.nullable(),
    version: count(),
    dfen: z.string(),
    rated: described(z.literal(true).optional(), 'Present (true) on a rated ladder game only; absent otherwise.'),
    ratings: described(
      z.strictObject({ white: z.number().nullable(), black: z.number().nullable() }).optional(),
      'On a rated game only: the current rating of each seat (null for a seat without one).',
    ),
  }),
  'A live game as spectators see it; no legal-move tree.',
);

export const PUBLIC_GAMES_MAX = 50;

export const PublicGameList = named(
  'PublicGameList',
  z.strictObject({
    games: described(z.array(PublicGame).max(PUBLIC_GAMES_MAX), 'Sorted by version descending, at most 50.'),
    total: described(count(), 'The real number of live games.'),
  }),
  'Live games.',
);

export const GameState = named(
  'GameState',
  z.strictObject({
    version: count(),
    dfen: described(z.string(), 'FEN; a 7th field holds the pending dice as piece letters while a roll is pending.'),
    activeSeat: Seat,
    dicePending: z.boolean(),
    status: GameStatus,
    timeControl: TimeControl,
    clocks: Clocks.nullable(),
    commit: described(z.string(), 'SHA-256 of the server seed, constant for the game.'),
    seed: described(
      z.string().nullable(),
      'Revealed server seed; null until the end, or while a mirror pair is pending.',
    ),
    clientSeeds: ClientSeeds.nullable(),
    legalMoves: described(
      LegalMoveTree.nullable(),
      'Present while a roll is pending; null when too large (fetch GET /games/{id}/moves).',
    ),
    players: Players,
    ladder: described(
      LadderKind.optional(),
      'Present on a ladder game only: `mirror` (one of a mirror pair) or `single` (one rated game); absent otherwise.',
    ),
  }),
  'Public snapshot of one game; also `state` of the Snapshot event and of webhook deliveries.',
);

export const LegalMovesResponse = named(
  'LegalMovesResponse',
  z.strictObject({ version: count(), dfen: z.string(), dicePending: z.boolean(), legalMoves: LegalMoveTree }),
  'The full legal-move tree of the pending roll, never capped; empty when no roll is pending or on a forced pass.',
);

export const GameHistory = named(
  'GameHistory',
  z.strictObject({
    gameId: z.string(),
    players: Players,
    timeControl: TimeControl,
    commit: z.string(),
    seed: z.string().nullable(),
    clientSeeds: ClientSeeds.nullable(),
    status: GameStatus,
    history: z.array(HistoryEntry),
  }),
  'The transcript of a live or finished game, with the dice reveal once it is public.',
);

export const MoveApplied = named(
  'MoveApplied',
  z.strictObject({
    applied: z.literal(true),
    version: described(count(), 'Version of the resulting TurnPlayed event.'),
    reason: z.null(),
  }),
  'The turn was applied (200).',
);

export const VERDICT_REASONS = ['not your turn', 'illegal turn', 'game is over'] as const;

export const MoveRefused = named(
  'MoveRefused',
  z.strictObject({ applied: z.literal(false), version: z.null(), reason: z.enum(VERDICT_REASONS) }),
  'The turn was refused (409).',
);

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

export const Capacity = named(
  'Capacity',
  z.strictObject({
    capacity: described(z.int().min(1).max(MAX_CAPACITY), `Ladder games the bot plays at once (${DEFAULT_CAPACITY} unless set).`),
    inGames: described(count(), 'Live ladder games the bot is in; a mirror pair counts 2.'),
  }),
  'Ladder capacity of the calling bot.',
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
  }),
  'Public profile of a registered bot.',
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

export const Health = named(
  'Health',
  z.strictObject({ status: z.literal('ok'), version: z.string() }),
  'Liveness.',
);

export const Problem = named(
  'Problem',
  z.strictObject({
    type: z.string(),
    title: z.string(),
    status: z.int().min(400).max(599),
    detail: described(z.string(), 'For humans.'),
    code: described(z.string().regex(/^[a-z][a-z0-9_]*$/), 'Stable snake_case machine code.'),
  }),
  'RFC 9457 problem details; every error other than a move verdict.',
);

export const Empty = named('Empty', z.strictObject({}), 'An empty object.');

export const JsonDocument = named(
  'JsonDocument',
  z.record(z.string(), z.unknown()),
  'A JSON document (the machine-readable contract itself).',
);
