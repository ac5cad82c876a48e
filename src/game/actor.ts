// One actor per game: the only writer of that game's state. Everything that can change a game is a
// message in its bounded serial mailbox (mailbox.ts): the players' commands (seed, move, resign, from
// the command table in commands.ts) and the actor's own events (the opening roll, a resumed game, a
// decision's time running out, a mirror-pair partner catching up). `process` is the one dispatch
// table: one case per message, each handled by a named method below. A handler computes the next
// record and its events with the pure modules (rolls.ts, turns.ts, clocks.ts, endings.ts), then
// `commit` persists the record and only then publishes the events, each serialised once. Reads are
// synchronous, from the current GameView (view.ts), and never touch the mailbox.
import { legalTree, parseDfen, treeHasPath, withDice } from '../engine/index.js';
import { hexToSeed } from '../fair/index.js';
import type { GameRecord, ResultRecord } from '../domain/records.js';
import type { Clock, TimerHandle } from '../domain/clock.js';
import type { GameEvent, GameOver, MoveVerdict, Seat } from '../domain/types.js';
import { SEED_REJECT_REASON, isValidSeed } from '../domain/rules.js';
import type { GameStore } from '../store/types.js';
import type { EventFrame, GameHandle, GameSubscriber } from './types.js';
import type { GameConfig, GameLog } from './game-config.js';
import { withDefaults } from './game-config.js';
import type { PairLink } from './mirror-pair.js';
import { Mailbox } from './mailbox.js';
import { Subscribers } from './subscribers.js';
import { AnsweredTurns } from './retries.js';
import { GameHandleBase } from './handle-base.js';
import { commandSpec, runCommand, type CommandName, type CommandTarget, type PayloadOf, type ReplyOf } from './commands.js';
import { creditedStart, decisionLimitMs, elapsedMs, outOfTime } from './clocks.js';
import { drawBy, drawnAt, finalRecord, lossFor, resultsOf, winFor } from './endings.js';
import { forcedPass, must, pendingRoll, rollOf, sharing } from './rolls.js';
import { playedTurn } from './turns.js';
import { GAME_OVER, ILLEGAL_TURN, NOT_YOUR_TURN, describeMoves, plausibleMoves } from './verdicts.js';
import { GameView, PendingTree, asFrame, isEnded, isTurnPlayed, refusedMoveSeat, rolledFrame } from './view.js';

export interface ActorDeps {
  store: GameStore;
  clock: Clock;
  config: GameConfig;
  log: GameLog;
  /** Called once, after GameEnded is published and subscribers are closed. */
  onEnded?: (game: GameActor, rec: GameRecord) => void;
  /** The lockstep of a mirror pair, for ladder games (mirror-pair.ts). */
  pair?: PairLink;
  /** Called with the time (seconds) each roll's legal-move tree took to build, and the tree. */
  onTree?: (gameId: string, seconds: number, bytes: Uint8Array) => void;
  /** Called after each TurnPlayed is published. */
  onTurn?: () => void;
  /** Called after each Rejected event that refuses a move (not a seed) is published, with its seat. */
  onRefused?: (seat: Seat) => void;
  /**
   * Called at every committed version, before its frames reach this actor's subscribers: a shard
   * forwards the version to the main thread from here. `treeChanged`: the pending tree is not the
   * previous version's.
   */
  onShow?: (game: GameActor, rec: GameRecord, tree: PendingTree | null, treeChanged: boolean, frames: EventFrame[]) => void;
}

/** How a move handler hands its verdict back (once). */
type GiveVerdict = (v: MoveVerdict | 'busy') => void;

/** The messages of the mailbox: one per thing that can change the game. */
type Message =
  /** A seat's client seed (the `seed` command). */
  | { t: 'seed'; seat: Seat; seed: string }
  /** A turn (the `move` command); `reply` takes its verdict. See onMove. */
  | { t: 'move'; seat: Seat; moves: readonly string[]; at: number; rollPly: number | null; version: number | undefined; creditMs: number; reply: GiveVerdict }
  /** A seat resigns (the `resign` command). */
  | { t: 'resign'; seat: Seat }
  /** Both seeds are in, or the seed grace is over: the opening roll. */
  | { t: 'opening' }
  /** A game read back from the store: continue where it was persisted. */
  | { t: 'resume' }
  /** The timer of the decision pending at roll `ply` fired: the mover may be out of time. */
  | { t: 'expire'; ply: number }
  /** The mirror-pair partner reached roll `ply`: the roll this game held back may be made. */
  | { t: 'wake'; ply: number };

