// Events for tournament hosts (matches, gauntlets, round-robins, Swiss, SPRT): what the store keeps
// of one event. Every encounter is played as mirror pairs; the pair list is the event's whole
// history, so standings and statistics are always recomputed from it (docs/STORAGE.md "Events").
import type { TimeControl } from './types.js';

export const EVENT_FORMATS = ['match', 'gauntlet', 'roundRobin', 'swiss', 'sprt'] as const;
export type EventFormat = (typeof EVENT_FORMATS)[number];

export type EventState = 'pending' | 'running' | 'finished' | 'cancelled';

/**
 * What the SPRT's Elo bounds mean: `logistic`, the usual Elo of the expected score; `normalized`,
 * normalised Elo, a t-value (μ − ½)/σ per game scaled by 800/ln 10, so a bound asks for the same
 * number of pairs whatever the draw rate (docs/API.md "Events").
 */
export const SPRT_MODELS = ['normalized', 'logistic'] as const;
export type SprtModel = (typeof SPRT_MODELS)[number];
/** The model of a new SPRT that names none. */
export const DEFAULT_SPRT_MODEL: SprtModel = 'normalized';

export interface SprtSettings {
  elo0: number;
  elo1: number;
  alpha: number;
  beta: number;
  /**
   * Absent in records written before the models existed: those SPRTs were logistic, and read so
   * (`sprtModelOf`).
   */
  model?: SprtModel;
}

/** The model of stored SPRT settings: an old record without one was logistic. */
export const sprtModelOf = (s: SprtSettings): SprtModel => s.model ?? 'logistic';

export interface EventPlayer {
  /** External id: bot:team:<team>:<name>. */
  id: string;
  team: string;
  name: string;
  /** true: plays; false: declined; null: invited, no answer yet. */
  accepted: boolean | null;
}

/** Scores of one game from the first player's side: 1 win, ½ draw, 0 loss. */
export type GameScore = 0 | 0.5 | 1;

export interface EventPairRecord {
  /** Position in the schedule; the pair's dice derive from it (docs/DECISIONS.md "Event dice"). */
  index: number;
  /** Swiss round (1-based); 0 for the other formats. */
  round: number;
  /** Player indexes: `a` plays White in the first game and Black in the second. */
  a: number;
  b: number;
  /** The two game ids once started: [a White, a Black]. */
  games: [string, string] | null;
  /** Results from `a`'s side, game by game, as each ends (null while that game runs). */
  scores: [GameScore | null, GameScore | null];
  /** Seats that lost on time, by player index (time-loss counters in the standings). */
  timeLosses: number[];
  /**
   * Moves refused by the server (not your turn, an illegal turn), one entry per refusal, by the
   * player index of the bot that sent it. Absent in records written before it was kept.
   */
  refusals?: number[];
  /** Order in which pairs finished (1, 2, …); 0 while unfinished. The SPRT reads pairs in this order. */
  finishedSeq: number;
}

export interface EventRecord {
  schema: number;
  id: string;
  name: string;
  format: EventFormat;
  /** The host's external id. */
  host: string;
  players: EventPlayer[];
  timeControl: TimeControl;
  pairsPerEncounter: number;
  /** Swiss rounds (0 for the other formats). */
  rounds: number;
  sprt: SprtSettings | null;
  /** Pairs at most (the SPRT stops here without a verdict). */
  maxPairs: number;
  concurrency: number;
  rated: boolean;
  state: EventState;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** Lowercase hex SHA-256 of the event seed, published at creation. */
  commit: string;
  /** The event seed (hex): secret until the event ends or is cancelled. */
  seed: string;
  /** Every pair scheduled so far, in index order. */
  pairs: EventPairRecord[];
  /** Encounters still to start, in order: [a, b, round]. */
  queue: [number, number, number][];
  /** Swiss byes: [round, player index]. */
  byes: [number, number][];
  /** The SPRT's verdict once reached, and after how many finished pairs. */
  verdict: 'H0' | 'H1' | null;
  verdictAfter: number | null;
  /** Why a Swiss ended before its rounds, if it did. */
  note: string | null;
}
