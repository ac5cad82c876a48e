// The ladder's scheduler: every `pairIntervalMs` it pairs the on-ladder bots that can play now and
// have a free seat under their capacity. Bots of capacity 2 or more play each other only in mirror
// pairs (registry.createMirrorPair), two free seats each; a single rated game is played only against
// a bot of capacity 1, the colours chosen to even out each bot's white and black games. Bots left
// without a new opponent for `rematchAfterMs` may meet their previous one again. It also keeps each bot's run of ladder games lost on time and
// takes a bot off the ladder after MAX_TIME_LOSSES in a row. Every bot write goes through
// IdentityService.editBot (serialised per bot).
import type { Clock } from '../domain/clock.js';
import { Periodic } from './periodic.js';
import { DEFAULT_CAPACITY } from '../domain/ratings.js';
import type { Logger } from '../domain/log.js';
import { ladderKindOf, type BotRecord, type GameRecord } from '../domain/records.js';
import type { TimeControl } from '../domain/types.js';
import type { GameDirectory, GameFactory, GameHandle, GameLifecycleListener, MirrorPairFactory } from '../game/types.js';
import type { Store } from '../store/types.js';
import type { AccountHub } from './account-hub.js';
import type { GameAdmission, Hold } from './game-admission.js';
import { botSeat, type IdentityService } from './identity.js';
import { choosePairs, planGame, MIRROR_SEATS, type Candidate, type LadderPlan } from './ladder-pairing.js';
import type { Presence } from './presence.js';

/** Ladder games are Fischer 300+3 (docs/API.md, "Ratings, leaderboard and profiles"). */
export const LADDER_TIME_CONTROL: TimeControl = { Fischer: { initialSeconds: 300, incrementSeconds: 3 } };
/** Ladder games lost on time in a row that take a bot off the ladder. */
export const MAX_TIME_LOSSES = 4;
export const TIME_LOSS_REASON = `lost ${MAX_TIME_LOSSES} ladder games in a row on time; rejoin with POST /bot/ladder/join`;

export interface LadderSchedulerDeps {
  store: Store;
  identity: IdentityService;
  games: GameFactory & MirrorPairFactory & GameDirectory;
  hub: AccountHub;
  presence: Presence;
  /** The live-games caps every game start passes (capacity sits under them). */
  admission?: GameAdmission;
  /**
   * Whether this server delivers webhooks (default true). When it does not, a verified webhook kept
   * on a bot's record from an earlier run reaches nobody and does not make the bot reachable.
   */
  webhooksEnabled?: boolean;
  clock: Clock;
  /** Tie-breaks between equal candidates (tests inject a seeded one). */
  random: () => number;
  log: Logger;
}

export interface LadderSchedulerConfig {
  pairIntervalMs: number;
  /**
   * How long two bots wait, free but unpaired, before they may meet again right after meeting (a
   * ladder of two or three bots has nobody else); 15 s when absent.
   */
  rematchAfterMs?: number;
}

export const DEFAULT_REMATCH_AFTER_MS = 15_000;

/**
 * A ladder game: a mirror pair's half or a single game. A rated event's games are rated too but are
 * not the ladder's: the host chose their time control, so they never count toward its time-loss run.
 */
export const isLadderGame = (rec: GameRecord): boolean => ladderKindOf(rec) !== null && rec.tournament === undefined;

export class LadderScheduler implements GameLifecycleListener {
  /** Pairings started since this scheduler was made, by kind (benches and logs read it). */
  readonly started: Record<LadderPlan['kind'], number> = { mirror: 0, single: 0 };
  private running: Promise<number> | null = null;
  private stopped = false;
  private readonly rounds: Periodic;
  /**
   * Since when each bot has been eligible in every round and left unpaired (its wait for a rematch).
   * Only bots eligible in the latest round are kept, so it holds at most one entry per ladder bot.
   */
  private readonly waitingSince = new Map<string, number>();
  private readonly rematchAfterMs: number;