export class GameActor extends GameHandleBase implements GameHandle, CommandTarget {
  /** The current record and tree, replaced whole at every version. */
  protected view: GameView;
  private readonly cfg: Required<GameConfig>;
  private readonly subs: Subscribers;
  private readonly mailbox: Mailbox;
  private timer: TimerHandle | null = null;
  private stopping = false;
  /** Each seat's last applied turn, for retries (in memory: a restart forgets it). */
  private readonly answered = new AnsweredTurns();
  /** The `v` of the pending roll's DiceRolled (a resumed roll: the version it was resumed at). */
  private rollVersion = 0;
  /** Seats with a resignation queued (see takeResign), as bits: 1 White, 2 Black. */
  private resignQueued = 0;

  constructor(rec: GameRecord, private readonly deps: ActorDeps) {
    super();
    this.cfg = withDefaults(deps.config);
    this.view = this.viewOf(sharing(rec), null);
    this.subs = new Subscribers(rec.id, deps.log);
    // `this.id`, not `rec.id`: the closure would keep the first record alive for the game's life.
    this.mailbox = new Mailbox(this.cfg.mailboxSize, (e) => this.deps.log.error({ gameId: this.id, err: String(e) }, 'mailbox task failed'));
    // Checked now, decoded at each roll: 32 bytes are not worth an object per game.
    if (!hexToSeed(rec.serverSeed)) throw new Error(`game ${rec.id}: malformed server seed`);
  }

  /** The current record: never mutated, replaced whole (the store may hold on to what it was given). */
  private get rec(): GameRecord { return this.view.rec; }
  /** The published pending roll's tree; null when no decision is pending. */
  private get tree(): PendingTree | null { return this.view.tree; }

  protected now(): number {
    return this.deps.clock.now();
  }

  // ---- the command table's side (CommandTarget): what players send --------------------------------

  /** Any command of the table (commands.ts), run here, on the owner: what a shard does with one from main. */
  command<K extends CommandName>(name: K, payload: PayloadOf<K>): Promise<ReplyOf<K>> {
    const spec = commandSpec(name);
    if (spec !== undefined && isEnded(this.rec)) return Promise.resolve(spec.over as ReplyOf<K>);
    return runCommand(this, name, payload, this.deps.clock.now()) as Promise<ReplyOf<K>>;
  }

  /** The `seed` command: queued, answered at once. */
  takeSeed(seat: Seat, seed: string): void {
    if (isEnded(this.rec) || this.stopping) return;
    if (!this.post({ t: 'seed', seat, seed }, true)) this.deps.log.warn({ gameId: this.id, seat }, 'mailbox full: seed dropped');
  }

