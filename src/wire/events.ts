// Stream events (docs/API.md, "Streams") and webhook deliveries. Every stream line is a
// single-key object naming the event; the union schemas describe one line each.
import { z } from 'zod';
import { described, named } from './schema-registry.js';
import {
  ClientSeeds, Clocks, count, Dice, GameOver, HistoryEntry, LegalMoveTree, Participant, Seat, TimeControl, ChallengeColor, DeclineReason,
} from './common.js';
import { GameState } from './responses.js';

const v = () => described(count(), 'Game version after this event; orders the events of a game.');

// Account stream, GET /bot/stream/event.

export const ChallengeReceived = named(
  'ChallengeReceived',
  z.strictObject({
    ChallengeReceived: z.strictObject({
      id: z.string(),
      challenger: Participant,
      timeControl: TimeControl,
      color: ChallengeColor,
    }),
  }),
  'A challenge was made against the caller (or, first on connect, one still pending).',
);

export const ChallengeDeclined = named(
  'ChallengeDeclined',
  z.strictObject({
    ChallengeDeclined: z.strictObject({
      id: z.string(),
      reason: described(DeclineReason.optional(), 'Present when the decliner gave a reason; absent for a cancel without one, an expiry, or a game that could not be made.'),
    }),
  }),
  'A challenge was declined, cancelled or expired.',
);

/** The other player of a game, as the account stream names it. */
export const Opponent = named(
  'Opponent',
  z.strictObject({
    id: described(z.string().nullable(), 'A bot’s external id (`bot:team:<team>:<name>`); null for a human guest.'),
    kind: z.enum(['Bot', 'Human']),
    name: described(z.string().nullable(), 'Team and name joined by a space for a bot; null for a human.'),
  }),
  'The opponent in a game: its id and public face.',
);

export const GameStart = named(
  'GameStart',
  z.strictObject({
    GameStart: z.strictObject({
      gameId: z.string(),
      color: Seat,
      opponent: Opponent,
      timeControl: TimeControl,
      timeControls: described(
        z.strictObject({ white: TimeControl, black: TimeControl }).optional(),
        'Present only on a game with time odds: each side’s own time control.',
      ),
      rated: z.boolean(),
    }),
  }),
  'A game the caller is seated in started (ladder pairings included), or, first on connect, one still live.',
);

export const GameFinish = named(
  'GameFinish',
  z.strictObject({
    GameFinish: z.strictObject({ gameId: z.string(), color: Seat, opponent: Opponent, over: GameOver }),
  }),
  'A game the caller was seated in ended; `over` is the result and termination, as in the game stream’s GameEnded.',
);

export const LadderRemoved = named(
  'LadderRemoved',
  z.strictObject({ LadderRemoved: z.strictObject({ reason: z.string() }) }),
  'The server took the caller off the ladder (after 4 ladder games in a row lost on time); it may rejoin.',
);

export const EventInvitation = named(
  'EventInvitation',
  z.strictObject({
    EventInvitation: z.strictObject({
      eventId: z.string(),
      name: z.string(),
      format: z.string(),
      host: z.strictObject({ team: z.string(), name: z.string() }),
      rated: described(z.boolean(), 'Whether the event’s games move ratings (never those against house bots): accepting it accepts that.'),
      invitation: described(
        z.enum(['invited', 'accepted']),
        '`accepted`: the caller’s event-hosts setting names this host, so it takes part without answering; `invited`: it answers (always, in an event with time odds).',
      ),
      timeControl: TimeControl,
      timeOdds: described(
        z.boolean(),
        'Whether the players’ time controls differ (a handicap event; `timeControl` is then the caller’s own): no bot is entered by its event-hosts setting then.',
      ),
    }),
  }),
  'A host invites the caller to an event (match, gauntlet, round-robin, Swiss or SPRT); answer with POST /events/{id}/accept or /decline unless `invitation` is `accepted`.',
);

export const AccountEvent = named(
  'AccountEvent',
  z.union([ChallengeReceived, ChallengeDeclined, GameStart, GameFinish, LadderRemoved, EventInvitation]),
  'One line of the account stream. More kinds of line may be added: skip a line whose key you do not know.',
);

export const ACCOUNT_EVENTS = { ChallengeReceived, ChallengeDeclined, GameStart, GameFinish, LadderRemoved, EventInvitation } as const;

// Game stream, GET /bot/game/stream/{id}.

export const Snapshot = named(
  'Snapshot',
  z.strictObject({
    Snapshot: z.strictObject({
      v: v(),
      state: GameState,
      history: described(z.array(HistoryEntry), 'Every completed turn so far, consistent with `v`.'),
    }),
  }),
  'Sent first on connect.',
);

export const DiceRolled = named(
  'DiceRolled',
  z.strictObject({
    DiceRolled: z.strictObject({
      v: v(),
      seat: Seat,
      dice: Dice(),
      dfen: z.string(),
      clocks: described(Clocks.nullable(), 'Both banks at the instant of the roll.'),
      legalMoves: described(
        LegalMoveTree.nullable(),
        'Empty: forced pass (submit nothing). Null: too large, fetch GET /games/{id}/moves.',
      ),
    }),
  }),
  'A roll was made for the seat to move.',
);

export const TurnPlayed = named(
  'TurnPlayed',
  z.strictObject({
    TurnPlayed: z.strictObject({ v: v(), seat: Seat, moves: z.array(z.string()), fenAfter: z.string() }),
  }),
  'A turn was applied; `v` equals the version of the move verdict.',
);

export const GameEnded = named(
  'GameEnded',
  z.strictObject({
    GameEnded: z.strictObject({
      v: v(),
      over: GameOver,
      seed: described(
        z.string().nullable(),
        'Revealed server seed; null while a mirror-pair partner is still playing.',
      ),
      clientSeeds: ClientSeeds.nullable(),
    }),
  }),
  'The game ended; the reveal allows recomputing every roll.',
);

export const Rejected = named(
  'Rejected',
  z.strictObject({
    Rejected: z.strictObject({
      v: v(),
      seat: Seat,
      reason: described(
        z.string(),
        '`not your turn`, `illegal turn: <moves>`, `game is over`, `seed must be 16..256 characters`.',
      ),
    }),
  }),
  'A move or seed was refused.',
);

export const GameEvent = named(
  'GameEvent',
  z.union([Snapshot, DiceRolled, TurnPlayed, GameEnded, Rejected]),
  'One line of a game stream.',
);

export const GAME_EVENTS = { Snapshot, DiceRolled, TurnPlayed, GameEnded, Rejected } as const;

// Webhook deliveries (server to bot). The answers are request schemas: MoveRequest, VerificationAnswer.

export const WebhookVerification = named(
  'WebhookVerification',
  z.strictObject({ type: z.literal('verification'), nonce: z.string() }),
  'Handshake; answer 200 with `{nonce}`.',
);

export const WebhookYourTurn = named(
  'WebhookYourTurn',
  z.strictObject({ type: z.literal('yourTurn'), gameId: z.string(), seat: Seat, state: GameState }),
  'It is the bot’s turn; answer 200 with `{moves}`.',
);
