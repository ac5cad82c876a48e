// One actor per game: the only writer of that game's state. Every command (seed, move, resign,
// timers, rolls) runs through a bounded serial mailbox; each handler computes the next record and the
// events it implies, then `commit` (actor-core.ts) persists the record and only then publishes the
// events, each serialised once; rolls and endings take that same path. Reads are synchronous and never touch the mailbox.
import {
  applyTurn, isDraw, parseDfen, passTurn, treeHasPath, withDice,
} from '../engine/index.js';
import { hexToSeed, rollDice } from '../fair/index.js';
import type { GameRecord } from '../domain/records.js';
import type { TimerHandle } from '../domain/clock.js';
import type { GameEvent, GameOver, HistoryEntry, MoveVerdict, Seat } from '../domain/types.js';
import { otherSeat } from '../domain/types.js';
import type { TreeResult } from '../pool/types.js';
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

export type { ActorDeps } from './actor-core.js';

/** Thrown into a command that was waiting when the server stopped: the game stays as persisted. */
class Stopped extends Error {
  constructor() {
    super('game actor stopped');
  }
}

/** Engine results that can only fail on a bug (the input came from the engine itself). */
function must<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }, what: string): T {
  if (!r.ok) throw new Error(`${what}: ${r.error.message}`);
  return r.value;
}

type Reply = (v: MoveVerdict) => void;

/**
 * One array per possible roll of three dice (6³ of them), shared by every record, history entry and
 * event that holds that roll: a game keeps one per turn for its whole life, and records are never
 * mutated. Not frozen: V8's structured clone (postMessage) turns a frozen array into a slow sparse one.
 */
const ROLLS: readonly number[][] = Array.from({ length: 216 }, (_, i) => [Math.floor(i / 36) + 1, (Math.floor(i / 6) % 6) + 1, (i % 6) + 1]);

function sharedRoll(dice: number[]): number[] {
  const [a, b, c] = dice;
  const i = (a - 1) * 36 + (b - 1) * 6 + (c - 1);
  return dice.length === 3 && ROLLS[i] !== undefined ? ROLLS[i] : dice.slice();
}

/**
 * A record read back from the store with its history's rolls and seats shared (the decoder makes
 * a new array and string for each): a resumed game is then no bigger than one played here.
 */
function sharing(rec: GameRecord): GameRecord {
  if (rec.history.length === 0) return rec;
  const history = rec.history.map((e) => ({ ...e, seat: e.seat === 'White' ? 'White' as const : 'Black' as const, dice: sharedRoll(e.dice) }));
  return { ...rec, history };
}

export class GameActor extends ActorCore implements GameHandle {
  private readonly mailbox: Mailbox;
  private timer: TimerHandle | null = null;
  private stopping = false;
  /**
   * Rejecters of the waits in progress (a tree, a backoff), cut short by stop(); null when none.
   * One promise per wait, dropped when it settles: a single never-settling promise raced against
   * every wait would keep each wait, and the tree it resolved with, for the actor's whole life.
   */
  private waits: Set<(e: Error) => void> | null = null;
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

  move(seat: Seat, moves: readonly string[]): Promise<MoveVerdict | 'busy'> {
    // The clock stops now, at receipt; `seen` is the roll the mover could have answered.
    return this.moveAt(seat, moves, this.deps.clock.now(), this.tree ? this.rec.ply : null);
  }

  /**
   * A move received elsewhere (the main thread of a sharded server): `at` is when it was received,
   * `seen` the roll pending there at that instant (null when none was).
   */
  moveAt(seat: Seat, moves: readonly string[], at: number, seen: number | null): Promise<MoveVerdict | 'busy'> {
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
          await this.onMove(seat, moves, at, seen, reply);
        } catch (e) {
          if (!(e instanceof Stopped)) await this.abort(e);
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
        const t = await this.treeOf(dfen);
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

  /** Cancels timers, lets the running command finish (waits are cut short), closes subscribers. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.cancelTimer();
    const waits = this.waits;
    this.waits = null;
    for (const cut of waits ?? []) cut(new Stopped());
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

  /** Wraps an internal command: a Stopped wait ends it quietly, anything else aborts the game. */
  private guarded(fn: () => Promise<void> | void): () => Promise<void> {
    return async () => {
      try {
        await fn();
      } catch (e) {
        if (!(e instanceof Stopped)) await this.abort(e);
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

  private async onMove(seat: Seat, moves: readonly string[], at: number, seen: number | null, reply: Reply): Promise<void> {
    if (isEnded(this.rec)) return reply(GAME_OVER);
    const rec = this.rec;
    const tree = this.tree;
    if (!tree || rec.dice === null || seat !== rec.activeSeat || seen !== rec.ply) {
      await this.rejected(seat, NOT_YOUR_TURN.reason!);
      return reply(NOT_YOUR_TURN);
    }
    if (outOfTime(decisionLimitMs(rec.clocks, seat, this.cfg.unlimitedCapMs), rec.clockStartedAt, at)) {
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
      clocks: banksAfterTurn(rec.timeControl, rec.clocks, seat, elapsedMs(rec.clockStartedAt, at)),
      clockStartedAt: null,
      version: v,
      history: [...rec.history, entry],
    };
    const played: GameEvent = { TurnPlayed: { v, seat, moves: entry.moves, fenAfter: out.fenAfter } };
    const applied: MoveVerdict = { applied: true, version: v, reason: null };
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
      const t = await this.treeOf(dfen);
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
        if (this.drawn(out.halfmove, next.ply)) return this.end(drawBy('Draw'), next, events);
        await this.commit(next, null, events);
        continue;
      }
      const tree = new PendingTree(dfen, t.bytes, t.leaves);
      const now = this.deps.clock.now();
      const next: GameRecord = { ...base, ply: base.ply + 1, dice, clocks, clockStartedAt: now, version: v };
      const rolled = rolledFrame(v, mover, dice, clocks, tree, this.cfg.inlineLeafCap);
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

  /** The roll's tree from the rules port, retried with backoff; repeated failure aborts the game. */
  private async treeOf(dfen: string): Promise<TreeResult> {
    let delay = this.cfg.rulesBackoffMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.untilStopped(this.deps.rules.tree(dfen));
      } catch (e) {
        if (e instanceof Stopped) throw e;
        if (attempt >= this.cfg.rulesRetries) throw new Error(`rules port failed ${attempt + 1} times: ${String(e)}`);
        this.deps.log.warn({ gameId: this.id, attempt, err: String(e) }, 'rules port failed; retrying');
        await this.sleep(delay);
        delay *= 4;
      }
    }
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

  /** `p`, or a Stopped rejection as soon as stop() is called. */
  private untilStopped<T>(p: Promise<T>): Promise<T> {
    if (this.stopping) {
      p.catch(() => {});
      return Promise.reject(new Stopped());
    }
    return new Promise<T>((resolve, reject) => {
      const waits = (this.waits ??= new Set());
      waits.add(reject);
      const done = (): void => {
        waits.delete(reject);
        if (waits.size === 0 && this.waits === waits) this.waits = null;
      };
      p.then(
        (v) => { done(); resolve(v); },
        (e: unknown) => { done(); reject(e); },
      );
    });
  }

  private sleep(ms: number): Promise<void> {
    let handle: TimerHandle | undefined;
    const done = new Promise<void>((resolve) => (handle = this.deps.clock.schedule(ms, resolve)));
    return this.untilStopped(done).finally(() => handle?.cancel());
  }
}
