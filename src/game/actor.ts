// One actor per game: the only writer of that game's state. Every command (seed, move, resign,
// timers, rolls) runs through a bounded serial mailbox; each handler computes the next record and the
// events it implies, then `commit` (actor-core.ts) persists the record and only then publishes the
// events, each serialised once; rolls and endings take that same path. Reads are synchronous and never touch the mailbox.
import {
  applyTurn, isDraw, legalTree, parseDfen, passTurn, treeHasPath, withDice,
} from '../engine/index.js';
import { hexToSeed, rollDice } from '../fair/index.js';
import type { GameRecord } from '../domain/records.js';
import type { TimerHandle } from '../domain/clock.js';
import type { GameEvent, GameOver, HistoryEntry, MoveVerdict, Seat } from '../domain/types.js';
import { otherSeat } from '../domain/types.js';
import type { GameHandle } from './types.js';
import { ActorCore, type ActorDeps } from './actor-core.js';
import {
  banksAfterTurn, banksAtRoll, decisionLimitMs, elapsedMs, outOfTime,
} from './clocks.js';
import { Mailbox } from './mailbox.js';
import { SEED_REJECT_REASON, isValidSeed } from '../domain/rules.js';
import { GAME_OVER, ILLEGAL_TURN, NOT_YOUR_TURN, describeMoves, plausibleMoves } from './verdicts.js';
import { drawBy, finalRecord, lossFor, resultsOf, winFor } from './endings.js';
import { PendingTree, effectiveSeeds, isEnded, rolledFrame } from './view.js';
import { AnsweredTurns } from './retries.js';
import { sharedRoll, sharing } from './rolls.js';

export type { ActorDeps } from './actor-core.js';

/** Engine results that can only fail on a bug (the input came from the engine itself). */
function must<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }, what: string): T {
  if (!r.ok) throw new Error(`${what}: ${r.error.message}`);
  return r.value;
}

type MoveReply = (v: MoveVerdict) => void;

export class GameActor extends ActorCore implements GameHandle {
  private readonly mailbox: Mailbox;
  private timer: TimerHandle | null = null;
  private stopping = false;
  /** Each seat's last applied turn, for retries (in memory: a restart forgets it). */
  private readonly answered = new AnsweredTurns();
  /** The `v` of the pending roll's DiceRolled (a resumed roll: the version it was resumed at). */
  private rollVersion = 0;
  /** Seats with a resignation queued (see resign), as bits: 1 White, 2 Black. */
  private resignQueued = 0;

  constructor(rec: GameRecord, deps: ActorDeps) {
    super(sharing(rec), deps);
    // `this.id`, not `rec.id`: the closure would keep the first record alive for the game's life.
    this.mailbox = new Mailbox(this.cfg.mailboxSize, (e) => this.deps.log.error({ gameId: this.id, err: String(e) }, 'mailbox task failed'));
    // Checked now, decoded at each roll: 32 bytes are not worth an object per game.
    if (!hexToSeed(rec.serverSeed)) throw new Error(`game ${rec.id}: malformed server seed`);
  }

  // ---- commands -------------------------------------------------------------------------------

  seed(seat: Seat, seed: string): void {
    if (isEnded(this.rec) || this.stopping) return;
    if (!this.mailbox.offer(this.guarded(() => this.onSeed(seat, seed)))) {
      this.deps.log.warn({ gameId: this.id, seat }, 'mailbox full: seed dropped');
    }
  }

  move(seat: Seat, moves: readonly string[], version?: number, creditMs?: number): Promise<MoveVerdict | 'busy'> {
    // The clock stops now, at receipt; `seen` is the roll the mover could have answered.
    return this.moveAt(seat, moves, this.deps.clock.now(), this.tree ? this.rec.ply : null, version, creditMs);
  }

  /**
   * A move received elsewhere (the main thread of a sharded server): `at` is when it was received,
   * `seen` the roll pending there at that instant (null when none was), `version` the roll the mover
   * says it answers (see onMove), `creditMs` see GameHandle.move. The clock is charged here, by the
   * owner, from `at`.
   */
  moveAt(seat: Seat, moves: readonly string[], at: number, seen: number | null, version?: number, creditMs = 0): Promise<MoveVerdict | 'busy'> {
    if (isEnded(this.rec)) return Promise.resolve(GAME_OVER);
    if (this.stopping) return Promise.resolve('busy');
    return new Promise((resolve) => {
      let settled = false;
      const reply = (v: MoveVerdict | 'busy'): void => {
        if (!settled) {
          settled = true;
          resolve(v);
        }
      };
      const accepted = this.mailbox.offer(async () => {
        try {
          await this.onMove(seat, moves, at, seen, version, creditMs, reply);
        } catch (e) {
          await this.abort(e);
        } finally {
          reply(isEnded(this.rec) ? GAME_OVER : 'busy');
        }
      });
      if (!accepted) reply('busy');
    });
  }

