// The lines of an event's stream and of its export (docs/API.md "Events"): what followers and
// `verify-event` read. The requests and views they carry are in tournament-schemas.ts.
import { z } from 'zod';
import { described, named } from './schema-registry.js';
import { TimeControl } from './common.js';
import { EventView, Face, Score } from './tournament-schemas.js';

const Verdict = z.enum(['H0', 'H1']).nullable();

export const EventState = named(
  'EventState',
  z.strictObject({ EventState: EventView }),
  'First line of an event stream: the event as it stands (as GET /events/{id} shows it); sent again when the host cancels while pairs run (state `cancelling`), pauses or resumes it, or a player withdraws.',
);

export const PairStarted = named(
  'PairStarted',
  z.strictObject({
    PairStarted: z.strictObject({
      eventId: z.string(),
      index: described(z.int(), 'The pair index; its dice derive from the event seed and this index.'),
      round: described(z.int(), 'Swiss round (1-based); with `perRound` dice also a round-robin’s or gauntlet’s cycle; 0 otherwise.'),
      players: described(z.tuple([Face, Face]), 'The first player is White in the first game.'),
      games: z.tuple([z.string(), z.string()]),
    }),
  }),
  'A mirror pair of the event started: its two game ids.',
);

export const PairFinished = named(
  'PairFinished',
  z.strictObject({
    PairFinished: z.strictObject({
      eventId: z.string(),
      index: z.int(),
      round: z.int(),
      players: z.tuple([Face, Face]),
      games: z.tuple([z.string(), z.string()]).nullable(),
      scores: described(z.tuple([Score, Score]), 'The first player’s result in each game.'),
      score: described(z.number(), 'The first player’s pair score: 0, ¼, ½, ¾ or 1.'),
      standings: described(
        z.array(z.strictObject({ team: z.string(), name: z.string(), points: z.number(), games: z.int() })),
        'The standings after this pair, ranked.',
      ),
      llr: described(z.number().optional(), 'SPRT only: the LLR after this pair.'),
      verdict: described(Verdict.optional(), 'SPRT only: the verdict, once reached.'),
    }),
  }),
  'A mirror pair of the event finished: both results and the standings after it.',
);

export const PairVoided = named(
  'PairVoided',
  z.strictObject({
    PairVoided: z.strictObject({
      eventId: z.string(),
      index: z.int(),
      round: z.int(),
      players: z.tuple([Face, Face]),
      games: described(z.tuple([z.string(), z.string()]), 'The voided attempt’s games: they count nowhere.'),
      reason: z.string(),
      replayed: described(
        z.boolean(),
        'true: the pair is played again at the same index, with the same dice (a PairStarted with new game ids follows); false: it is void for good (replayed 3 times already, or the event starts no more pairs).',
      ),
    }),
  }),
  'An attempt of a pair was voided, not counted: the server aborted one of its games.',
);

export const EventSummary = named(
  'EventSummary',
  z.strictObject({
    EventSummary: z.strictObject({
      eventId: z.string(),
      pairsFinished: described(z.int(), 'Pairs finished so far: a multiple of the event’s `summaryEvery`.'),
      standings: described(
        z.array(z.strictObject({ team: z.string(), name: z.string(), points: z.number(), games: z.int() })),
        'The standings now, ranked.',
      ),
      ratings: described(
        z.array(z.strictObject({ team: z.string(), name: z.string(), elo: z.number(), low: z.number(), high: z.number() })).nullable(),
        'Round-robin, gauntlet, Swiss: the Bradley–Terry ratings now, as in the event’s `ratings`; null otherwise.',
      ),
      encounter: described(
        z.strictObject({
          players: z.tuple([Face, Face]),
          pairs: z.int(),
          score: z.number(),
          elo: z.number(),
          eloInterval: z.tuple([z.number(), z.number()]),
          los: z.number(),
        }).nullable(),
        'Match and SPRT: the encounter’s pair statistics now, from the first player’s side; null otherwise.',
      ),
      llr: described(z.number().nullable(), 'SPRT: the LLR now; null otherwise.'),
      bounds: described(z.tuple([z.number(), z.number()]).nullable(), 'SPRT: its two bounds; null otherwise.'),
    }),
  }),
  'Every `summaryEvery` finished pairs (when the event was created with it): where the event stands. Only followers connected at the time get it.',
);

export const EventEnded = named(
  'EventEnded',
  z.strictObject({
    EventEnded: z.strictObject({
      eventId: z.string(),
      state: z.enum(['finished', 'cancelled']),
      verdict: Verdict,
      seed: described(z.string(), 'The event seed (hex), revealed: every pair’s dice derive from it.'),
    }),
  }),
  'Last line of an event stream: the event is over; the stream closes after it.',
);

/** The lines of GET /events/{id}/stream, by name (the AsyncAPI document's event stream channel). */
export const EVENT_STREAM_LINES = { EventState, PairStarted, PairFinished, PairVoided, EventSummary, EventEnded } as const;

export const EventLine = named(
  'EventLine',
  z.union([EventState, PairStarted, PairFinished, PairVoided, EventSummary, EventEnded]),
  'One line of an event stream: the event as it stands first, then each pair started and finished (or voided; and a summary every `summaryEvery` pairs), then the end.',
);

export const EventGameLine = named(
  'EventGameLine',
  z.union([
    z.strictObject({ Event: EventView }),
    z.strictObject({
      Game: z.strictObject({
        pair: described(z.int(), 'The pair index; its dice derive from the event seed and this index.'),
        game: described(z.int(), '0: the pair’s first player is White; 1: Black.'),
        round: z.int(),
        gameId: z.string(),
        white: Face,
        black: Face,
        timeControl: TimeControl,
        timeControls: described(
          z.strictObject({ white: TimeControl, black: TimeControl }).optional(),
          'A game with time odds only: each side’s time control (`timeControl` is then White’s).',
        ),
        commit: z.string(),
        serverSeed: z.string(),
        clientSeeds: z.strictObject({ white: z.string(), black: z.string() }),
        history: z.array(z.strictObject({ seat: z.enum(['White', 'Black']), dice: z.array(z.int()), moves: z.array(z.string()), fenAfter: z.string() })),
        result: z.enum(['White', 'Black', 'Draw']),
        termination: z.string(),
      }),
    }),
  ]),
  'The export: the event first (as GET /events/{id} shows it), then one finished game a line, with everything needed to recompute its dice and result.',
);
