// The half of a game actor that holds its state and shows it: the current record and pending tree
// behind one GameView (view.ts, the read model it shares with ended games), subscribers, and
// `commit`, the one path by which a new record is persisted and only then published. GameActor
// (actor.ts) adds the commands on top; nothing here runs outside the actor's mailbox except the reads.
import type { GameRecord, ResultRecord } from '../domain/records.js';
import type { Clock } from '../domain/clock.js';
import type { GameEvent, Seat } from '../domain/types.js';
import type { GameStore } from '../store/types.js';
import type { EventFrame, GameSubscriber } from './types.js';
import { Subscribers } from './subscribers.js';
import type { GameConfig, GameLog } from './game-config.js';
import { withDefaults } from './game-config.js';
import type { PairLink } from './mirror-pair.js';
import { CommandedGame } from './player-commands.js';
import { GameView, PendingTree, asFrame, isEnded, isTurnPlayed, refusedMoveSeat } from './view.js';

export interface ActorDeps {
  store: GameStore;
  clock: Clock;
  config: GameConfig;
  log: GameLog;
  /** Called once, after GameEnded is published and subscribers are closed. */
  onEnded?: (game: ActorCore, rec: GameRecord) => void;
  /** The lockstep of a mirror pair, for ladder games (mirror-pair.ts). */
  pair?: PairLink;
  /** Called with the time (seconds) each roll's legal-move tree took to build, and the tree. */
  onTree?: (gameId: string, seconds: number, bytes: Uint8Array) => void;
  /** Called after each TurnPlayed is published. */
  onTurn?: () => void;
  /** Called after each Rejected event that refuses a move (not a seed) is published, with its seat. */
  onRefused?: (seat: Seat) => void;
  /**
   * Called at every adopted version, before its frames reach this actor's subscribers: a shard
   * forwards the version to the main thread from here. `treeChanged`: the pending tree is not the
   * previous version's.
   */
  onShow?: (game: ActorCore, rec: GameRecord, tree: PendingTree | null, treeChanged: boolean, frames: EventFrame[]) => void;
}

export abstract class ActorCore extends CommandedGame {
  /** The current record and tree, replaced whole at every version. */
  protected view: GameView;
  protected readonly cfg: Required<GameConfig>;
  protected readonly subs: Subscribers;

  constructor(rec: GameRecord, protected readonly deps: ActorDeps) {
    super();
    this.cfg = withDefaults(deps.config);
    this.view = this.viewOf(rec, null);
    this.subs = new Subscribers(rec.id, deps.log);
  }

  /** The current record: never mutated, replaced whole (the store may hold on to what it was given). */
  protected get rec(): GameRecord { return this.view.rec; }
  /** The published pending roll's tree; null when no decision is pending. */
  protected get tree(): PendingTree | null { return this.view.tree; }

  protected now(): number {
    return this.deps.clock.now();
  }

  subscribe(sub: GameSubscriber): { snapshot: EventFrame; ended: EventFrame | null; unsubscribe(): void } {
    // Built and registered in one synchronous step: no event can fall between the two.
    const snapshot = this.view.snapshotFrame();
    if (isEnded(this.rec)) return { snapshot, ended: this.view.endedFrame(), unsubscribe: () => {} };
    return { snapshot, ended: null, unsubscribe: this.subs.add(sub) };
  }

  // ---- persistence and publication ----------------------------------------------------------------

  /**
   * Persist, adopt, then publish: nobody sees an event the store does not hold. Every change of
   * record goes through here. A final record is written with its result lines in one store call, and
   * its GameEnded follows `events`. `clockFromPublication`: the mover's clock starts when the roll is
   * published, not when its write began.
   */
  protected async commit(
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
  protected show(next: GameRecord, tree: PendingTree | null, events: (GameEvent | EventFrame)[]): void {
    const treeChanged = tree !== this.view.tree;
    this.adopt(next, tree);
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

  /** Makes `next` the current state: a new view, so every cache made for the previous one is gone. */
  private adopt(next: GameRecord, tree: PendingTree | null): void {
    if (this.view.tree !== tree) this.view.tree?.release();
    this.view = this.viewOf(next, tree);
  }

  private viewOf(rec: GameRecord, tree: PendingTree | null): GameView {
    return new GameView(rec, tree, this.cfg.inlineLeafCap, this.deps.clock);
  }

  /** The frames of one version, to every subscriber (a TurnPlayed counted first). */
  protected publish(frames: EventFrame[]): void {
    if (this.deps.onTurn !== undefined) for (const f of frames) if (isTurnPlayed(f)) this.deps.onTurn();
    this.subs.publish(frames);
    if (this.deps.onRefused !== undefined) {
      for (const f of frames) {
        const seat = refusedMoveSeat(f.line);
        if (seat !== null) this.deps.onRefused(seat);
      }
    }
  }

  protected closeSubscribers(): void {
    this.subs.closeAll();
  }
}
