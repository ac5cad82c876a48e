// The course of a game on its own: rolls (forced passes played at once), the decision timer, the
// endings (a king captured, a draw, a timeout, an abort) and the mailbox every change runs through.
// GameActor (actor.ts) adds what players ask (commands) on top; ActorCore (actor-core.ts) holds the
// state and the one path by which a version is persisted, then published.
import { legalTree, parseDfen } from '../engine/index.js';
import { hexToSeed } from '../fair/index.js';
import type { GameRecord } from '../domain/records.js';
import type { TimerHandle } from '../domain/clock.js';
import type { GameEvent, GameOver } from '../domain/types.js';
import { ActorCore, type ActorDeps } from './actor-core.js';
import { decisionLimitMs, elapsedMs, outOfTime } from './clocks.js';
import { Mailbox } from './mailbox.js';
import { drawBy, drawnAt, finalRecord, lossFor, resultsOf } from './endings.js';
import { PendingTree, isEnded, rolledFrame } from './view.js';
import { AnsweredTurns } from './retries.js';
import { forcedPass, must, pendingRoll, rollOf, sharing } from './rolls.js';

export abstract class ActorLife extends ActorCore {
  protected readonly mailbox: Mailbox;
  private timer: TimerHandle | null = null;
  protected stopping = false;
  /** Each seat's last applied turn, for retries (in memory: a restart forgets it). */
  protected readonly answered = new AnsweredTurns();
  /** The `v` of the pending roll's DiceRolled (a resumed roll: the version it was resumed at). */
  protected rollVersion = 0;

  constructor(rec: GameRecord, deps: ActorDeps) {
    super(sharing(rec), deps);
    // `this.id`, not `rec.id`: the closure would keep the first record alive for the game's life.
    this.mailbox = new Mailbox(this.cfg.mailboxSize, (e) => this.deps.log.error({ gameId: this.id, err: String(e) }, 'mailbox task failed'));
    // Checked now, decoded at each roll: 32 bytes are not worth an object per game.
    if (!hexToSeed(rec.serverSeed)) throw new Error(`game ${rec.id}: malformed server seed`);
  }

  /** Wraps an internal command: a failure aborts the game. */
  protected guarded(fn: () => Promise<void> | void): () => Promise<void> {
    return async () => {
      try {
        await fn();
      } catch (e) {
        await this.abort(e);
      }
    };
  }

  protected async expire(rollPly: number): Promise<void> {
    const rec = this.rec;
    if (isEnded(rec) || !this.tree || rec.ply !== rollPly) return;
    const limit = decisionLimitMs(rec.clocks, rec.activeSeat, this.cfg.unlimitedCapMs);
    if (!outOfTime(limit, rec.clockStartedAt, this.deps.clock.now())) return this.armExpiry();
    await this.end(lossFor(rec.activeSeat, 'Timeout'));
  }

  // ---- rolls ----------------------------------------------------------------------------------

  /** Rolls for the side to move; plays forced passes at once and rolls again, until a decision is pending. */
  protected async roll(): Promise<void> {
    for (;;) {
      if (isEnded(this.rec) || this.stopping) return;
      const base = this.rec;
      // A mirror pair's game waits here, clock stopped, until its partner reaches the same roll.
      const ply = base.ply;
      if (this.deps.pair && !this.deps.pair.mayRoll(this.id, ply, () => this.wakeRoll(ply))) return;
      const { dice, dfen } = rollOf(base);
      const t = this.treeOf(dfen);
      if (t.leaves === 0) {
        const { next, events, halfmove } = forcedPass(base, dice, dfen);
        // The mover played no turn of its own: a repeat of its previous one is no longer a retry.
        this.answered.passed(base.activeSeat);
        if (this.drawn(halfmove, next.ply)) return this.end(drawBy('Draw'), next, events);
        await this.commit(next, null, events);
        continue;
      }
      const tree = new PendingTree(dfen, t.bytes, t.leaves);
      const next = pendingRoll(base, dice, this.deps.clock.now());
      const rolled = rolledFrame(next.version, base.activeSeat, dice, next.clocks, tree, this.cfg.inlineLeafCap);
      this.rollVersion = next.version;
      await this.commit(next, tree, [rolled], { clockFromPublication: true });
      this.armExpiry();
      return;
    }
  }

