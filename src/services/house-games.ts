// One-click games for human guests against a built-in house bot (the web page's "play house/random").
// The guest gets a fresh guest id and a seat token for that one game; the house bot plays the other
// seat inside the server. Unrated; colours are random.
import { ok } from '../domain/result.js';
import { botExternalId, type Seat, type SeatPlayer, type TimeControl } from '../domain/types.js';
import type { GameFactory } from '../game/types.js';
import { fail, type ServiceResult } from './errors.js';
import type { GameAdmission } from './game-admission.js';
import { NO_GUEST_HOLD, type GuestQuota } from './guest-quota.js';
import { guestSeat, type IdentityService } from './identity.js';
import { BUILT_IN_HOUSE_BOTS } from './static-bots.js';
import { coinFlip, newGuestId } from './tokens.js';

export interface GuestHouseGame {
  gameId: string;
  seat: Seat;
  seatToken: string;
  guestId: string;
}

export interface HouseGameDeps {
  identity: Pick<IdentityService, 'issueGuestSeatToken' | 'findBot'>;
  games: GameFactory;
  /** The server-wide live-games cap (the guest is new, so only that one can refuse). */
  admission?: Pick<GameAdmission, 'reserve'>;
  /** Guest games per address and guest clocks; without it (unit tests) neither is capped. */
  guestQuota?: Pick<GuestQuota, 'reserve' | 'checkClock'>;
}

const UNLIMITED: TimeControl = { Unlimited: {} };

export class HouseGameService {
  private readonly houseIds = new Set(BUILT_IN_HOUSE_BOTS.map((b) => botExternalId(b.team, b.name)));

  constructor(private readonly deps: HouseGameDeps) {}

  /** POST /lobby/house/{name}. */
  async start(name: string, timeControl: TimeControl | undefined, address?: string): Promise<ServiceResult<GuestHouseGame>> {
    const house: SeatPlayer | null = this.houseIds.has(botExternalId('house', name)) ? this.deps.identity.findBot('house', name) : null;
    if (!house) return fail('unknown_house_bot', `no built-in house bot named ${JSON.stringify(name)}`);
    const quota = this.deps.guestQuota;
    const clock = quota?.checkClock(timeControl);
    if (clock && !clock.ok) return clock;
    const mine = quota && address !== undefined ? quota.reserve(address) : ok(NO_GUEST_HOLD);
    if (!mine.ok) return mine;
    const guestId = newGuestId();
    const guest = guestSeat(guestId);
    const seat: Seat = coinFlip() === 0 ? 'White' : 'Black';
    const [white, black] = seat === 'White' ? [guest, house] : [house, guest];
    const held = this.deps.admission?.reserve([guest.id, house.id]);
    if (held && !held.ok) {
      mine.value.release();
      return held;
    }
    let game;
    try {
      game = await this.deps.games.create({ white, black, timeControl: timeControl ?? UNLIMITED, rated: false });
      mine.value.started(game.id);
    } finally {
      held?.value.release();
      mine.value.release(); // no-op once started
    }
    const seatToken = this.deps.identity.issueGuestSeatToken(guestId);
    return ok({ gameId: game.id, seat, seatToken, guestId });
  }
}
