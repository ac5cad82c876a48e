// Any limit from the environment: DICECHESS_LIMITS_<KEY> sets `limits.<key>`, the key's camelCase
// written in capitals with underscores (DICECHESS_LIMITS_REGISTRATIONS_PER_HOUR → limits.registrationsPerHour);
// a double underscore goes one level down (DICECHESS_LIMITS_LIVE_GAMES_PER_IDENTITY__REGISTERED →
// limits.liveGamesPerIdentity.registered). A name that matches no limit is an error, not ignored:
// a misspelt variable would otherwise leave the limit where it was without a word.
import type { Result } from './domain/result.js';

export const LIMITS_ENV_PREFIX = 'DICECHESS_LIMITS_';

const camel = (snake: string): string =>
  snake.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The config path each DICECHESS_LIMITS_* variable names, checked against the limits that exist. */
export function limitPathsFromEnv(
  env: Record<string, string | undefined>,
  limits: Record<string, unknown>,
): Result<[path: string, raw: string][], string> {
  const out: [string, string][] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(LIMITS_ENV_PREFIX) || raw === undefined || raw === '') continue;
    const keys = name.slice(LIMITS_ENV_PREFIX.length).split('__').map(camel);
    let at: unknown = limits;
    for (const k of keys) {
      at = at !== null && typeof at === 'object' && Object.hasOwn(at, k) ? (at as Record<string, unknown>)[k] : undefined;
    }
    if (at === undefined || (typeof at === 'object' && at !== null)) {
      return { ok: false, error: `${name}: no limit limits.${keys.join('.')} (see docs/OPERATIONS.md, "Limits against abuse")` };
    }
    out.push([`limits.${keys.join('.')}`, raw]);
  }
  return { ok: true, value: out };
}