  resign(seat: Seat): void {
    const bit = seat === 'White' ? 1 : 2;
    if (isEnded(this.rec) || this.stopping || (this.resignQueued & bit) !== 0) return;
    // Bypasses the mailbox bound (one per seat at most): a resignation must never be dropped.
    this.resignQueued |= bit;
    this.mailbox.push(this.guarded(async () => {
      this.resignQueued &= ~bit;
      if (!isEnded(this.rec)) await this.end(lossFor(seat, 'Resign'));
    }));
  }

  /** A new game: wait for seeds, at most the grace period, then roll (at once when both are set). */
  start(): void {
    const { white, black } = this.rec.clientSeeds;
    // Ladder games come with server-chosen client seeds: there is nothing to wait for.
    if (white !== null && black !== null) this.mailbox.push(this.guarded(() => this.opening()));
    else this.setTimer(this.cfg.seedGraceMs, () => this.mailbox.push(this.guarded(() => this.opening())));
  }

  /** A game read back from the store after a restart: continue exactly where it was persisted. */
  resume(): void {
    this.mailbox.push(this.guarded(async () => {
      const rec = this.rec;
      if (isEnded(rec)) return;
      if (rec.dice !== null) {
        // The roll was published before the restart: same dice, tree recomputed; the time the server
        // was down is not charged, so the clock restarts now from the persisted banks.
        const dfen = must(withDice(rec.fen, rec.dice), 'pending roll');
        const t = this.treeOf(dfen);
        this.rollVersion = rec.version;
        this.show({ ...rec, clockStartedAt: this.deps.clock.now() }, new PendingTree(dfen, t.bytes, t.leaves), []);
        this.armExpiry();
      } else if (rec.ply === 0) {
        this.start();
      } else {
        const halfmove = must(parseDfen(rec.fen), 'resumed position').halfmove;
        if (this.drawn(halfmove, rec.ply)) await this.end(drawBy('Draw'));
        else await this.roll();
      }
    }));
  }

  /** Cancels timers, lets the running command finish, closes subscribers. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.cancelTimer();
    await this.mailbox.idle();
    this.closeSubscribers();
  }

  /** The published pending roll's tree (a shard hands it to main with a resumed game). */
  pendingTree(): PendingTree | null {
    return this.tree;
  }

  /** Resolves when no command is waiting or running (tests and shutdown). */
  idle(): Promise<void> {
    return this.mailbox.idle();
  }

  // ---- handlers -------------------------------------------------------------------------------

  /** Wraps an internal command: a failure aborts the game. */
  private guarded(fn: () => Promise<void> | void): () => Promise<void> {
    return async () => {
      try {
        await fn();
      } catch (e) {
        await this.abort(e);
      }
    };
  }

  private async opening(): Promise<void> {
    if (isEnded(this.rec) || this.rec.ply !== 0) return;
    await this.roll();
  }

  private async onSeed(seat: Seat, seed: unknown): Promise<void> {
    if (isEnded(this.rec)) return;
    if (!isValidSeed(seed)) {
      await this.rejected(seat, SEED_REJECT_REASON);
      return;
    }
    const rec = this.rec;
    const key = seat === 'White' ? 'white' : 'black';
    // Only before the opening roll, and only the first one per seat.
    if (rec.ply !== 0 || rec.clientSeeds[key] !== null) return;
    const next: GameRecord = { ...rec, clientSeeds: { ...rec.clientSeeds, [key]: seed } };
    await this.commit(next, null, []);
    if (next.clientSeeds.white !== null && next.clientSeeds.black !== null) {
      this.cancelTimer();
      await this.roll();
    }
  }

