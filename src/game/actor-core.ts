// The half of a game actor that holds its state and shows it: the current record and pending tree,
// the synchronous reads (with their per-version JSON caches), subscribers, and `commit`, the one
// path by which a new record is persisted and only then published. GameActor (actor.ts) adds the
// commands on top; nothing here runs outside the actor's mailbox except the reads.
import type { GameRecord } from '../domain/records.js';
import type { Clock } from '../domain/clock.js';
import type { Clocks, GameEvent, GameState, HistoryEntry, Seat, SeatPlayer, TimeControl } from '../domain/types.js';
import type { Store } from '../store/types.js';
import type { RulesPort } from '../pool/types.js';
import type { EventFrame, GameHandle, GameSubscriber, GameSummary, MovesView } from './types.js';
import type { GameConfig, GameLog } from './game-config.js';
import { withDefaults } from './game-config.js';
import { liveClocks } from './clocks.js';
import type { PairLink } from './mirror-pair.js';
import { HistoryJson, PendingTree, StateTemplate, buildState, frameOf, isEnded, snapshotFrame } from './view.js';

export interface ActorDeps {
  store: Store;
  rules: RulesPort;
  clock: Clock;
  config: GameConfig;
  log: GameLog;
  /** Called once, after GameEnded is published and subscribers are closed. */
  onEnded?: (game: GameHandle, rec: GameRecord) => void;
  /** The lockstep of a mirror pair, for ladder games (mirror-pair.ts). */
  pair?: PairLink;
  /** Called after each TurnPlayed is published. */
  onTurn?: () => void;
}

export abstract class ActorCore {
  /** The current record: never mutated, replaced whole (the store may hold on to what it was given). */
  protected rec: GameRecord;
  /** The published pending roll's tree; null when no decision is pending. */
  protected tree: PendingTree | null = null;
  protected readonly cfg: Required<GameConfig>;
  protected readonly subs = new Set<GameSubscriber>();
  protected endedFrame: EventFrame | null = null;
  private readonly history$: HistoryJson;
  private template: StateTemplate | null = null;
  private movesText: string | null = null;

  constructor(rec: GameRecord, protected readonly deps: ActorDeps) {
    this.rec = rec;
    this.cfg = withDefaults(deps.config);
    this.history$ = new HistoryJson(rec.history);
  }

  get id(): string { return this.rec.id; }
  get white(): SeatPlayer { return this.rec.white; }
  get black(): SeatPlayer { return this.rec.black; }
  get timeControl(): TimeControl { return this.rec.timeControl; }
  get rated(): boolean { return this.rec.rated; }

  seatOf(playerId: string): Seat | null {
    if (this.rec.white.id === playerId) return 'White';
    if (this.rec.black.id === playerId) return 'Black';
    return null;
  }

  isActive(): boolean {
    return !isEnded(this.rec);
  }

  /** The current record, as the store holds it. Read-only. */
  record(): GameRecord {
    return this.rec;
  }

  // ---- reads ----------------------------------------------------------------------------------

  private liveNow(): Clocks | null {
    return liveClocks(this.rec.clocks, this.rec.activeSeat, this.rec.clockStartedAt, this.deps.clock.now());
  }

  state(): GameState {
    return buildState(this.rec, this.tree, this.liveNow(), this.cfg.inlineLeafCap);
  }

  stateJson(): string {
    this.template ??= new StateTemplate(this.rec, this.tree, this.cfg.inlineLeafCap);
    return this.template.render(this.liveNow());
  }

  history(): HistoryEntry[] {
    return this.rec.history.slice();
  }

  summary(): GameSummary {
    const r = this.rec;
    return {
      gameId: r.id,
      white: r.white,
      black: r.black,
      timeControl: r.timeControl,
      activeSeat: r.activeSeat,
      dicePending: this.tree !== null,
      clocks: this.liveNow(),
      version: r.version,
      dfen: this.tree ? this.tree.dfen : r.fen,
    };
  }

  moves(): MovesView {
    return {
      version: this.rec.version,
      dfen: this.tree ? this.tree.dfen : this.rec.fen,
      dicePending: this.tree !== null,
      legalMovesJson: this.tree ? this.tree.fullJson() : '{}',
    };
  }

  movesJson(): string {
    if (this.movesText === null) {
      const m = this.moves();
      this.movesText =
        `{"version":${m.version},"dfen":${JSON.stringify(m.dfen)},"dicePending":${m.dicePending}` +
        `,"legalMoves":${m.legalMovesJson}}`;
    }
    return this.movesText;
  }

  subscribe(sub: GameSubscriber): { snapshot: EventFrame; ended: EventFrame | null; unsubscribe(): void } {
    // Built and registered in one synchronous step: no event can fall between the two.
    const snapshot = snapshotFrame(this.state(), this.stateJson(), this.rec.history, this.history$.text());
    if (isEnded(this.rec)) return { snapshot, ended: this.endedFrame, unsubscribe: () => {} };
    this.subs.add(sub);
    return { snapshot, ended: null, unsubscribe: () => void this.subs.delete(sub) };
  }

  // ---- persistence and publication ----------------------------------------------------------------

  /** Persist, adopt, then publish: nobody sees an event the store does not hold. */
  protected async commit(next: GameRecord, tree: PendingTree | null, events: GameEvent[]): Promise<void> {
    await this.deps.store.putGame(next);
    this.adopt(next, tree);
    for (const e of events) this.publish(frameOf(e));
  }

  /** Makes `next` the current state and drops every cache made for the previous one. */
  protected adopt(next: GameRecord, tree: PendingTree | null): void {
    for (let i = this.history$.count; i < next.history.length; i++) this.history$.append(next.history[i]);
    this.rec = next;
    this.tree = tree;
    this.template = null;
    this.movesText = null;
  }

  protected publish(frame: EventFrame): void {
    if (this.deps.onTurn !== undefined && 'TurnPlayed' in frame.event) this.deps.onTurn();
    for (const sub of [...this.subs]) {
      try {
        sub.deliver(frame);
      } catch (e) {
        // A broken subscriber is cut off; it never takes the actor down with it.
        this.subs.delete(sub);
        this.deps.log.warn({ gameId: this.id, err: String(e) }, 'subscriber threw; dropped');
        this.closeOne(sub);
      }
    }
  }

  protected closeSubscribers(): void {
    const subs = [...this.subs];
    this.subs.clear();
    for (const s of subs) this.closeOne(s);
  }

  private closeOne(sub: GameSubscriber): void {
    try {
      sub.close?.();
    } catch (e) {
      this.deps.log.warn({ gameId: this.id, err: String(e) }, 'subscriber close threw');
    }
  }
}
