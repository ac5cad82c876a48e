// Live games of human guests, counted per client address. Every guest game gets a fresh guest id, so
// the per-identity cap never bites: without this count one address could start guest games (house
// games, guest seeks) until the server cap, shutting everyone else out. A place is held from the
// moment a game is about to be made; it becomes the game's once the game exists, and comes back when
// the game ends (or at once when the game is not made). Memory only: after a restart, resumed guest
// games no longer count against their address.
import { ok } from '../domain/result.js';
import type { TimeControl } from '../domain/types.js';
import { fail, rateLimited, type ServiceResult } from './errors.js';

export interface GuestLimits {
  /** Live guest games one address may hold. */
  gamesPerAddress: number;
  /** The longest clocks a guest may ask for. */
  maxInitialSeconds: number;
  maxIncrementSeconds: number;
  maxSecondsPerMove: number;
}

export const DEFAULT_GUEST_LIMITS: GuestLimits = {
  gamesPerAddress: 4,
  maxInitialSeconds: 3600,
  maxIncrementSeconds: 60,
  maxSecondsPerMove: 600,
};

/** A place held for one guest game: `started` once the game exists, else `release`. */
export interface GuestHold {
  started(gameId: string): void;
  release(): void;
}

export const NO_GUEST_HOLD: GuestHold = { started: () => {}, release: () => {} };

/** When a refused address may try again: when a game ends cannot be known, so a polite guess. */
const RETRY_MS = 30_000;

export class GuestQuota {
  private readonly limits: GuestLimits;
  /** Live and held guest games per address. */
  private readonly perAddress = new Map<string, number>();
  /** The address each live guest game counts against. */
  private readonly addressOf = new Map<string, string>();

  constructor(
    limits: Partial<GuestLimits> = {},
    /** Told of every guest game made (the abandoned-game watch). */
    private readonly onStarted: (gameId: string) => void = () => {},
  ) {
    this.limits = { ...DEFAULT_GUEST_LIMITS, ...limits };
  }

  /** Holds a place for a guest game from this address, or refuses (429 too_many_games). */
  reserve(address: string): ServiceResult<GuestHold> {
    const mine = this.perAddress.get(address) ?? 0;
    if (mine >= this.limits.gamesPerAddress) {
      const detail = `this address already plays ${this.limits.gamesPerAddress} live guest games; finish one first`;
      return rateLimited('too_many_games', detail, RETRY_MS);
    }
    this.perAddress.set(address, mine + 1);
    let settled = false;
    return ok({
      started: (gameId) => {
        if (settled) return;
        settled = true;
        this.addressOf.set(gameId, address);
        this.onStarted(gameId);
      },
      release: () => {
        if (settled) return;
        settled = true;
        this.drop(address);
      },
    });
  }

  /** A game ended: its place comes back to its address (no-op for games that are not guests'). */
  gameEnded(gameId: string): void {
    const address = this.addressOf.get(gameId);
    if (address === undefined) return;
    this.addressOf.delete(gameId);
    this.drop(address);
  }

  /** Live and held guest games of one address (tests, metrics). */
  countFor(address: string): number {
    return this.perAddress.get(address) ?? 0;
  }

  /** Null when a guest may play with this clock, else the 400 that says why not. */
  checkClock(tc: TimeControl | undefined): ServiceResult<null> {
    const l = this.limits;
    if (tc === undefined || 'Unlimited' in tc) return ok(null);
    const initial = 'SuddenDeath' in tc ? tc.SuddenDeath.initialSeconds : 'Fischer' in tc ? tc.Fischer.initialSeconds : 0;
    const increment = 'Fischer' in tc ? tc.Fischer.incrementSeconds : 0;
    const perMove = 'PerMove' in tc ? tc.PerMove.secondsPerMove : 0;
    if (initial > l.maxInitialSeconds || increment > l.maxIncrementSeconds || perMove > l.maxSecondsPerMove) {
      const detail = `a guest's clock is at most ${l.maxInitialSeconds} s initial, ${l.maxIncrementSeconds} s increment, ${l.maxSecondsPerMove} s per move`;
      return fail('clock_too_long', detail);
    }
    return ok(null);
  }

  private drop(address: string): void {
    const left = (this.perAddress.get(address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(address, left);
    else this.perAddress.delete(address);
  }
}
