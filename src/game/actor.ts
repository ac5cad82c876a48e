// One actor per game: the only writer of that game's state. Every command (seed, move, resign,
// timers, rolls) runs through a bounded serial mailbox; each handler computes the next record and the
// events it implies, then `commit` (actor-core.ts) persists the record and only then publishes the
// events, each serialised once; rolls and endings take that same path. Reads are synchronous and never touch the mailbox.
import { parseDfen, treeHasPath, withDice } from '../engine/index.js';
import type { GameRecord } from '../domain/records.js';
import type { MoveVerdict, Seat } from '../domain/types.js';
import type { GameHandle } from './types.js';
import type { ActorDeps } from './actor-core.js';
import { ActorLife } from './actor-life.js';
import { must } from './rolls.js';
import { playedTurn } from './turns.js';
import { creditedStart, decisionLimitMs, outOfTime } from './clocks.js';
import { SEED_REJECT_REASON, isValidSeed } from '../domain/rules.js';
import { GAME_OVER, ILLEGAL_TURN, NOT_YOUR_TURN, describeMoves, plausibleMoves } from './verdicts.js';
import { drawBy, lossFor, winFor } from './endings.js';
import { PendingTree, isEnded } from './view.js';
import { commandSpec, runCommand, type CommandName, type CommandTarget, type PayloadOf, type ReplyOf } from './commands.js';

export type { ActorDeps } from './actor-core.js';

/** How a move handler hands its verdict back (once). */
type GiveVerdict = (v: MoveVerdict) => void;

export class GameActor extends ActorLife implements GameHandle, CommandTarget {
  /** Seats with a resignation queued (see resign), as bits: 1 White, 2 Black. */
  private resignQueued = 0;

  constructor(rec: GameRecord, deps: ActorDeps) {
    super(rec, deps);
  }

  // ---- commands -------------------------------------------------------------------------------

  /** The `seed` command (commands.ts), on the owner: queued, answered at once. */
  takeSeed(seat: Seat, seed: string): void {
    if (isEnded(this.rec) || this.stopping) return;
    if (!this.mailbox.offer(this.guarded(() => this.onSeed(seat, seed)))) {
      this.deps.log.warn({ gameId: this.id, seat }, 'mailbox full: seed dropped');
    }
  }

  /**
   * The `move` command (commands.ts), on the owner: `at` is when the move reaches this actor, on the
   * owner's clock, which charges the mover; `seen` the roll pending where the move was received (null
   * when none was), `version` the roll the mover says it answers (see onMove), `creditMs` see
   * GameHandle.move.
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

  /** The `resign` command (commands.ts), on the owner. */
  takeResign(seat: Seat): void {
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

  /** Any command of the table (commands.ts), run here, on the owner: what a shard does with one from main. */
  command<K extends CommandName>(name: K, payload: PayloadOf<K>): Promise<ReplyOf<K>> {
    const spec = commandSpec(name);
    if (spec !== undefined && isEnded(this.rec)) return Promise.resolve(spec.over as ReplyOf<K>);
    return runCommand(this, name, payload, this.deps.clock.now()) as Promise<ReplyOf<K>>;
  }

  // ---- handlers -------------------------------------------------------------------------------

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
  private async onMove(seat: Seat, moves: readonly string[], at: number, seen: number | null, version: number | undefined, creditMs: number, reply: GiveVerdict): Promise<void> {
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
    const started = creditedStart(rec.clockStartedAt, creditMs, at);
    if (outOfTime(decisionLimitMs(rec.clocks, seat, this.cfg.unlimitedCapMs), started, at)) {
      await this.end(lossFor(seat, 'Timeout'));
      return reply(GAME_OVER);
    }
    if (!plausibleMoves(moves) || !treeHasPath(tree.bytes, moves)) {
      await this.rejected(seat, `illegal turn: ${describeMoves(Array.isArray(moves) ? moves : [])}`);
      return reply(ILLEGAL_TURN);
    }
    this.cancelTimer();
    const { next, played, entry, kingCaptured, halfmove } = playedTurn(rec, rec.dice, tree.dfen, seat, moves, started, at);
    const applied: MoveVerdict = { applied: true, version: next.version, reason: null };
    this.answered.played(seat, this.rollVersion, rec.version, entry.moves, applied);
    if (kingCaptured) {
      await this.end(winFor(seat, 'KingCaptured'), next, [played]);
      return reply(applied);
    }
    if (this.drawn(halfmove, next.ply)) {
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
}
