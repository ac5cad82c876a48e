// Static house bots: the built-ins driven inside the server, and the operator's own, configured as
// `DICECHESS_HOUSE_BOTS=team|name|token,...`. Bad configuration is reported as a value with a
// message the operator can act on (the composition root refuses to start with it).
import type { Result } from '../domain/result.js';
import { botExternalId } from '../domain/types.js';
import { isSlug } from '../domain/rules.js';

export interface StaticBotConfig {
  team: 'house';
  name: string;
  /** Bearer token of an externally driven house bot; null for a built-in (it never authenticates). */
  token: string | null;
}

/** The built-in movers: they accept every challenge, so a new bot author always has an opponent. */
export const BUILT_IN_HOUSE_BOTS: readonly StaticBotConfig[] = [
  { team: 'house', name: 'random', token: null },
  { team: 'house', name: 'greedy', token: null },
];

export const builtInHouseBotIds = (): Set<string> =>
  new Set(BUILT_IN_HOUSE_BOTS.map((b) => botExternalId(b.team, b.name)));

export { isSlug } from '../domain/rules.js';

export const MIN_STATIC_TOKEN_LENGTH = 16;

/**
 * Parses `team|name|token,...`. Empty input means no operator bots. Messages name the entry by its
 * position and never echo a token.
 */
export function parseHouseBotsEnv(value: string | undefined): Result<StaticBotConfig[], string> {
  const bots: StaticBotConfig[] = [];
  const problems: string[] = [];
  const names = new Set(BUILT_IN_HOUSE_BOTS.map((b) => b.name));
  const tokens = new Set<string>();
  const entries = (value ?? '').split(',').map((e) => e.trim());
  entries.forEach((entry, i) => {
    if (entry === '') return; // tolerate "a,b," and an empty variable
    const where = `DICECHESS_HOUSE_BOTS entry ${i + 1}`;
    const parts = entry.split('|').map((p) => p.trim());
    if (parts.length !== 3) {
      problems.push(`${where}: expected team|name|token (3 fields separated by '|'), got ${parts.length} field(s)`);
      return;
    }
    const [team, name, token] = parts as [string, string, string];
    if (team !== 'house') {
      problems.push(`${where}: team must be "house" (static bots own that team), got "${team}"`);
      return;
    }
    if (!isSlug(name)) {
      problems.push(`${where}: name "${name}" must match ^[a-z0-9][a-z0-9-]*$ and be at most 32 characters`);
      return;
    }
    if (names.has(name)) {
      const builtIn = BUILT_IN_HOUSE_BOTS.some((b) => b.name === name);
      problems.push(`${where}: house/${name} is ${builtIn ? 'a built-in house bot' : 'configured twice'}`);
      return;
    }
    if (token.length < MIN_STATIC_TOKEN_LENGTH) {
      problems.push(`${where}: the token of house/${name} must be at least ${MIN_STATIC_TOKEN_LENGTH} characters`);
      return;
    }
    if (!/^[\x21-\x7e]+$/.test(token)) {
      problems.push(`${where}: the token of house/${name} must be printable ASCII without spaces (it travels in a Bearer header)`);
      return;
    }
    if (tokens.has(token)) {
      problems.push(`${where}: house/${name} reuses the token of another house bot`);
      return;
    }
    names.add(name);
    tokens.add(token);
    bots.push({ team: 'house', name, token });
  });
  return problems.length > 0 ? { ok: false, error: problems.join('; ') } : { ok: true, value: bots };
}
