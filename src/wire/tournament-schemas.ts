// Requests, responses and stream lines of the events routes (docs/API.md "Events").
import { z } from 'zod';
import { described, named } from './schema-registry.js';
import { TimeControl } from './common.js';
import { DEFAULT_SPRT_MODEL, DICE_MODES, EVENT_HOSTS_MAX, SPRT_MODELS, SUMMARY_EVERY_MAX, TOURNAMENT_FORMATS, TOURNAMENT_STATES } from '../domain/tournaments.js';

const botRef = (what: string) => described(z.string().min(1).max(64), what);
export const Face = z.strictObject({ team: z.string(), name: z.string() });
const whole = (min: number, max: number) => z.int().min(min).max(max);

const SPRT_MODEL_TEXT =
  'What elo0 and elo1 mean: `normalized`, normalised Elo (the per-game t-value (μ − ½)/σ times 800/ln 10, so a test of given bounds takes about as many pairs whatever the draw rate); `logistic`, the usual Elo of the expected score.';

const DICE_TEXT =
  'Where the dice come from: `perPair`, every pair its own; `perRound`, every pair of a round the same (a Swiss round, a round-robin’s or gauntlet’s cycle over its encounters; a match and an SPRT play per pair either way).';

export const SprtRequest = z.object({
  elo0: described(z.number().min(-1000).max(1000), 'Elo difference of H0, in the units of `model`.'),
  elo1: described(z.number().min(-1000).max(1000), 'Elo difference of H1; above elo0.'),
  alpha: described(z.number().gt(0).lt(0.5), 'Chance of accepting H1 when H0 holds.'),
  beta: described(z.number().gt(0).lt(0.5), 'Chance of accepting H0 when H1 holds.'),
  model: described(z.enum(SPRT_MODELS).default(DEFAULT_SPRT_MODEL), `${SPRT_MODEL_TEXT} Default \`${DEFAULT_SPRT_MODEL}\`.`),
});

export const CreateEventRequest = named(
  'CreateEventRequest',
  z.object({
    name: described(z.string().min(1).max(80), 'What the event is called.'),
    format: z.enum(TOURNAMENT_FORMATS),
    players: described(
      z.array(
        z.object({
          team: botRef('Team of a player.'),
          name: botRef('Name of a player.'),
          timeControl: described(
            TimeControl.optional(),
            'Time odds: this player’s own time control in all its games, in place of the event’s (same bounds). Not in a rated event; not Unlimited against a timed control.',
          ),
        }),
      ).min(1).max(256),
      'Registered or house bots; a match and an SPRT take two, a gauntlet’s first player meets every other.',
    ),
    timeControl: TimeControl,
    pairsPerEncounter: described(whole(1, 1000).optional(), 'Mirror pairs each encounter plays (default 1).'),
    rounds: described(whole(1, 256).optional(), 'Swiss only: rounds to play.'),
    sprt: SprtRequest.optional(),
    maxPairs: described(whole(1, 1_000_000).optional(), 'Pairs at most (an SPRT stops here without a verdict).'),
    concurrency: described(whole(1, 1000).optional(), 'Pairs in flight at once (default 1).'),
    summaryEvery: described(
      whole(1, SUMMARY_EVERY_MAX).optional(),
      'An EventSummary line on the event stream after every this many finished pairs (default: none).',
    ),
    rated: described(
      z.boolean().optional(),
      'Whether the games move ratings (default false); every invited bot is told, and games against house bots never do.',
    ),
    dice: described(z.enum(DICE_MODES).optional(), `${DICE_TEXT} Default \`perPair\`.`),
  }),
  'A new event, hosted by the caller.',
);

export const EventHostsRequest = named(
  'EventHostsRequest',
  z.object({
    hosts: described(
      z.array(z.object({ team: botRef('Team of a host.'), name: botRef('Name of a host.') })).max(EVENT_HOSTS_MAX),
      `Registered bots whose event invitations the caller accepts without answering; at most ${EVENT_HOSTS_MAX}, each once. An empty list: every invitation waits for an answer.`,
    ),
    rated: described(z.boolean().optional(), 'Whether their rated events are accepted too (default false: rated invitations wait for an answer).'),
  }),
  'Replaces the caller’s event hosts: who may enter it into events without asking.',
);