  /**
   * The `move` command: `at` is when the move reaches this actor, on the owner's clock, which charges
   * the mover; `rollPly` the roll pending where the move was received (null when none was), `version`
   * the roll the mover says it answers (see onMove), `creditMs` see GameHandle.move.
   */
  moveAt(seat: Seat, moves: readonly string[], at: number, rollPly: number | null, version?: number, creditMs = 0): Promise<MoveVerdict | 'busy'> {
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
      if (!this.post({ t: 'move', seat, moves, at, rollPly, version, creditMs, reply }, true)) reply('busy');
    });
  }

  /** The `resign` command. */
  takeResign(seat: Seat): void {
    const bit = seat === 'White' ? 1 : 2;
    if (isEnded(this.rec) || this.stopping || (this.resignQueued & bit) !== 0) return;
    // Bypasses the mailbox bound (one per seat at most): a resignation must never be dropped.
    this.resignQueued |= bit;
    this.post({ t: 'resign', seat });
  }

  // ---- the registry's side: a game's life ------------------------------------------------------

  /** A new game: wait for seeds, at most the grace period, then roll (at once when both are set). */
  start(): void {
    const { white, black } = this.rec.clientSeeds;
    // Ladder games come with server-chosen client seeds: there is nothing to wait for.
    if (white !== null && black !== null) this.post({ t: 'opening' });
    else this.setTimer(this.cfg.seedGraceMs, { t: 'opening' });
  }

  /** A game read back from the store after a restart: continue exactly where it was persisted. */
  resume(): void {
    this.post({ t: 'resume' });
  }

  /** Cancels timers, lets the running command finish, closes subscribers. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.cancelTimer();
    await this.mailbox.idle();
    this.subs.closeAll();
  }

  /** Resolves when no command is waiting or running (tests and shutdown). */
  idle(): Promise<void> {
    return this.mailbox.idle();
  }

  /** The published pending roll's tree (a shard hands it to main with a resumed game). */
  pendingTree(): PendingTree | null {
    return this.tree;
  }

  subscribe(sub: GameSubscriber): { snapshot: EventFrame; ended: EventFrame | null; unsubscribe(): void } {
    // Built and registered in one synchronous step: no event can fall between the two.
    const snapshot = this.view.snapshotFrame();
    if (isEnded(this.rec)) return { snapshot, ended: this.view.endedFrame(), unsubscribe: () => {} };
    return { snapshot, ended: null, unsubscribe: this.subs.add(sub) };
  }

  // ---- the mailbox and its dispatch table --------------------------------------------------------

  /**
   * Queues a message. `bounded` (what players send): refused when the mailbox is full, and the
   * caller answers for it; the actor's own messages always get in (they are bounded by construction).
   */
  private post(m: Message, bounded = false): boolean {
    const task = (): Promise<void> => this.receive(m);
    if (bounded) return this.mailbox.offer(task);
    this.mailbox.push(task);
    return true;
  }

  /** Runs one message: a failure aborts the game; a move gets a verdict whatever happened. */
  private async receive(m: Message): Promise<void> {
    try {
      await this.process(m);
    } catch (e) {
      await this.abort(e);
    } finally {
      if (m.t === 'move') m.reply(isEnded(this.rec) ? GAME_OVER : 'busy');
    }
  }

  /** The dispatch table: one handler per message. */
  private process(m: Message): Promise<void> {
    switch (m.t) {
      case 'seed': return this.onSeed(m.seat, m.seed);
      case 'move': return this.onMove(m);
      case 'resign': return this.onResign(m.seat);
      case 'opening': return this.onOpening();
      case 'resume': return this.onResume();
      case 'expire': return this.onExpire(m.ply);
      case 'wake': return this.onWake(m.ply);
    }
  }

  // ---- handlers ----------------------------------------------------------------------------------

  private async onSeed(seat: Seat, seed: string): Promise<void> {
    if (isEnded(this.rec)) return;
    if (!isValidSeed(seed)) return this.rejected(seat, SEED_REJECT_REASON);
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
  private async onMove(m: Extract<Message, { t: 'move' }>): Promise<void> {
    const { seat, moves, version, reply } = m;
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
    if (!tree || rec.dice === null || !pending || (version === undefined && m.rollPly !== rec.ply)) {
      await this.rejected(seat, NOT_YOUR_TURN.reason!);
      return reply(NOT_YOUR_TURN);
    }
    const started = creditedStart(rec.clockStartedAt, m.creditMs, m.at);
    if (outOfTime(decisionLimitMs(rec.clocks, seat, this.cfg.unlimitedCapMs), started, m.at)) {
      await this.end(lossFor(seat, 'Timeout'));
      return reply(GAME_OVER);
    }
    if (!plausibleMoves(moves) || !treeHasPath(tree.bytes, moves)) {
      await this.rejected(seat, `illegal turn: ${describeMoves(Array.isArray(moves) ? moves : [])}`);
      return reply(ILLEGAL_TURN);
    }
    this.cancelTimer();
    const { next, played, entry, kingCaptured, halfmove } = playedTurn(rec, rec.dice, tree.dfen, seat, moves, started, m.at);
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

  private async onResign(seat: Seat): Promise<void> {
    this.resignQueued &= seat === 'White' ? ~1 : ~2;
    if (!isEnded(this.rec)) await this.end(lossFor(seat, 'Resign'));
  }

  private async onOpening(): Promise<void> {
    if (isEnded(this.rec) || this.rec.ply !== 0) return;
    await this.roll();
  }

  private async onResume(): Promise<void> {
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
  }

  /** The clock flag: the mover loses on time unless the decision has been made or time was added. */
  private async onExpire(rollPly: number): Promise<void> {
    const rec = this.rec;
    if (isEnded(rec) || !this.tree || rec.ply !== rollPly) return;
    const limit = decisionLimitMs(rec.clocks, rec.activeSeat, this.cfg.unlimitedCapMs);
    if (!outOfTime(limit, rec.clockStartedAt, this.deps.clock.now())) return this.armExpiry();
    await this.end(lossFor(rec.activeSeat, 'Timeout'));
  }

  /** The partner caught up: make the roll this game was holding back, unless something moved on. */
  private async onWake(ply: number): Promise<void> {
    const rec = this.rec;
    if (isEnded(rec) || this.tree !== null || rec.dice !== null || rec.ply !== ply) return;
    await this.roll();
  }

  /** A refusal is an event like any other: it takes a version and is persisted first. */
  private async rejected(seat: Seat, reason: string): Promise<void> {
    const v = this.rec.version + 1;
    await this.commit({ ...this.rec, version: v }, this.tree, [{ Rejected: { v, seat, reason } }]);
  }

  // ---- rolls ----------------------------------------------------------------------------------

  /** Rolls for the side to move; plays forced passes at once and rolls again, until a decision is pending. */
  private async roll(): Promise<void> {
    for (;;) {
      if (isEnded(this.rec) || this.stopping) return;
      const base = this.rec;
      // A mirror pair's game waits here, clock stopped, until its partner reaches the same roll.
      const ply = base.ply;
      if (this.deps.pair && !this.deps.pair.mayRoll(this.id, ply, () => this.wake(ply))) return;
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

  /** The mirror pair's call when the partner has caught up (it only queues). */
  private wake(ply: number): void {
    if (!this.stopping) this.post({ t: 'wake', ply });
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
    return drawnAt(halfmove, rollsMade, this.cfg.maxRolls);
  }

  // ---- endings ------------------------------------------------------------------------------------

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
    this.subs.closeAll();
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

  // ---- persistence and publication ----------------------------------------------------------------

  /**
   * Persist, commit, then publish: nobody sees an event the store does not hold. Every change of
   * record goes through here. A final record is written with its result lines in one store call, and
   * its GameEnded follows `events`. `clockFromPublication`: the mover's clock starts when the roll is
   * published, not when its write began.
   */
  private async commit(
    next: GameRecord,
    tree: PendingTree | null,
    events: (GameEvent | EventFrame)[],
    how: { results?: ResultRecord[]; clockFromPublication?: boolean } = {},
  ): Promise<void> {
    if (how.results !== undefined) await this.deps.store.finishGame(next, how.results);
    else await this.deps.store.putGame(next);
    this.show(how.clockFromPublication ? { ...next, clockStartedAt: this.deps.clock.now() } : next, tree, events);
  }

  /**
   * Adopt and publish without writing: only for what the store already holds (a resumed roll) or
   * can no longer take (an abort the store refused).
   */
  private show(next: GameRecord, tree: PendingTree | null, events: (GameEvent | EventFrame)[]): void {
    const treeChanged = tree !== this.view.tree;
    // A new view, so every cache made for the previous one is gone; a roll moved past frees its tree.
    if (treeChanged) this.view.tree?.release();
    this.view = this.viewOf(next, tree);
    const frames = events.map(asFrame);
    const ended = this.view.endedFrame();
    if (ended !== null) frames.push(ended);
    if (this.deps.onShow !== undefined) {
      try {
        this.deps.onShow(this, this.view.rec, tree, treeChanged, frames);
      } catch (e) {
        this.deps.log.error({ gameId: this.id, err: String(e) }, 'version observer threw');
      }
    }
    this.publish(frames);
  }

  private viewOf(rec: GameRecord, tree: PendingTree | null): GameView {
    return new GameView(rec, tree, this.cfg.inlineLeafCap, this.deps.clock);
  }

  /** The frames of one version, to every subscriber (a TurnPlayed counted first). */
  private publish(frames: EventFrame[]): void {
    if (this.deps.onTurn !== undefined) for (const f of frames) if (isTurnPlayed(f)) this.deps.onTurn();
    this.subs.publish(frames);
    if (this.deps.onRefused !== undefined) {
      for (const f of frames) {
        const seat = refusedMoveSeat(f.line);
        if (seat !== null) this.deps.onRefused(seat);
      }
    }
  }

  // ---- timers ---------------------------------------------------------------------------------

  /** In `ms`, posts `m` (the one timer: a new one replaces it). */
  private setTimer(ms: number, m: Message): void {
    this.cancelTimer();
    if (this.stopping) return;
    this.timer = this.deps.clock.schedule(Math.max(0, ms), () => {
      this.timer = null;
      this.post(m);
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
    this.setTimer(limit - elapsedMs(rec.clockStartedAt, this.deps.clock.now()), { t: 'expire', ply: rec.ply });
  }
}
