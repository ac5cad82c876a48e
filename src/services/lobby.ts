// The lobby: public seeks by bots (POST /bot/seeks) and by human guests (POST /lobby/seeks), kept
// alive by polling with the seek's secret, claimed by the first accepter. Memory only and bounded:
// a few open seeks per bot, hard caps per kind, and closed seeks remembered for a while (so a late
// poll still learns its game and a late cancel gets 409 rather than 404), then forgotten.
//
// Only hashes of seek secrets and seat tokens are kept.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { TimerHandle } from '../domain/clock.js';
import { ok } from '../domain/result.js';
import type { Principal, Seat, SeatPlayer, TimeControl } from '../domain/types.js';
import { fail, rateLimited, type ServiceError, type ServiceResult } from './errors.js';
import { NO_HOLD, holdAll, type Hold } from './game-admission.js';
import { guestSeat, seatPlayerOf } from './identity.js';
import { coinFlip, deriveSeatToken, newGuestId, newId, newSecret } from './tokens.js';
import {
  DEFAULT_LOBBY_CONFIG, type GuestAccepted, type GuestSeekCreated, type LobbyConfig, type LobbyDeps, type LobbySeek,
  type PollAnswer, type SeekCreated,
} from './lobby-types.js';

export type { GuestAccepted, GuestSeekCreated, LobbyCall, LobbyConfig, LobbyDeps, LobbySeek, PollAnswer, SeekCreated } from './lobby-types.js';
export { DEFAULT_LOBBY_CONFIG, LOBBY_CALLS } from './lobby-types.js';

type SeekState = 'open' | 'claiming' | 'matched' | 'cancelled' | 'expired' | 'failed';

interface Seek {
  id: string;
  secretHash: Buffer;
  kind: 'Bot' | 'Human';
  owner: SeatPlayer;
  timeControl: TimeControl;
  ttlMs: number;
  expiresAt: number;
  state: SeekState;
  timer: TimerHandle | null;
  closedAt: number;
  gameId: string | null;
  /** The owner's seat once matched. */
  seat: Seat | null;
  /** A guest seek's client address (its game counts against it); null for bots. */
  address: string | null;
  /** Creation number (the list's page cursor). */
  order: number;
}

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
const unknownSeek = (detail?: string): { ok: false; error: ServiceError } => fail('unknown_seek', detail);
/** A place held for a game about to be made; a guest address's place stays the game's once `started`. */
type GameHold = Hold & { started?(gameId: string): void };

/** Addresses share the open-seek index with owner ids under this prefix (no id starts with it). */
const ADDRESS_KEY = 'address:';

export class LobbyService {
  private readonly config: LobbyConfig;
  /** Open seeks in creation order (the public list is oldest first). */
  private readonly open = new Map<string, Seek>();
  private readonly openByOwner = new Map<string, Set<string>>();
  private openBots = 0;
  private openGuests = 0;
  /** Closed seeks in closing order, forgotten matchedPollableMs after closing. */
  private readonly closed = new Map<string, Seek>();
  private made = 0;

  constructor(
    private readonly deps: LobbyDeps,
    config: Partial<LobbyConfig> = {},
  ) {
    this.config = { ...DEFAULT_LOBBY_CONFIG, ...config };
  }

  /** POST /bot/seeks. */
  createBotSeek(p: Principal, timeControl?: TimeControl): ServiceResult<SeekCreated> {
    if (p.tier === 'guest') return fail('bots_only');
    const mine = this.openByOwner.get(p.id);
    if (mine && mine.size >= this.config.maxOpenSeeksPerCaller) {
      return rateLimited(
        'too_many_seeks',
        `at most ${this.config.maxOpenSeeksPerCaller} open seeks per bot`,
        this.soonestExpiry([...mine].map((id) => this.open.get(id) as Seek)),
      );
    }
    if (this.openBots >= this.config.maxBotSeeks) return this.lobbyFull('Bot');
    // A seek whose owner is at its live-game cap could only be refused to whoever accepts it.
    const admitted = this.deps.admission?.check([p.id]);
    if (admitted && !admitted.ok) return admitted;
    const { seek, secret } = this.add('Bot', seatPlayerOf(p), timeControl, this.config.botSeekTtlMs);
    return ok({ seekId: seek.id, secret });
  }

