// Bot-to-bot challenges: pending for `challenges.ttlMs`, then accepted (a game, the challenger on the colour it
// asked for, White by default), declined or
// cancelled by either side, or expired. Pending challenges live in memory only, indexed by id and by
// both parties; each challenger holds at most a handful and the whole table has a hard cap.
import type { Clock, TimerHandle } from '../domain/clock.js';
import { ok } from '../domain/result.js';
import { botExternalId, type ChallengeColor, type DeclineReason, type Participant, type Principal, type SeatPlayer, type TimeControl } from '../domain/types.js';
import type { GameFactory, GameHandle } from '../game/types.js';
import type { AccountHub } from './account-hub.js';
import { fail, rateLimited, type ServiceResult } from './errors.js';
import { NO_HOLD, type GameAdmission, type Hold } from './game-admission.js';
import { seatPlayerOf, type IdentityService } from './identity.js';
import { newId } from './tokens.js';

export interface ChallengeConfig {
  ttlMs: number;
  maxPendingPerChallenger: number;
  /** Built-in house bots: they accept every challenge on their own, right after it is made. */
  houseBotIds: ReadonlySet<string>;
  /** Bound on all pending challenges together (memory stays bounded whatever the number of bots). */
  maxPendingTotal: number;
}

export const DEFAULT_CHALLENGE_CONFIG: ChallengeConfig = {
  ttlMs: 5 * 60 * 1000,
  maxPendingPerChallenger: 10,
  houseBotIds: new Set(),
  maxPendingTotal: 100_000,
};

/** The methods the edge calls; in a cluster they may run on another node (services/remote.ts). */
export const CHALLENGE_CALLS = ['create', 'list', 'accept', 'decline'] as const;
export type ChallengeCall = (typeof CHALLENGE_CALLS)[number];

export interface CreateChallengeRequest {
  team: string;
  name: string;
  timeControl?: TimeControl;
  /** The challenger's colour; White when not given (as before a colour could be asked for). */
  color?: ChallengeColor;
}

/** The Challenge resource (docs/API.md, "Challenges (bot to bot)"). */
export interface ChallengeView {
  id: string;
  challenger: Participant;
  target: Participant;
  timeControl: TimeControl;
  /** The colour the challenger asked for. */
  color: ChallengeColor;
  targetOnline: boolean;
}

export interface ChallengeList {
  in: ChallengeView[];
  out: ChallengeView[];
}

export interface ChallengeDeps {
  identity: Pick<IdentityService, 'findBot'>;
  hub: Pick<AccountHub, 'publish' | 'isOnline'>;
  games: GameFactory;
  clock: Clock;
  /** Told about failures nobody awaits (a house bot's auto-accept whose game could not be made). */
  onInternalError?: (error: unknown) => void;
  /** The live-game caps; without it (unit tests of other rules) games are not capped. */
  admission?: Pick<GameAdmission, 'check' | 'reserve'>;
  /** Draws the challenger's colour for `random` (default Math.random). */
  random?: () => number;
}

interface Pending {
  id: string;
  challenger: SeatPlayer;
  target: SeatPlayer;
  timeControl: TimeControl;
  color: ChallengeColor;
  expiresAt: number;
  timer: TimerHandle;
  /** The game's place, held from creation when a built-in house bot will accept at once. */
  hold: Hold | null;
}

export class ChallengeService {
  private readonly config: ChallengeConfig;
  /** Insertion order is creation order, which with one TTL is also expiry order. */
  private readonly byId = new Map<string, Pending>();
  private readonly byChallenger = new Map<string, Set<string>>();
  private readonly byTarget = new Map<string, Set<string>>();

  constructor(
    private readonly deps: ChallengeDeps,
    config: Partial<ChallengeConfig> = {},
  ) {
    this.config = { ...DEFAULT_CHALLENGE_CONFIG, ...config };
  }

  /** POST /bot/challenge. */
  create(challenger: Principal, req: CreateChallengeRequest): ServiceResult<ChallengeView> {
    const { clock, hub, identity } = this.deps;
    if (challenger.tier === 'guest') {
      return fail('bots_only', 'only bots can challenge; human guests play through lobby seeks');
    }
    if (botExternalId(req.team, req.name) === challenger.id) {
      return fail('self_challenge');
    }
    const target = identity.findBot(req.team, req.name);
    if (!target) return fail('unknown_bot', `no bot ${req.team}/${req.name} can be challenged`);

    const now = clock.now();
    const mine = this.byChallenger.get(challenger.id);
    if (mine && mine.size >= this.config.maxPendingPerChallenger) {
      const oldest = this.byId.get(mine.values().next().value as string);
      return rateLimited(
        'too_many_challenges',
        `at most ${this.config.maxPendingPerChallenger} pending challenges per challenger`,
        (oldest?.expiresAt ?? now) - now,
      );
    }
    if (this.byId.size >= this.config.maxPendingTotal) {
      const oldest = this.byId.values().next().value as Pending;
      return rateLimited('challenge_capacity', 'the server holds too many pending challenges; retry later', oldest.expiresAt - now);
    }
    // A house bot accepts at once, so its game is as good as made: hold its place now. Otherwise the
    // game is made at accept, where both players are checked; here only the challenger is.
    const autoAccepted = this.config.houseBotIds.has(target.id);
    let hold: Hold | null = null;
    if (autoAccepted) {
      const held = this.reserve([challenger.id, target.id]);
      if (!held.ok) return held;
      hold = held.value;
    } else if (this.deps.admission) {
      const admitted = this.deps.admission.check([challenger.id]);
      if (!admitted.ok) return admitted;
    }

    const c: Pending = {
      id: newId(),
      challenger: seatPlayerOf(challenger),
      target,
      timeControl: req.timeControl ?? { Unlimited: {} },
      color: req.color ?? 'white',
      expiresAt: now + this.config.ttlMs,
      timer: { cancel: () => {} },
      hold,
    };
    c.timer = clock.schedule(this.config.ttlMs, () => this.expire(c));
    this.byId.set(c.id, c);
    addTo(this.byChallenger, c.challenger.id, c.id);
    addTo(this.byTarget, c.target.id, c.id);

    hub.publish(c.target.id, {
      ChallengeReceived: { id: c.id, challenger: c.challenger.participant, timeControl: c.timeControl, color: c.color },
    });
    if (autoAccepted) {
      // Not inline: the challenger first gets its 201, then the game (and its GameStart) follows.
      clock.schedule(0, () => this.autoAccept(c));
    }
    return ok(this.view(c));
  }

