// Who may start another game. Every way a game is made for players (challenges, the lobby, the house
// games, the ladder) asks here first, so the two caps hold whatever the route: a player sits in at most a few
// live games (by tier; more than it can play is abuse, not load), and the server holds at most
// `maxLiveGames`. House bots (built-in and operator static ones) are exempt: they accept everything,
// and each of their games is bounded by the opponent's own cap. An event game also counts against
// its host's cap, whoever plays it (two house bots included), so hosting is bounded like playing.
//
// Creating a game awaits a store write, so a check alone would let racing requests all pass. A
// `Hold` counts as a live game from the moment it is taken until the game exists (or the caller gives
// up), and the count only ever over-states for that short moment, never under-states.
import type { Principal } from '../domain/types.js';
import { ok } from '../domain/result.js';
import { fail, type ServiceError, type ServiceResult } from './errors.js';

export interface GameCaps {
  /** Live games per identity, by tier. */
  perIdentity: { anonymous: number; registered: number; guest: number };
  /** Live games on the whole server. */
  maxLiveGames: number;
  /** Retry-After of a refusal: when a game ends cannot be known, so this is a polite guess. */
  retryAfterSeconds: number;
}

export const DEFAULT_GAME_CAPS: GameCaps = {
  perIdentity: { anonymous: 16, registered: 32, guest: 2 },
  maxLiveGames: 50_000,
  retryAfterSeconds: 30,
};

/** What the guard reads of the live games (GameRegistry has both). */
export interface LiveGameCounts {
  liveCount(): number;
  liveCountFor(playerId: string): number;
}

export interface GameAdmissionDeps {
  live: LiveGameCounts;
  /** The tier of a seated player's external id ('static' for every house bot). */
  tierOf(playerId: string): Principal['tier'];
  /** Live games charged to an identity besides those it sits in (the events it hosts); 0 when absent. */
  hostedBy?(id: string): number;
}

/** A place held for one game about to be created; release it once the game exists or will not. */
export interface Hold {
  release(): void;
}

/** The hold of a game nothing caps (callers built without a guard). */
export const NO_HOLD: Hold = { release: () => {} };

/**
 * The holds each of `takes` gives, taken in order, or the first refusal with every hold taken before
 * it released: a start that needs several places (both games of a mirror pair, a guest's address
 * beside the game's place) holds all of them or none.
 */
export function holdAll<H extends Hold>(takes: readonly (() => ServiceResult<H>)[]): ServiceResult<H[]> {
  const holds: H[] = [];
  for (const take of takes) {
    const r = take();
    if (!r.ok) {
      for (const h of holds) h.release();
      return r;
    }
    holds.push(r.value);
  }
  return ok(holds);
}

export class GameAdmission {
  private readonly caps: GameCaps;
  /** Places held per player (exempt players are not tracked) and in all. */
  private readonly held = new Map<string, number>();
  private heldTotal = 0;

  constructor(
    private readonly deps: GameAdmissionDeps,
    caps: Partial<GameCaps> = {},
  ) {
    this.caps = { ...DEFAULT_GAME_CAPS, ...caps };
  }

  /**
   * Would a new game between these players be admitted now? Holds nothing. `host`: the event host
   * the game also counts against (it may sit in it or not).
   */
  check(playerIds: readonly string[], host?: string): ServiceResult<null> {
    const capped = this.cappedPlayers(host === undefined ? playerIds : [...playerIds, host]);
    for (const p of capped) {
      const limit = this.caps.perIdentity[p.tier];
      const hosted = this.deps.hostedBy?.(p.id) ?? 0;
      if (this.deps.live.liveCountFor(p.id) + hosted + (this.held.get(p.id) ?? 0) >= limit) return this.tooMany(p, limit, hosted > 0);
    }
    if (this.deps.live.liveCount() + this.heldTotal >= this.caps.maxLiveGames) return this.serverFull();
    return ok(null);
  }

  /** Places for `games` games between the same players (both of a mirror pair; an event's: `host` as in check): all, or none held. */
  reserveGames(playerIds: readonly string[], games: number, host?: string): ServiceResult<Hold[]> {
    return holdAll(Array.from({ length: games }, () => () => this.reserve(playerIds, host)));
  }

  /** check(), and if admitted, a place held for the game until released. */
  reserve(playerIds: readonly string[], host?: string): ServiceResult<Hold> {
    const verdict = this.check(playerIds, host);
    if (!verdict.ok) return verdict;
    const ids = this.cappedPlayers(host === undefined ? playerIds : [...playerIds, host]).map((p) => p.id);
    for (const id of ids) this.held.set(id, (this.held.get(id) ?? 0) + 1);
    this.heldTotal++;
    let released = false;
    return ok({
      release: () => {
        if (released) return;
        released = true;
        this.heldTotal--;
        for (const id of ids) {
          const n = (this.held.get(id) ?? 1) - 1;
          if (n > 0) this.held.set(id, n);
          else this.held.delete(id);
        }
      },
    });
  }

  /** Places held right now (tests, metrics). */
  heldCount(): number {
    return this.heldTotal;
  }

  /** The distinct players a cap applies to: house bots are exempt, one player seated twice counts once. */
  private cappedPlayers(playerIds: readonly string[]): { id: string; tier: 'anonymous' | 'registered' | 'guest' }[] {
    const out: { id: string; tier: 'anonymous' | 'registered' | 'guest' }[] = [];
    for (const id of new Set(playerIds)) {
      const tier = this.deps.tierOf(id);
      if (tier !== 'static') out.push({ id, tier });
    }
    return out;
  }

  private tooMany(p: { id: string; tier: string }, limit: number, hosting: boolean): { ok: false; error: ServiceError } {
    const who = p.tier === 'guest' ? 'the human guest' : p.id.replace(/^bot:team:([^:]*):/, 'bot $1/');
    const refused = fail('too_many_games', `${who} already ${hosting ? 'plays or hosts' : 'plays'} ${limit} live games, the most it may; finish one first`);
    refused.error.retryAfterSeconds = this.caps.retryAfterSeconds;
    return refused;
  }

  private serverFull(): { ok: false; error: ServiceError } {
    const refused = fail('server_full', `the server holds ${this.caps.maxLiveGames} live games, the most it may; retry later`);
    refused.error.retryAfterSeconds = this.caps.retryAfterSeconds;
    return refused;
  }
}