  constructor(private readonly deps: LadderSchedulerDeps, config: LadderSchedulerConfig) {
    this.rounds = new Periodic(deps.clock, config.pairIntervalMs, () => this.round());
    this.rematchAfterMs = config.rematchAfterMs ?? DEFAULT_REMATCH_AFTER_MS;
  }

  /** Starts the periodic rounds (the first one after one interval). */
  start(): void {
    this.stopped = false;
    this.rounds.start();
  }

  /** No further rounds; resolves once a round in progress has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.rounds.stop();
    await this.running;
  }

  /** Live rated games the bot sits in (both games of a pair count). */
  inGames(botId: string): number {
    return this.deps.games.liveFor(botId).filter((g) => g.rated).length;
  }

  /** Whether the bot can answer a ladder game now: a stream, a verified webhook, or a recent request. */
  reachable(bot: BotRecord): boolean {
    const hook = this.deps.webhooksEnabled !== false && Boolean(bot.webhook?.verifiedAt);
    return this.deps.hub.isOnline(bot.id) || hook || this.deps.presence.recent(bot.id);
  }

  /** Seats the bot has free for ladder games: its capacity minus its live ladder games. */
  free(bot: BotRecord): number {
    return (bot.capacity ?? DEFAULT_CAPACITY) - this.inGames(bot.id);
  }

  /** The bots one round may pair: on the ladder, reachable, with at least one free seat. */
  eligible(): BotRecord[] {
    return this.deps.store.listBots().filter((b) => b.onLadder && this.reachable(b) && this.free(b) >= 1);
  }

  /** One round: chooses the pairs and starts a mirror pair for each. Resolves with the pairs made. */
  round(): Promise<number> {
    // Rounds never overlap: a round asked for while one runs waits for it and then runs.
    const prev = this.running ?? Promise.resolve(0);
    const next = prev.then(() => this.pairUp()).catch((e: unknown) => {
      // A store that fails mid-round: this round is lost, the next one tries again.
      this.deps.log.error({ err: String(e) }, 'ladder round failed');
      return 0;
    });
    this.running = next;
    void next.finally(() => {
      if (this.running === next) this.running = null;
    });
    return next;
  }

  private async pairUp(): Promise<number> {
    if (this.stopped) return 0;
    const eligible = this.eligible();
    const now = this.deps.clock.now();
    const waiting = this.waitingSince;
    for (const id of [...waiting.keys()]) if (!eligible.some((b) => b.id === id)) waiting.delete(id);
    for (const b of eligible) if (!waiting.has(b.id)) waiting.set(b.id, now);
    const candidates: Candidate[] = eligible.map((b) => ({
      id: b.id, rating: b.rating.rating, rd: b.rating.rd, lastOpponent: b.ladderLastOpponent ?? null,
      capacity: (b.capacity ?? DEFAULT_CAPACITY), free: this.free(b), rematchReady: now - waiting.get(b.id)! >= this.rematchAfterMs,
    }));
    const bots = new Map(eligible.map((b) => [b.id, b]));
    const seating = (b: BotRecord) => ({ id: b.id, free: this.free(b), colours: b.ladderColours ?? { white: 0, black: 0 } });
    let made = 0;
    for (const [a, b] of choosePairs(candidates, this.deps.random)) {
      const plan = planGame(seating(bots.get(a.id)!), seating(bots.get(b.id)!), this.deps.random);
      if (!(await this.startGames(plan, bots))) continue;
      made++;
      waiting.delete(a.id);
      waiting.delete(b.id);
      await Promise.all([
        this.deps.identity.editBot(plan.white, (bot) => ({
          ...bot, ladderLastOpponent: plan.black, ladderColours: played(bot, plan, 'white'), ladderGames: counted(bot, plan),
        })),
        this.deps.identity.editBot(plan.black, (bot) => ({
          ...bot, ladderLastOpponent: plan.white, ladderColours: played(bot, plan, 'black'), ladderGames: counted(bot, plan),
        })),
      ]);
    }
    if (made > 0) this.deps.log.info({ pairs: made, eligible: candidates.length }, 'ladder round');
    return made;
  }

