// The configuration defaults that the API documents quote in route descriptions (config/default.json
// holds the defaults the server runs with; test/architecture/citations.test.ts keeps the two equal),
// and the page sizes of the leaderboard. One place, so a description never drifts from the server.
import { DEFAULT_CAPACITY, MAX_CAPACITY } from '../domain/ratings.js';

export { DEFAULT_CAPACITY, MAX_CAPACITY };

/** The `limits`, `challenges` and `lobby` defaults of config/default.json that descriptions name. */
export const DOCUMENTED_DEFAULTS = {
  anonMintsPerHour: 30,
  registrationsPerHour: 5,
  webhookRegistrationsPerHour: 5,
  liveGamesPerIdentity: { anonymous: 16, registered: 32, guest: 2 },
  maxLiveGames: 50_000,
  challengesPerHour: 600,
  streamsPerIdentity: 64,
  maxPendingPerChallenger: 10,
  maxOpenSeeksPerCaller: 3,
} as const;

/** Leaderboard rows per page when the caller names none (each list), and the most a caller may ask for. */
export const LEADERBOARD_DEFAULT_LIMIT = 50;
export const LEADERBOARD_MAX_LIMIT = 1000;

/** A number as the documents write it (thousands separated by commas). */
export const thousands = (n: number): string => n.toLocaleString('en-US');