  /**
   * A move. With `version` (the DiceRolled `v` of the roll it answers, or any later version of the
   * game while that roll is pending), a retry of a turn already applied gets its verdict again and
   * anything else not for the pending roll is refused, both without an event or a version. Without
   * it, the same moves sent again while the opponent is to move get the original verdict too.
   */
  private async onMove(seat: Seat, moves: readonly string[], at: number, seen: number | null, version: number | undefined, creditMs: number, reply: MoveReply): Promise<void> {
    if (isEnded(this.rec)) return reply(GAME_OVER);
    const again = this.answered.retried(seat, moves, version, this.tree !== null && this.rec.activeSeat === seat);
    if (again !== null) return reply(again);
    const rec = this.rec;
    const tree = this.tree;
    const pending = tree !== null && rec.dice !== null && seat === rec.activeSeat;
    if (version !== undefined && !(pending && version >= this.rollVersion && version <= rec.version)) {
      // Not the pending roll: never judged against a later one, and nothing is published.
      return reply(NOT_YOUR_TURN);
    }
    if (!tree || rec.dice === null || !pending || (version === undefined && seen !== rec.ply)) {
      await this.rejected(seat, NOT_YOUR_TURN.reason!);
      return reply(NOT_YOUR_TURN);
    }
    // A credit moves the clock's start later, by at most the time it has run for this roll.
    const started = rec.clockStartedAt === null ? null : rec.clockStartedAt + Math.min(Math.max(0, creditMs), elapsedMs(rec.clockStartedAt, at));
    if (outOfTime(decisionLimitMs(rec.clocks, seat, this.cfg.unlimitedCapMs), started, at)) {
      await this.end(lossFor(seat, 'Timeout'));
      return reply(GAME_OVER);
    }
    if (!plausibleMoves(moves) || !treeHasPath(tree.bytes, moves)) {
      await this.rejected(seat, `illegal turn: ${describeMoves(Array.isArray(moves) ? moves : [])}`);
      return reply(ILLEGAL_TURN);
    }
    const out = must(applyTurn(must(parseDfen(tree.dfen), 'pending roll'), moves), 'legal turn');
    this.cancelTimer();
    const v = rec.version + 1;
    const entry: HistoryEntry = { seat, dice: rec.dice, moves: [...moves], fenAfter: out.fenAfter };
    const next: GameRecord = {
      ...rec,
      fen: out.fenAfter,
      // After a king capture the position is not turned over (docs/ENGINE.md: counters and draws): the capturer stays to move.
      activeSeat: out.kingCaptured ? seat : otherSeat(seat),
      dice: null,
      clocks: banksAfterTurn(rec.timeControl, rec.clocks, seat, elapsedMs(started, at)),
      clockStartedAt: null,
      version: v,
      history: [...rec.history, entry],
    };
    const played: GameEvent = { TurnPlayed: { v, seat, moves: entry.moves, fenAfter: out.fenAfter } };
    const applied: MoveVerdict = { applied: true, version: v, reason: null };
    this.answered.played(seat, this.rollVersion, rec.version, entry.moves, applied);
    if (out.kingCaptured) {
      await this.end(winFor(seat, 'KingCaptured'), next, [played]);
      return reply(applied);
    }
    if (this.drawn(out.halfmove, next.ply)) {
      await this.end(drawBy('Draw'), next, [played]);
      return reply(applied);
    }
    await this.commit(next, null, [played]);
    // The verdict does not wait for the next roll's tree.
    reply(applied);
    await this.roll();
  }

  /** A refusal is an event like any other: it takes a version and is persisted first. */
  private async rejected(seat: Seat, reason: string): Promise<void> {
    const v = this.rec.version + 1;
    await this.commit({ ...this.rec, version: v }, this.tree, [{ Rejected: { v, seat, reason } }]);
  }

  private async expire(rollPly: number): Promise<void> {
    const rec = this.rec;
    if (isEnded(rec) || !this.tree || rec.ply !== rollPly) return;
    const limit = decisionLimitMs(rec.clocks, rec.activeSeat, this.cfg.unlimitedCapMs);
    if (!outOfTime(limit, rec.clockStartedAt, this.deps.clock.now())) return this.armExpiry();
    await this.end(lossFor(rec.activeSeat, 'Timeout'));
  }

  // ---- rolls ----------------------------------------------------------------------------------

