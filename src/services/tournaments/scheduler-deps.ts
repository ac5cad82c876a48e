// What the tournament scheduler (scheduler.ts) is built from: the services it calls and its limits.
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { GameDirectory, MirrorPairFactory } from '../../game/types.js';
import type { GameAdmission } from '../game-admission.js';
import type { TournamentFollowers } from './followers.js';

export interface TournamentSchedulerDeps {
  followers: TournamentFollowers;
  games: MirrorPairFactory & GameDirectory;
  admission?: GameAdmission;
  clock: Clock;
  log: Logger;
  /** Seats a bot offers events at once (a pair takes two); Infinity for the built-in house bots. */
  seatsOf: (botId: string) => number;
  /** Whether a bot is a house bot, one the server plays itself (none is when absent): a rated event's games against one are played unrated. */
  isHouse?: (botId: string) => boolean;
}

export interface TournamentSchedulerConfig {
  /** How often every running event is looked at even when nothing happened. */
  tickMs: number;
  /** Pairs in flight at once over all of one host's events. */
  pairsInFlightPerHost: number;
  /** Pairs between two house bots in flight at once over one host's events (no own limit when absent). */
  houseOnlyPairsPerHost?: number;
  /** Live games of all the events created from one address (several hosts may share one) at most (no limit when absent). */
  gamesPerAddress?: number;
  /** Live games of all events at most, so that the rest of the server's places stay for players (no limit when absent). */
  maxEventGames?: number;
  /** A pending event not started this long after its creation is cancelled (expiry.ts). */
  pendingTtlMs: number;
}