export const EventHosts = named(
  'EventHosts',
  z.strictObject({
    hosts: z.array(Face),
    rated: described(z.boolean(), 'Whether their rated events are accepted too.'),
  }),
  'The hosts whose event invitations the bot accepts without answering. Shown only to the bot itself.',
);

const Standing = z.strictObject({
  team: z.string(),
  name: z.string(),
  points: z.number(),
  games: z.int(),
  wins: z.int(),
  draws: z.int(),
  losses: z.int(),
  pairs: z.int(),
  byes: z.int(),
  timeLosses: described(z.int(), 'Games this player lost on time.'),
  refusedMoves: described(z.int(), 'Moves of this player the server refused in event games (not your turn, illegal turn).'),
  buchholz: described(
    z.number().nullable(),
    'Swiss only (null otherwise): the sum of the opponents’ points, one term per encounter; a bye counts a virtual opponent (docs/API.md “Events”).',
  ),
  sonnebornBerger: described(
    z.number().nullable(),
    'Swiss only (null otherwise): the sum over encounters of the share of its points the player scored times that opponent’s points.',
  ),
  withdrawn: described(z.boolean(), 'Withdrawn while the event ran: its pairs played count, the rest are not played.'),
});

const Encounter = z.strictObject({
  players: described(z.tuple([Face, Face]), 'The statistics are from the first player’s side.'),
  pairs: z.int(),
  pentanomial: described(z.array(z.int()).length(5), 'Pairs scoring [LL, LD, WL+DD, WD, WW] for the first player.'),
  score: described(z.number(), 'Mean pair score μ.'),
  elo: z.number(),
  eloInterval: described(z.tuple([z.number(), z.number()]), 'The 95% interval of the Elo difference.'),
  los: described(z.number(), 'Likelihood of superiority.'),
  drawRatio: z.number(),
  luck: described(
    z.strictObject({ correlation: z.number(), varianceSaved: z.number() }),
    'Correlation of the two games’ results within pairs, and the share of variance pairing removes.',
  ),
  llr: described(z.number().optional(), 'SPRT only: the exact generalised log-likelihood ratio of H1 against H0.'),
  bounds: z.tuple([z.number(), z.number()]).optional(),
  verdict: z.enum(['H0', 'H1']).nullable().optional(),
  eloBiased: described(
    z.boolean().optional(),
    'SPRT only: true once the test stopped at a bound. A test that stops when its evidence is strongest overstates the difference it found: the `elo`, `eloInterval` and `los` are then biased (away from the hypothesis it rejected) and are not a fair estimate.',
  ),
  biasNote: described(z.string().optional(), 'SPRT only, once it stopped at a bound: the same warning in words, for a reader of the event who does not know `eloBiased`.'),
});

const Ratings = z.array(
  z.strictObject({
    team: z.string(),
    name: z.string(),
    elo: described(z.number(), 'Elo (400·log10 scale) from every game of the finished pairs, a draw half a win; the mean of the players listed is 0.'),
    low: described(z.number(), 'Lower end of the 95% interval of `elo` (from the observed information).'),
    high: described(z.number(), 'Upper end of the 95% interval of `elo`.'),
    games: z.int(),
  }),
);

export const Score = z.union([z.literal(0), z.literal(0.5), z.literal(1)]).nullable();

const State = described(
  z.enum(TOURNAMENT_STATES),
  '`paused`: paused by its host; no new pair starts until it resumes, the running ones play on and count. ' +
    '`cancelling`: cancelled by its host while pairs ran; no new pair starts, the running ones play to the end and count, then it is `cancelled`.',
);