  /** GET /bot/challenges: pending only, oldest first. */
  list(p: Principal): ChallengeList {
    const views = (ids: Set<string> | undefined): ChallengeView[] =>
      ids ? [...ids].map((id) => this.view(this.byId.get(id) as Pending)) : [];
    return { in: views(this.byTarget.get(p.id)), out: views(this.byChallenger.get(p.id)) };
  }

  /**
   * POST /bot/challenge/{id}/accept. The challenge leaves the pending lists before the game is
   * created, so two racing accepts cannot both start a game. GameStart reaches both players through
   * the game lifecycle listener (AccountHub.gameStarted), not from here.
   */
  async accept(p: Principal, id: string): Promise<ServiceResult<{ gameId: string }>> {
    const c = this.byId.get(id);
    if (!c) return fail('unknown_challenge');
    if (c.target.id !== p.id) return fail('not_your_challenge');
    // Refused for a cap: the challenge stays pending, so the accept may be retried once a game ends.
    const held = this.reserve([c.challenger.id, c.target.id]);
    if (!held.ok) return held;
    const game = await this.startGame(c, held.value);
    return ok({ gameId: game.id });
  }

  /** POST /bot/challenge/{id}/decline: the target declines or the challenger cancels; the other side is told, with the reason if one was given. */
  decline(p: Principal, id: string, reason?: DeclineReason): ServiceResult<Record<string, never>> {
    const c = this.byId.get(id);
    if (!c) return fail('unknown_challenge');
    let other: string;
    if (p.id === c.target.id) other = c.challenger.id;
    else if (p.id === c.challenger.id) other = c.target.id;
    else return fail('not_your_challenge', 'only the challenger or the challenged bot can decline this challenge');
    this.drop(c);
    this.deps.hub.publish(other, { ChallengeDeclined: reason === undefined ? { id: c.id } : { id: c.id, reason } });
    return ok({});
  }

  /** Number of pending challenges (metrics). */
  pendingCount(): number {
    return this.byId.size;
  }

  private view(c: Pending): ChallengeView {
    return {
      id: c.id,
      challenger: c.challenger.participant,
      target: c.target.participant,
      timeControl: c.timeControl,
      color: c.color,
      // Built-in house bots hold no stream but answer at once, so they count as online.
      targetOnline: this.config.houseBotIds.has(c.target.id) || this.deps.hub.isOnline(c.target.id),
    };
  }

  private reserve(playerIds: string[]): ServiceResult<Hold> {
    return this.deps.admission ? this.deps.admission.reserve(playerIds) : ok(NO_HOLD);
  }

  private async startGame(c: Pending, hold: Hold): Promise<GameHandle> {
    if (c.hold === hold) c.hold = null; // drop() must not give back the place this game takes
    this.drop(c);
    try {
      const challengerWhite = c.color === 'white' || (c.color === 'random' && (this.deps.random ?? Math.random)() < 0.5);
      const [white, black] = challengerWhite ? [c.challenger, c.target] : [c.target, c.challenger];
      return await this.deps.games.create({ white, black, timeControl: c.timeControl, rated: false });
    } catch (e) {
      // The game could not be made (a bug or an overloaded server): the challenger must not wait for
      // a GameStart that will never come.
      this.deps.hub.publish(c.challenger.id, { ChallengeDeclined: { id: c.id } });
      throw e;
    } finally {
      hold.release();
    }
  }

  private autoAccept(c: Pending): void {
    if (this.byId.get(c.id) !== c) return; // cancelled in the meantime
    // Nobody awaits this promise; the challenger has already been told, the operator is told here.
    this.startGame(c, c.hold ?? NO_HOLD).catch((e: unknown) => this.deps.onInternalError?.(e));
  }

  private expire(c: Pending): void {
    if (this.byId.get(c.id) !== c) return;
    this.drop(c);
    this.deps.hub.publish(c.challenger.id, { ChallengeDeclined: { id: c.id } });
  }

  private drop(c: Pending): void {
    c.timer.cancel();
    c.hold?.release();
    c.hold = null;
    this.byId.delete(c.id);
    removeFrom(this.byChallenger, c.challenger.id, c.id);
    removeFrom(this.byTarget, c.target.id, c.id);
  }
}

function addTo(index: Map<string, Set<string>>, key: string, id: string): void {
  let set = index.get(key);
  if (!set) {
    set = new Set();
    index.set(key, set);
  }
  set.add(id);
}

function removeFrom(index: Map<string, Set<string>>, key: string, id: string): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) index.delete(key);
}
