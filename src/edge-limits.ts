// The rate limiters and open-count caps the edge applies, one per configured limit (the limits are
// described in docs/OPERATIONS.md, "Limits against abuse").
import type { Clock } from './domain/clock.js';
import type { EdgeLimits } from './edge/deps.js';
import { OpenCounts } from './edge/open-counts.js';
import { RateLimiter } from './edge/rate-limit.js';
import type { Config } from './server-config.js';

const HOUR = 3_600_000;

export function edgeLimits(config: Config, clock: Clock): EdgeLimits {
  const maxKeys = config.limits.rateLimitMaxKeys;
  const perHour = (limit: number) => new RateLimiter({ limit, windowMs: HOUR, maxKeys, clock });
  return {
    anonMints: perHour(config.limits.anonMintsPerHour),
    registrations: perHour(config.limits.registrationsPerHour),
    registrationsExemptLoopback: config.limits.registrationsExemptLoopback,
    guests: perHour(config.limits.guestLobbyPerHour),
    webhookRegistrations: perHour(config.limits.webhookRegistrationsPerHour),
    challenges: perHour(config.limits.challengesPerHour),
    streams: new OpenCounts(config.limits.streamsPerIdentity),
    lobbyPolls: new RateLimiter({ limit: config.limits.lobbyPollsPerMinute, windowMs: 60_000, maxKeys, clock }),
    ladderChanges: perHour(config.limits.ladderChangesPerHour),
    eventCreatesPerHost: perHour(config.events.createsPerHostPerHour),
    eventCreatesPerAddress: perHour(config.events.createsPerAddressPerHour),
  };
}
