// Events for tournament hosts (matches, gauntlets, round-robins, Swiss, SPRT): what the store keeps
// of one event. Every encounter is played as mirror pairs; the pair list is the event's whole
// history, so the standings and statistics shown are recomputed from it. The store keeps the head
// (everything but the pairs and the queue) apart from each pair and from the queue's chunks, so a
// change writes only what changed (docs/STORAGE.md "Events").
import type { TimeControl } from './types.js';

export const TOURNAMENT_FORMATS = ['match', 'gauntlet', 'roundRobin', 'swiss', 'sprt'] as const;
export type TournamentFormat = (typeof TOURNAMENT_FORMATS)[number];

/**
 * `cancelling`: the host cancelled while pairs were running; no new pair starts, the running ones play
 * to the end and count, and the event becomes `cancelled` (its seed revealed) once none runs.
 * `paused`: the host paused a running event; no new pair starts until it resumes, the running ones
 * play on and count (control.ts).
 */
export const TOURNAMENT_STATES = ['pending', 'running', 'paused', 'cancelling', 'finished', 'cancelled'] as const;
export type TournamentState = (typeof TOURNAMENT_STATES)[number];

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

export interface TournamentPlayer {
  /** External id: bot:team:<team>:<name>. */
  id: string;
  team: string;
  name: string;
  /** true: plays; false: declined; null: invited, no answer yet. */
  accepted: boolean | null;
  /**
   * Withdrawn once the event ran (by the host or by itself): its pairs not yet started are not
   * played, those played count. Absent (false) for every other player and in older records.
   */
  withdrawn?: boolean;
  /**
   * Time odds: the player's own time control in every game it plays (docs/API.md "Events"). Absent
   * for a player on the event's control, and in records written before odds existed.
   */
  timeControl?: TimeControl;
}

/** A player who plays on: accepted and not withdrawn. */
export const playsOn = (p: TournamentPlayer): boolean => p.accepted === true && p.withdrawn !== true;

/**
 * Where an event's dice come from: `perPair`, every pair its own (by pair index); `perRound`, one
 * dice book per round, shared by every pair of the round (a Swiss round; a round-robin's or a
 * gauntlet's cycle over its encounters; a match and an SPRT have no rounds and play per pair).
 */
export const DICE_MODES = ['perPair', 'perRound'] as const;
export type DiceMode = (typeof DICE_MODES)[number];

/** The most pairs `summaryEvery` may ask for between two summary lines of an event's stream. */
export const SUMMARY_EVERY_MAX = 1000;

/** Hosts one bot may name in its event-hosts setting. */
export const EVENT_HOSTS_MAX = 50;

/**
 * A bot's own word on which hosts may enter it into events without asking (PUT
 * /bot/account/event-hosts). Kept on its bot record; absent means nobody may.
 */
export interface EventHostsSetting {
  /** External ids of the hosts. */
  hosts: string[];
  /** Whether their rated events are accepted too (unrated ones only when false). */
  rated: boolean;
}

export const NO_EVENT_HOSTS: EventHostsSetting = { hosts: [], rated: false };

/** Whether a bot's setting accepts this host's event for it, without an answer of its own. */
export function acceptsEventFrom(setting: EventHostsSetting | undefined, hostId: string, rated: boolean): boolean {
  if (!setting || !setting.hosts.includes(hostId)) return false;
  // A rated event moves ratings: a bot's standing trust in a host covers it only when it said so.
  return !rated || setting.rated;
}

/** bot:team:<team>:<name> to {team, name}. */
export function faceOfId(id: string): { team: string; name: string } {
  const [, , team = '', ...name] = id.split(':');
  return { team, name: name.join(':') };
}

/** The setting as the bot itself sees it: hosts by team and name. */
export function eventHostsView(s: EventHostsSetting = NO_EVENT_HOSTS): { hosts: { team: string; name: string }[]; rated: boolean } {
  return { hosts: s.hosts.map(faceOfId), rated: s.rated };
}

/** Scores of one game from the first player's side: 1 win, ½ draw, 0 loss. */
export type GameScore = 0 | 0.5 | 1;