  /** Starts the planned game(s); false when the caps refuse them or the registry cannot start them now. */
  private async startGames(plan: LadderPlan, bots: Map<string, BotRecord>): Promise<boolean> {
    const w = bots.get(plan.white)!;
    const b = bots.get(plan.black)!;
    const games = plan.kind === 'mirror' ? MIRROR_SEATS : 1;
    const holds = this.admit([w.id, b.id], games);
    if (!holds) return false; // a bot at its live-games cap, or the server full: not this round
    const spec = { white: botSeat(w.team, w.name), black: botSeat(b.team, b.name), timeControl: LADDER_TIME_CONTROL, rated: true };
    try {
      if (plan.kind === 'mirror') await this.deps.games.createMirrorPair(spec);
      else await this.deps.games.create(spec);
      this.started[plan.kind]++;
      this.deps.log.debug?.({ white: w.id, black: b.id, kind: plan.kind }, 'ladder pairing');
      return true;
    } catch (e) {
      // The registry is stopping or the store refuses: no game this round, try again next round.
      this.deps.log.warn({ err: String(e), white: w.id, black: b.id, kind: plan.kind }, 'could not start a ladder game');
      return false;
    } finally {
      for (const h of holds) h.release();
    }
  }

  /** Places for `games` games under the live-games caps, or null (nothing held) when refused. */
  private admit(ids: string[], games: number): Hold[] | null {
    if (!this.deps.admission) return [];
    const held = this.deps.admission.reserveGames(ids, games);
    return held.ok ? held.value : null;
  }

  /** Keeps each seated bot's run of ladder games lost on time; MAX_TIME_LOSSES in a row leave the ladder. */
  gameEnded(_game: GameHandle, rec: GameRecord): void {
    if (!isLadderGame(rec) || !('Ended' in rec.status)) return;
    const over = rec.status.Ended.over;
    if (over.termination === 'Aborted') return; // the server's failure, not the bot's
    for (const seat of ['White', 'Black'] as const) {
      const id = (seat === 'White' ? rec.white : rec.black).id;
      const lostOnTime = over.termination === 'Timeout' && 'Win' in over.result && over.result.Win.side !== seat;
      this.countTimeLoss(id, lostOnTime).catch((e: unknown) => {
        this.deps.log.error({ bot: id, err: String(e) }, 'could not count a ladder time loss');
      });
    }
  }

  private async countTimeLoss(id: string, lostOnTime: boolean): Promise<void> {
    let removed = false;
    const after = await this.deps.identity.editBot(id, (bot) => {
      const streak = lostOnTime ? (bot.ladderTimeLosses ?? 0) + 1 : 0;
      if (streak === (bot.ladderTimeLosses ?? 0)) return null;
      if (streak >= MAX_TIME_LOSSES && bot.onLadder) {
        removed = true;
        return { ...bot, ladderTimeLosses: 0, onLadder: false, leftLadder: true, offLadderReason: TIME_LOSS_REASON };
      }
      return { ...bot, ladderTimeLosses: streak };
    });
    if (after && removed) {
      this.deps.log.info({ bot: id }, 'taken off the ladder after time losses');
      this.deps.hub.publish(id, { LadderRemoved: { reason: TIME_LOSS_REASON } });
    }
  }
}

/** A bot's colour counts after the planned game(s): a mirror pair plays both colours once. */
function played(bot: BotRecord, plan: LadderPlan, colour: 'white' | 'black'): { white: number; black: number } {
  const c = bot.ladderColours ?? { white: 0, black: 0 };
  if (plan.kind === 'mirror') return { white: c.white + 1, black: c.black + 1 };
  return colour === 'white' ? { ...c, white: c.white + 1 } : { ...c, black: c.black + 1 };
}

/** A bot's count of ladder pairings by kind after the planned one (absent on older records: none). */
function counted(bot: BotRecord, plan: LadderPlan): { pairs: number; singles: number } {
  const c = bot.ladderGames ?? { pairs: 0, singles: 0 };
  return plan.kind === 'mirror' ? { ...c, pairs: c.pairs + 1 } : { ...c, singles: c.singles + 1 };
}