  /** The partner caught up: make the roll this game was holding back, unless something moved on. */
  private wakeRoll(ply: number): void {
    if (this.stopping) return;
    this.mailbox.push(this.guarded(async () => {
      const rec = this.rec;
      if (isEnded(rec) || this.tree !== null || rec.dice !== null || rec.ply !== ply) return;
      await this.roll();
    }));
  }

  /**
   * The roll's legal-move tree, built here in the game's own thread (tens of microseconds: less than
   * handing it to another thread would cost), timed for the owner's metrics.
   */
  protected treeOf(dfen: string): { bytes: Uint8Array; leaves: number } {
    const t0 = performance.now();
    const t = legalTree(must(parseDfen(dfen), 'roll'));
    this.deps.onTree?.(this.id, (performance.now() - t0) / 1000, t.bytes);
    return t;
  }

  protected drawn(halfmove: number, rollsMade: number): boolean {
    return drawnAt(halfmove, rollsMade, this.cfg.maxRolls);
  }

  // ---- ending -------------------------------------------------------------------------------------

  /**
   * Ends the game from `base` (by default the current record), publishing `lead` events (a final
   * TurnPlayed, a roll and its forced pass) before GameEnded. One write holds them all.
   */
  protected async end(over: GameOver, base: GameRecord = this.rec, lead: GameEvent[] = []): Promise<void> {
    this.cancelTimer();
    const final = this.closing(base, over);
    await this.commit(final, null, lead, { results: resultsOf(final) });
    this.afterEnd(final);
  }

  /** The final record; a mirror-pair game whose partner still runs keeps its reveal back. */
  protected closing(base: GameRecord, over: GameOver): GameRecord {
    const final = finalRecord(base, over, this.deps.clock.now());
    return this.deps.pair?.ending(this.id) ? { ...final, revealHeld: true } : final;
  }

  /** After GameEnded is published: shared by normal endings and failed aborts. */
  protected afterEnd(final: GameRecord): void {
    this.closeSubscribers();
    try {
      this.deps.onEnded?.(this, final);
    } catch (e) {
      this.deps.log.error({ gameId: this.id, err: String(e) }, 'game-ended hook threw');
    }
  }

  /** The server gives up on this game: Aborted, a draw, unrated. Never throws. */
  protected async abort(cause: unknown): Promise<void> {
    this.deps.log.error({ gameId: this.id, err: cause instanceof Error ? cause.stack ?? cause.message : String(cause) }, 'game aborted');
    if (isEnded(this.rec)) return;
    try {
      await this.end(drawBy('Aborted'));
    } catch (e) {
      // Even the store refuses: end in memory so nobody waits on a game that cannot go on.
      this.deps.log.error({ gameId: this.id, err: String(e) }, 'could not persist the aborted game');
      const final = this.closing(this.rec, drawBy('Aborted'));
      this.show(final, null, []);
      this.afterEnd(final);
    }
  }

  // ---- timers and waits -------------------------------------------------------------------------

  protected setTimer(ms: number, fn: () => void): void {
    this.cancelTimer();
    if (this.stopping) return;
    this.timer = this.deps.clock.schedule(Math.max(0, ms), () => {
      this.timer = null;
      fn();
    });
  }

  protected cancelTimer(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** Arms the expiry of the pending decision: remaining bank, or the Unlimited cap. */
  protected armExpiry(): void {
    const rec = this.rec;
    if (!this.tree || rec.clockStartedAt === null) return;
    const limit = decisionLimitMs(rec.clocks, rec.activeSeat, this.cfg.unlimitedCapMs);
    const left = limit - elapsedMs(rec.clockStartedAt, this.deps.clock.now());
    const ply = rec.ply;
    this.setTimer(left, () => this.mailbox.push(this.guarded(() => this.expire(ply))));
  }
}