  /** POST /lobby/seeks: a human guest's offer, under a fresh guest id. */
  createGuestSeek(timeControl?: TimeControl, address?: string): ServiceResult<GuestSeekCreated> {
    const clock = this.deps.guestQuota?.checkClock(timeControl);
    if (clock && !clock.ok) return clock;
    const key = address === undefined ? null : ADDRESS_KEY + address;
    const mine = key === null ? undefined : this.openByOwner.get(key);
    if (mine && mine.size >= this.config.maxOpenGuestSeeksPerAddress) {
      return rateLimited(
        'too_many_seeks',
        `at most ${this.config.maxOpenGuestSeeksPerAddress} open guest seeks per address`,
        this.soonestExpiry([...mine].map((id) => this.open.get(id) as Seek)),
      );
    }
    if (this.openGuests >= this.config.maxGuestSeeks) return this.lobbyFull('Human');
    const guestId = newGuestId();
    const { seek, secret } = this.add('Human', guestSeat(guestId), timeControl, this.config.guestSeekTtlMs, address ?? null);
    return ok({ seekId: seek.id, secret, guestId });
  }

  /**
   * GET /lobby/seeks: open seeks, oldest first, at most `limit` of them, starting after the cursor
   * `after` (a `next` from an earlier page: seeks are numbered as they are made, so a seek that closed
   * in between shifts nothing). `next` is null on the last page.
   */
  list(limit = Infinity, after = 0): { seeks: LobbySeek[]; next: string | null } {
    const now = this.deps.clock.now();
    const seeks: LobbySeek[] = [];
    let last = 0;
    for (const s of this.open.values()) {
      if (s.expiresAt <= now || s.order <= after) continue;
      if (seeks.length >= limit) return { seeks, next: String(last) };
      seeks.push({ id: s.id, timeControl: s.timeControl, kind: s.kind, name: s.owner.face.name });
      last = s.order;
    }
    return { seeks, next: null };
  }

  /** GET /lobby/seeks/{id}?secret=: while open, each poll keeps the seek alive for another TTL. */
  poll(id: string, secret: string): ServiceResult<PollAnswer> {
    const s = this.withSecret(id, secret);
    if (!s) return unknownSeek();
    const now = this.deps.clock.now();
    switch (s.state) {
      case 'open':
        s.expiresAt = now + s.ttlMs;
        return ok({ matched: false, gameId: null, seat: null });
      case 'claiming': // claimed, game being created: the next poll will see it
        return ok({ matched: false, gameId: null, seat: null });
      case 'matched': {
        const answer: PollAnswer = { matched: true, gameId: s.gameId as string, seat: s.seat as Seat };
        if ('Guest' in s.owner.participant) {
          const seatToken = deriveSeatToken(secret);
          this.deps.identity.addGuestSeatToken(seatToken, s.owner.participant.Guest.id);
          answer.seatToken = seatToken;
        }
        return ok(answer);
      }
      default:
        return unknownSeek(`this seek is ${s.state === 'failed' ? 'gone (its game could not be created)' : s.state}`);
    }
  }

  /** DELETE /lobby/seeks/{id}?secret=. */
  cancel(id: string, secret: string): ServiceResult<null> {
    const s = this.withSecret(id, secret);
    if (!s) return unknownSeek();
    if (s.state !== 'open') return fail('seek_not_open', `this seek is no longer open (${s.state})`);
    this.close(s, 'cancelled');
    return ok(null);
  }