  /** Rolls for the side to move; plays forced passes at once and rolls again, until a decision is pending. */
  private async roll(): Promise<void> {
    for (;;) {
      if (isEnded(this.rec) || this.stopping) return;
      const base = this.rec;
      // A mirror pair's game waits here, clock stopped, until its partner reaches the same roll.
      const ply = base.ply;
      if (this.deps.pair && !this.deps.pair.mayRoll(this.id, ply, () => this.wakeRoll(ply))) return;
      const mover = base.activeSeat;
      const seeds = effectiveSeeds(base);
      const dice = sharedRoll(rollDice(hexToSeed(base.serverSeed)!, seeds.white, seeds.black, base.ply));
      const dfen = must(withDice(base.fen, dice), 'roll');
      const t = this.treeOf(dfen);
      const clocks = banksAtRoll(base.timeControl, base.clocks);
      const v = base.version + 1;
      if (t.leaves === 0) {
        const out = passTurn(must(parseDfen(dfen), 'roll'));
        const entry: HistoryEntry = { seat: mover, dice, moves: [], fenAfter: out.fenAfter };
        const next: GameRecord = {
          ...base, ply: base.ply + 1, fen: out.fenAfter, activeSeat: otherSeat(mover), dice: null, clocks,
          clockStartedAt: null, version: v + 1, history: [...base.history, entry],
        };
        const events: GameEvent[] = [
          { DiceRolled: { v, seat: mover, dice, dfen, clocks, legalMoves: {} } },
          { TurnPlayed: { v: v + 1, seat: mover, moves: [], fenAfter: out.fenAfter } },
        ];
        // The mover played no turn of its own: a repeat of its previous one is no longer a retry.
        this.answered.passed(mover);
        if (this.drawn(out.halfmove, next.ply)) return this.end(drawBy('Draw'), next, events);
        await this.commit(next, null, events);
        continue;
      }
      const tree = new PendingTree(dfen, t.bytes, t.leaves);
      const now = this.deps.clock.now();
      const next: GameRecord = { ...base, ply: base.ply + 1, dice, clocks, clockStartedAt: now, version: v };
      const rolled = rolledFrame(v, mover, dice, clocks, tree, this.cfg.inlineLeafCap);
      this.rollVersion = v;
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
  private treeOf(dfen: string): { bytes: Uint8Array; leaves: number } {
    const t0 = performance.now();
    const t = legalTree(must(parseDfen(dfen), 'roll'));
    this.deps.onTree?.(this.id, (performance.now() - t0) / 1000, t.bytes);
    return t;
  }

  private drawn(halfmove: number, rollsMade: number): boolean {
    // The rule itself is the engine's; the configurable roll limit only ever shortens it (tests).
    return isDraw(halfmove, rollsMade) || rollsMade >= this.cfg.maxRolls;
  }

  // ---- ending -------------------------------------------------------------------------------------

  /**
   * Ends the game from `base` (by default the current record), publishing `lead` events (a final
   * TurnPlayed, a roll and its forced pass) before GameEnded. One write holds them all.
   */
  private async end(over: GameOver, base: GameRecord = this.rec, lead: GameEvent[] = []): Promise<void> {
    this.cancelTimer();
    const final = this.closing(base, over);
    await this.commit(final, null, lead, { results: resultsOf(final) });
    this.afterEnd(final);
  }

  /** The final record; a mirror-pair game whose partner still runs keeps its reveal back. */
  private closing(base: GameRecord, over: GameOver): GameRecord {
    const final = finalRecord(base, over, this.deps.clock.now());
    return this.deps.pair?.ending(this.id) ? { ...final, revealHeld: true } : final;
  }

  /** After GameEnded is published: shared by normal endings and failed aborts. */
  private afterEnd(final: GameRecord): void {
    this.closeSubscribers();
    try {
      this.deps.onEnded?.(this, final);
    } catch (e) {
      this.deps.log.error({ gameId: this.id, err: String(e) }, 'game-ended hook threw');
    }
  }

  /** The server gives up on this game: Aborted, a draw, unrated. Never throws. */
  private async abort(cause: unknown): Promise<void> {
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

  private setTimer(ms: number, fn: () => void): void {
    this.cancelTimer();
    if (this.stopping) return;
    this.timer = this.deps.clock.schedule(Math.max(0, ms), () => {
      this.timer = null;
      fn();
    });
  }

  private cancelTimer(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** Arms the expiry of the pending decision: remaining bank, or the Unlimited cap. */
  private armExpiry(): void {
    const rec = this.rec;
    if (!this.tree || rec.clockStartedAt === null) return;
    const limit = decisionLimitMs(rec.clocks, rec.activeSeat, this.cfg.unlimitedCapMs);
    const left = limit - elapsedMs(rec.clockStartedAt, this.deps.clock.now());
    const ply = rec.ply;
    this.setTimer(left, () => this.mailbox.push(this.guarded(() => this.expire(ply))));
  }
}
