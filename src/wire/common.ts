// Shapes that appear in requests, responses and events alike (docs/API.md and the served /openapi.json).
// Response-side objects are strict: the server sends exactly these fields, and a strict schema lets
// the conformance checker catch a leaked field (a raw id, a token hash) instead of waving it through.
import { z } from 'zod';
import { described, named } from './schema-registry.js';
import { DECLINE_REASONS, type LegalMoveTree as LegalMoveTreeType } from '../domain/types.js';

/** An integer in [min, max]; every failure (wrong type, fraction, range) says the same short thing. */
export function intIn(min: number, max: number): z.ZodInt {
  const msg = `must be an integer ${min}..${max}`;
  return z
    .int({ error: (iss) => (iss.input === undefined ? 'is required' : msg) })
    .min(min, { error: msg })
    .max(max, { error: msg });
}

/** A non-negative integer (counts, versions, milliseconds). */
export const count = (): z.ZodInt => z.int().min(0);

/** An ISO 8601 date-time string (a fresh schema each call, so each field has its own description). */
export const dateTime = (what: string) => described(z.iso.datetime(), what);

export const Seat = named('Seat', z.enum(['White', 'Black']), 'A side of the board.');

// Time-control seconds are integers; initial 1..86400, increment 0..600, per-move 1..86400.
export const TIME_LIMITS = {
  initialSeconds: { min: 1, max: 86_400 },
  incrementSeconds: { min: 0, max: 600 },
  secondsPerMove: { min: 1, max: 86_400 },
} as const;

const initialSeconds = () => intIn(TIME_LIMITS.initialSeconds.min, TIME_LIMITS.initialSeconds.max);

/**
 * Single-key wrapper. The wrapper is strict (exactly one known key: two keys would be ambiguous and
 * an unknown key is a time control we do not offer); the payloads ignore unknown fields like every
 * other request object. `Unlimited` accepts any object and yields `{}`.
 */
export const TimeControl = named(
  'TimeControl',
  z.union(
    [
      z.strictObject({ Unlimited: z.object({}) }),
      z.strictObject({ SuddenDeath: z.object({ initialSeconds: initialSeconds() }) }),
      z.strictObject({
        Fischer: z.object({
          initialSeconds: initialSeconds(),
          incrementSeconds: intIn(TIME_LIMITS.incrementSeconds.min, TIME_LIMITS.incrementSeconds.max),
        }),
      }),
      z.strictObject({
        PerMove: z.object({
          secondsPerMove: intIn(TIME_LIMITS.secondsPerMove.min, TIME_LIMITS.secondsPerMove.max),
        }),
      }),
    ],
    { error: 'must be a single-key object: Unlimited, SuddenDeath, Fischer or PerMove' },
  ),
  'Time control, a single-key object. Seconds are integers: initial 1..86400, increment 0..600, per move 1..86400.',
);

export const Clocks = named(
  'Clocks',
  z.strictObject({ white: count(), black: count() }),
  'Remaining milliseconds per side as of the carrying message; null on Unlimited games.',
);

export const Participant = named(
  'Participant',
  z.union([
    z.strictObject({ Guest: z.strictObject({ id: z.string() }) }),
    z.strictObject({ User: z.strictObject({ id: z.string() }) }),
    z.strictObject({ Bot: z.strictObject({ team: z.string(), name: z.string() }) }),
  ]),
  'Raw identity of a challenge party, a single-key object naming the kind.',
);

export const PublicFace = named(
  'PublicFace',
  z.strictObject({
    kind: z.enum(['Bot', 'Human']),
    name: described(z.string().nullable(), 'Team and name joined by a space for a bot; null for a human.'),
  }),
  'Spectator-safe view of a player: never a raw id.',
);

export const Players = named(
  'Players',
  z.strictObject({ white: PublicFace, black: PublicFace }),
  'The public faces of both seats.',
);

export const LadderKind = named(
  'LadderKind',
  z.enum(['mirror', 'single']),
  'Which kind of ladder game: one of a mirror pair (both colours, the same dice) or a single rated game.',
);

export const Termination = named(
  'Termination',
  z.enum(['KingCaptured', 'Resign', 'Draw', 'Aborted', 'Timeout']),
  'Why a game ended.',
);

export const GameResult = named(
  'GameResult',
  z.union([
    z.strictObject({ Win: z.strictObject({ side: Seat }) }),
    z.strictObject({ Draw: z.strictObject({}) }),
  ]),
  'Outcome of an ended game.',
);

export const GameOver = named(
  'GameOver',
  z.strictObject({ result: GameResult, termination: Termination }),
  'Result and termination of an ended game.',
);

export const GameStatus = named(
  'GameStatus',
  z.union([
    z.strictObject({ Active: z.strictObject({}) }),
    z.strictObject({ Ended: z.strictObject({ over: GameOver }) }),
  ]),
  'Single-key status. `Ended` carries `over` so a polling bot can read the result.',
);

/** Typed by the domain's tree type: a recursive schema cannot infer its own type. */
export const LegalMoveTree: z.ZodType<LegalMoveTreeType> = named(
  'LegalMoveTree',
  z.lazy(() => z.record(z.string(), LegalMoveTree)),
  'Prefix tree of UCI micro-moves. Each key is a micro-move, its value the legal continuations; ' +
    'a leaf {} ends a complete legal turn; an empty top-level tree is a forced pass.',
);

/** Dice faces: 1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king. */
export const Dice = (): z.ZodArray<z.ZodInt> => z.array(z.int().min(1).max(6));

export const HistoryEntry = named(
  'HistoryEntry',
  z.strictObject({
    seat: Seat,
    dice: Dice(),
    moves: described(z.array(z.string()), 'UCI micro-moves; empty for a forced pass.'),
    fenAfter: z.string(),
  }),
  'One completed turn.',
);

export const ClientSeeds = named(
  'ClientSeeds',
  z.strictObject({ white: z.string(), black: z.string() }),
  'The two revealed client seeds; a seat that never seeded shows its external id.',
);

/** The colour a challenger asks to play (requests.ts takes it; the challenge and its event show it). */
export const ChallengeColor = named(
  'ChallengeColor',
  z.enum(['white', 'black', 'random']),
  'The colour the challenger plays: `white` (the default), `black`, or `random` (drawn when the challenge is accepted).',
);

export const DeclineReason = named(
  'DeclineReason',
  z.enum(DECLINE_REASONS),
  'Why a challenge was declined, as the decliner said: `generic`, `later` (not now), `tooFast` / `tooSlow` / `timeControl` (the clock), `busy`.',
);