  /** POST /bot/seeks/{id}/accept. */
  async acceptAsBot(p: Principal, id: string): Promise<ServiceResult<{ gameId: string }>> {
    if (p.tier === 'guest') return fail('bots_only');
    const me = seatPlayerOf(p);
    const claimed = this.claim(id, p.id, me, null);
    if (!claimed.ok) return claimed;
    const { gameId } = await this.startGame(claimed.value.seek, me, claimed.value.holds);
    return ok({ gameId });
  }

  /**
   * POST /lobby/seeks/{id}/accept. `guestId` (with or without the `guest:` prefix) only serves to
   * refuse a guest's own seek: the accepter is always seated under a FRESH guest id. A guest id is
   * not a secret (it can surface as a fallback client seed), so seating a caller under an id it
   * merely names would let its seat token act in that guest's other games; with one game per guest
   * id, a seat token reaches exactly one seat.
   */
  async acceptAsGuest(guestId: string | null | undefined, id: string, address?: string): Promise<ServiceResult<GuestAccepted>> {
    const named = guestId ? `guest:${guestId.replace(/^guest:/, '')}` : null;
    const freshId = newGuestId();
    const claimed = this.claim(id, named, guestSeat(freshId), address ?? null);
    if (!claimed.ok) return claimed;
    const { gameId, ownerSeat } = await this.startGame(claimed.value.seek, guestSeat(freshId), claimed.value.holds);
    const seatToken = this.deps.identity.issueGuestSeatToken(freshId);
    return ok({ gameId, seat: ownerSeat === 'White' ? 'Black' : 'White', seatToken });
  }

  /** Open seeks (metrics). */
  openCount(): number {
    return this.open.size;
  }

  private add(kind: 'Bot' | 'Human', owner: SeatPlayer, timeControl: TimeControl | undefined, ttlMs: number, address: string | null = null) {
    const now = this.deps.clock.now();
    const secret = newSecret();
    const seek: Seek = {
      id: newId(),
      secretHash: sha256(secret),
      kind,
      owner,
      timeControl: timeControl ?? this.config.defaultTimeControl,
      ttlMs,
      expiresAt: now + ttlMs,
      state: 'open',
      timer: null,
      closedAt: 0,
      gameId: null,
      seat: null,
      address,
      order: ++this.made,
    };
    this.open.set(seek.id, seek);
    for (const key of this.ownerKeys(seek)) {
      let mine = this.openByOwner.get(key);
      if (!mine) this.openByOwner.set(key, (mine = new Set()));
      mine.add(seek.id);
    }
    if (kind === 'Bot') this.openBots++;
    else this.openGuests++;
    this.arm(seek, ttlMs);
    return { seek, secret };
  }

  /**
   * One timer per open seek. A poll only moves `expiresAt`; when the timer fires early it re-arms
   * for the remainder, so polling never churns timers.
   */
  private arm(s: Seek, ms: number): void {
    s.timer = this.deps.clock.schedule(ms, () => {
      s.timer = null;
      if (s.state !== 'open') return;
      const left = s.expiresAt - this.deps.clock.now();
      if (left > 0) this.arm(s, left);
      else this.close(s, 'expired');
    });
  }

  /** Finds a seek the caller proves to own; closed seeks past their retention count as unknown. */
  private withSecret(id: string, secret: string): Seek | undefined {
    const s = this.find(id);
    if (!s) return undefined;
    return timingSafeEqual(sha256(secret), s.secretHash) ? s : undefined;
  }

  private find(id: string): Seek | undefined {
    const now = this.deps.clock.now();
    this.forgetOld(now);
    const s = this.open.get(id) ?? this.closed.get(id);
    if (s && s.state === 'open' && s.expiresAt <= now) this.close(s, 'expired'); // timer not run yet
    return s;
  }