export interface TournamentPairRecord {
  /** Position in the schedule; the pair's dice derive from it (docs/DECISIONS.md "Event dice"). */
  index: number;
  /**
   * Swiss round (1-based); with perRound dice also a round-robin's or gauntlet's cycle (1-based); 0
   * otherwise. A perRound pair's dice derive from it.
   */
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
   * Only in records stored by earlier versions: moves refused by the server, one entry per refusal,
   * by player index. Reading such a record moves them into the event's `refused` counts.
   */
  refusals?: number[];
  /** Order in which pairs finished (1, 2, …); 0 while unfinished. The SPRT reads pairs in this order. */
  finishedSeq: number;
  /**
   * The pair can never finish: a game of it was gone from the store when the scheduler came back
   * after a restart. Neither of its games counts. Absent (false) for every other pair.
   */
  void?: boolean;
  /**
   * A game of the attempt now being played was aborted by the server (its own failure, scored as a
   * draw by the game): once both games are over the attempt is voided, not counted. Absent otherwise.
   */
  aborted?: boolean;
  /**
   * Earlier attempts of this pair that the server voided (a game aborted), oldest first: their games
   * count nowhere; the pair is played again at the same index, so with the same dice. Absent when none.
   */
  replays?: { games: [string, string]; reason: string }[];
  /** Why a void pair is void, when the server made it so for a reason it can name. */
  voidReason?: string;
}

export interface TournamentRecord {
  schema: number;
  id: string;
  name: string;
  format: TournamentFormat;
  /** The host's external id. */
  host: string;
  players: TournamentPlayer[];
  timeControl: TimeControl;
  pairsPerEncounter: number;
  /** Swiss rounds (0 for the other formats). */
  rounds: number;
  sprt: SprtSettings | null;
  /** Pairs at most (the SPRT stops here without a verdict). */
  maxPairs: number;
  concurrency: number;
  rated: boolean;
  /** Absent in records written before the choice existed: those events played per pair. */
  dice?: DiceMode;
  state: TournamentState;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** Lowercase hex SHA-256 of the event seed, published at creation. */
  commit: string;
  /**
   * The event seed (hex): secret until the event is over (finished or cancelled) and none of its
   * games runs any more, since every pair's dice derive from it.
   */
  seed: string;
  /** Every pair scheduled so far, in index order. */
  pairs: TournamentPairRecord[];
  /** Encounters still to start, in order: [a, b, round]. */
  queue: [number, number, number][];
  /** Swiss byes: [round, player index]. */
  byes: [number, number][];
  /** The SPRT's verdict once reached, and after how many finished pairs. */
  verdict: 'H0' | 'H1' | null;
  verdictAfter: number | null;
  /** Why a Swiss ended before its rounds, or why a pending event was cancelled by the server, if so. */
  note: string | null;
  /**
   * The address the host created the event from (the per-address rate-limit key: an IPv6 client's
   * /64): all events made from one address share a bound on their live games. Never shown. Absent in
   * records written before it existed (those events count only against their host).
   */
  hostAddress?: string;
  /**
   * Moves the server refused (not your turn, an illegal turn) per player index, counted while the
   * event runs. Absent until the first one.
   */
  refused?: number[];
  /**
   * Swiss only: the players taking part in seed order, fixed when the event starts (by ladder
   * rating, highest first; services/tournaments/seeding.ts). Absent before the start and in records
   * written before seeding existed: those are seeded in entry order.
   */
  seeding?: TournamentSeed[];
  /**
   * A summary line goes on the event's stream after every this many finished pairs. Absent: none
   * (and in every record written before summaries existed).
   */
  summaryEvery?: number;
}

/** A player's place in a Swiss's seeding, with the rating it was seeded by. */
export interface TournamentSeed {
  player: number;
  rating: number;
}

/** What the store keeps of an event under its own key: everything but its pairs and its queue. */
export interface TournamentHead extends Omit<TournamentRecord, 'pairs' | 'queue'> {
  /** Pairs stored, one key each, by position in the pair list (0 … pairCount − 1). */
  pairCount: number;
  /** Pairs with both results (the lists show it without reading the pairs). */
  pairsFinished: number;
  /** Entries of the queue, stored in chunks counted from its end (src/store/tournament-parts.ts). */
  queueLength: number;
}

/** An event in the store's index of pending and running events. */
export interface TournamentListing {
  id: string;
  host: string;
  state: TournamentState;
  createdAt: number;
}

/** The dice mode of a stored event (older records: per pair). */
export const diceOf = (ev: { dice?: DiceMode }): DiceMode => ev.dice ?? 'perPair';

/** A pair whose two games both have a score. */
export const pairFinished = (p: TournamentPairRecord): boolean => p.scores[0] !== null && p.scores[1] !== null;

/** A pair still being played: not finished, and not void (a game of it lost in a restart). */
export const pairRunning = (p: TournamentPairRecord): boolean => !pairFinished(p) && p.void !== true;

/** An event whose pairs are looked after: running, paused, or cancelling while its pairs still play. */
export const inPlay = (state: TournamentState): boolean => state === 'running' || state === 'paused' || state === 'cancelling';
