// Response bodies of games: a caller's games, the public game reads, history, legal moves and
// move verdicts. Re-exported by ../responses.ts with every other response body.
import { z } from 'zod';
import { described, named } from '../schema-registry.js';
import { ClientSeeds, Clocks, count, GameStatus, HistoryEntry, LadderKind, LegalMoveTree, Players, Seat, TimeControl } from '../common.js';

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
    timeControls: described(
      z.strictObject({ white: TimeControl, black: TimeControl }).optional(),
      'Present only on a game with time odds (an event player with its own control): each side’s time control, `timeControl` being White’s. Absent: both sides play `timeControl`.',
    ),
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
    timeControls: described(
      z.strictObject({ white: TimeControl, black: TimeControl }).optional(),
      'A game with time odds only: each side’s time control (`timeControl` is then White’s).',
    ),
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