export const EventView = named(
  'EventView',
  z.strictObject({
    eventId: z.string(),
    name: z.string(),
    format: z.enum(TOURNAMENT_FORMATS),
    state: State,
    host: Face,
    players: z.array(
      z.strictObject({
        team: z.string(),
        name: z.string(),
        invitation: z.enum(['accepted', 'declined', 'invited']),
        withdrawn: described(z.boolean(), 'Withdrawn (by the host or by itself) while the event ran.'),
        seed: described(z.int().nullable(), 'Swiss: the player’s place in the seeding fixed at the start (1 the first), by ladder rating; null otherwise.'),
        seedRating: described(z.number().nullable(), 'Swiss: the rating the player was seeded by; null otherwise.'),
        timeControl: described(
          TimeControl.optional(),
          'Time odds: the player’s own time control, in all its games; absent for a player on the event’s `timeControl`.',
        ),
      }),
    ),
    timeControl: TimeControl,
    pairsPerEncounter: z.int(),
    rounds: z.int(),
    sprt: z
      .strictObject({
        elo0: z.number(),
        elo1: z.number(),
        alpha: z.number(),
        beta: z.number(),
        model: described(z.enum(SPRT_MODELS), `${SPRT_MODEL_TEXT} SPRTs created before the choice existed are \`logistic\`.`),
        method: described(z.literal('glr'), 'The statistic: `glr`, the exact generalised log-likelihood ratio on pentanomial pair scores. Exports made before it was named lack it.'),
        llrBounds: described(z.tuple([z.number(), z.number()]), 'The LLR bounds [ln(β/(1−α)), ln((1−β)/α)]: H0 at or below the first, H1 at or above the second.'),
      })
      .nullable(),
    maxPairs: z.int(),
    concurrency: z.int(),
    summaryEvery: described(z.int().nullable(), 'Pairs between two EventSummary lines on the stream; null: none.'),
    rated: z.boolean(),
    dice: described(z.enum(DICE_MODES), DICE_TEXT),
    commit: described(z.string(), 'SHA-256 (hex) of the event seed, from which every pair’s dice derive.'),
    seed: described(z.string().nullable(), 'The event seed (hex), once the event is over and none of its games runs.'),
    pairsRunning: described(z.int(), 'Pairs whose games are still being played.'),
    createdAt: z.number(),
    startedAt: z.number().nullable(),
    finishedAt: z.number().nullable(),
    verdict: z.enum(['H0', 'H1']).nullable(),
    verdictAfter: z.int().nullable(),
    note: z.string().nullable(),
    standings: z.array(Standing),
    encounters: z.array(Encounter),
    ratings: described(
      Ratings.nullable(),
      'Round-robin, gauntlet and Swiss: Bradley–Terry ratings of the players who played, best first; null for a match or an SPRT and before a pair finished.',
    ),
    llrHistory: described(z.array(z.number()), 'SPRT: the LLR after each finished pair.'),
    pairs: z.array(
      z.strictObject({
        index: z.int(),
        round: z.int(),
        players: z.tuple([Face, Face]),
        games: described(z.tuple([z.string(), z.string()]).nullable(), 'The first player is White in the first game.'),
        scores: z.tuple([Score, Score]),
        void: described(z.boolean(), 'The pair can never finish (its game was lost from the store in a restart): neither game counts.'),
        finishedSeq: described(z.int(), 'When the server counted the pair (1, 2, … in finishing order; 0 while unfinished or void): the SPRT reads pairs in this order.'),
        replays: described(
          z.array(z.strictObject({ games: z.tuple([z.string(), z.string()]), reason: z.string() })).optional(),
          'Earlier attempts the server voided (a game aborted by the server), oldest first: they count nowhere; the pair was played again at the same index, with the same dice. Absent when none.',
        ),
        voidReason: described(z.string().optional(), 'Why the server made the pair void, when it did so for a reason it names (aborted more often than it replays a pair).'),
      }),
    ),
    byes: z.array(z.strictObject({ round: z.int(), team: z.string(), name: z.string() })),
  }),
  'An event: its settings, standings, statistics and pairs.',
);

const Summary = {
  eventId: z.string(),
  name: z.string(),
  format: z.enum(TOURNAMENT_FORMATS),
  state: State,
  host: Face,
  players: z.int(),
  pairsFinished: z.int(),
  createdAt: z.number(),
  verdict: z.enum(['H0', 'H1']).nullable(),
  rated: described(z.boolean(), 'Whether its games move ratings (never those against house bots).'),
};

export const EventList = named(
  'EventList',
  z.strictObject({ events: z.array(z.strictObject(Summary)) }),
  'The newest events (100 at most), newest first.',
);

export const MyEventList = named(
  'MyEventList',
  z.strictObject({
    events: z.array(z.strictObject({
      ...Summary,
      hosting: described(z.boolean(), 'Whether the caller hosts it.'),
      invitation: z.enum(['accepted', 'declined', 'invited']),
    })),
  }),
  'Events the caller hosts or plays in (100 at most), newest first; `invitation` is its own answer.',
);