  /**
   * The synchronous check-and-claim: between finding the seek open and marking it claimed there is
   * no await, so of two racing accepts exactly one wins. The game's place is held in the same step;
   * a seek refused for a cap stays open.
   */
  private claim(id: string, claimantId: string | null, seated: SeatPlayer, guestAddress: string | null): ServiceResult<{ seek: Seek; holds: GameHold[] }> {
    const s = this.find(id);
    if (!s) return fail('unknown_seek', 'no such open seek');
    const taken = s.state === 'claiming' || s.state === 'matched';
    if (s.state !== 'open' && !taken) return fail('unknown_seek', `no such open seek (it is ${s.state})`);
    if (claimantId !== null && s.owner.id === claimantId) {
      return fail('own_seek');
    }
    if (taken) return fail('seek_taken');
    // The accepting guest's address and a guest owner's address each hold a place for the game.
    const { guestQuota: quota, admission } = this.deps;
    const addresses = [s.address, guestAddress].filter((a): a is string => a !== null);
    const held = holdAll<GameHold>([
      ...(quota ? addresses.map((address) => () => quota.reserve(address)) : []),
      () => (admission ? admission.reserve([s.owner.id, seated.id]) : ok(NO_HOLD)),
    ]);
    if (!held.ok) return held;
    this.close(s, 'claiming');
    return ok({ seek: s, holds: held.value });
  }

  private async startGame(s: Seek, claimant: SeatPlayer, holds: GameHold[]): Promise<{ gameId: string; ownerSeat: Seat }> {
    const ownerSeat: Seat = coinFlip() === 0 ? 'White' : 'Black';
    const [white, black] = ownerSeat === 'White' ? [s.owner, claimant] : [claimant, s.owner];
    try {
      const game = await this.deps.games.create({ white, black, timeControl: s.timeControl, rated: false });
      for (const h of holds) h.started?.(game.id);
      s.gameId = game.id;
      s.seat = ownerSeat;
      this.close(s, 'matched'); // restarts the retention window: pollable for `matchedPollableMs` from the match
      return { gameId: game.id, ownerSeat };
    } catch (e) {
      // A failure here is a bug or an overloaded server; the owner's poll then answers 404.
      this.close(s, 'failed');
      throw e;
    } finally {
      for (const h of holds) h.release();
    }
  }

  /** The open-seek index keys of a seek: its owner, and a guest seek's address too. */
  private ownerKeys(s: Seek): string[] {
    return s.address === null ? [s.owner.id] : [s.owner.id, ADDRESS_KEY + s.address];
  }

  /** Moves a seek out of the open indexes (if it was open) into the closed map with a new state. */
  private close(s: Seek, state: SeekState): void {
    if (s.state === 'open') {
      this.open.delete(s.id);
      for (const key of this.ownerKeys(s)) {
        const mine = this.openByOwner.get(key);
        mine?.delete(s.id);
        if (mine && mine.size === 0) this.openByOwner.delete(key);
      }
      if (s.kind === 'Bot') this.openBots--;
      else this.openGuests--;
      s.timer?.cancel();
      s.timer = null;
    }
    s.state = state;
    s.closedAt = this.deps.clock.now();
    this.closed.delete(s.id); // re-insert so the map stays in closing order
    while (this.closed.size >= this.config.maxClosedSeeks) {
      const oldest = this.closed.keys().next();
      if (oldest.done) break;
      this.closed.delete(oldest.value);
    }
    this.closed.set(s.id, s);
  }

  private forgetOld(now: number): void {
    for (const [id, s] of this.closed) {
      if (s.closedAt + this.config.matchedPollableMs > now) break;
      this.closed.delete(id);
    }
  }

  /** Milliseconds until the first of these seeks expires (1 s when there are none). */
  private soonestExpiry(seeks: Iterable<Seek>): number {
    let soonest = Infinity;
    for (const s of seeks) soonest = Math.min(soonest, s.expiresAt);
    return soonest === Infinity ? 1000 : soonest - this.deps.clock.now();
  }

  private lobbyFull(kind: 'Bot' | 'Human'): { ok: false; error: ServiceError } {
    const seeks = [...this.open.values()].filter((s) => s.kind === kind);
    return rateLimited('lobby_full', 'the lobby holds too many open seeks of this kind; retry later', this.soonestExpiry(seeks));
  }
}
