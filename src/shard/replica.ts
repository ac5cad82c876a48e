// A live game as the main thread sees it when its actor runs in a shard: a read model kept current
// by the shard's `update`s, answering every read synchronously (state, history, legal moves, the
// Snapshot of a new subscriber), and the place where the game's subscribers on this thread (ndjson
// streams, webhook deliveries, the account hub's listeners) get its already-encoded event lines.
// Commands go to the shard through `send`; the actor there decides.
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../domain/log.js';
import type { GameRecord } from '../domain/records.js';
import { GAME_OVER } from '../domain/rules.js';
import type { GameEvent, MoveVerdict, Seat } from '../domain/types.js';
import type { EventFrame, GameHandle, GameSubscriber } from '../game/types.js';
import { Subscribers } from '../game/subscribers.js';
import { GameView, PendingTree, ViewedGame, isEnded } from '../game/view.js';
import { treeJsonOfLine, type ShardReply, type TreeWire } from './protocol.js';

/** What a replica asks of its owner: send a command to the game's shard. */
export interface ReplicaLink {
  move(id: string, seat: Seat, moves: string[], at: number, seen: number | null, version?: number, creditMs?: number): Promise<MoveVerdict | 'busy'>;
  seed(id: string, seat: Seat, seed: string): void;
  resign(id: string, seat: Seat): void;
}

/** A published event as main received it: the line as the shard encoded it, parsed only on demand. */
class LineFrame implements EventFrame {
  private parsed: GameEvent | undefined;

  constructor(readonly v: number, readonly line: string) {}

  get event(): GameEvent {
    this.parsed ??= JSON.parse(this.line) as GameEvent;
    return this.parsed;
  }
}

/** The replica's pending tree: from the JSON sent, or from the JSON in the update's DiceRolled line. */
function pendingOf(t: TreeWire | null, lines: readonly [number, string][] = []): PendingTree | null {
  if (t === null) return null;
  if (t.json !== undefined) return new PendingTree(t.dfen, null, t.leaves, t.json);
  for (const [, line] of lines) {
    const json = treeJsonOfLine(line);
    if (json !== undefined) return new PendingTree(t.dfen, null, t.leaves, json);
  }
  // Not found (never, by the shard's rule): the bytes are rebuilt from the DFEN when first read.
  return new PendingTree(t.dfen, null, t.leaves);
}

export class GameReplica extends ViewedGame implements GameHandle {
  protected view: GameView;
  /** The `seq` of the last update adopted (0 at the announcement): the next one must be seq + 1. */
  seq = 0;
  /** A `sync` is on its way: updates wait for it (they are dropped; the sync covers them). */
  syncing = false;
  /** The owner's newest `seq` as its last `heads` told; still ahead of `seq` at the next: resync. */
  headSeq = 0;
  /** Read by tests that check a subscription was released. */
  readonly subs: Subscribers;

  constructor(
    rec: GameRecord,
    tree: TreeWire | null,
    private readonly link: ReplicaLink,
    private readonly clock: Clock,
    private readonly cap: number,
    private readonly log: Logger,
  ) {
    super();
    this.view = this.viewOf(rec, pendingOf(tree));
    this.subs = new Subscribers(rec.id, log);
  }

  private viewOf(rec: GameRecord, tree: PendingTree | null): GameView {
    return new GameView(rec, tree, this.cap, this.clock);
  }

  // ---- commands: to the shard --------------------------------------------------------------------

  seed(seat: Seat, seed: string): void {
    if (this.isActive()) this.link.seed(this.id, seat, seed);
  }

  move(seat: Seat, moves: readonly string[], version?: number, creditMs?: number): Promise<MoveVerdict | 'busy'> {
    // Received now: the clock stops here, and the roll pending here is the one the mover answers.
    const at = this.clock.now();
    if (!this.isActive()) return Promise.resolve(GAME_OVER);
    const rec = this.view.rec;
    return this.link.move(this.id, seat, [...moves], at, this.view.tree ? rec.ply : null, version, creditMs);
  }

  resign(seat: Seat): void {
    if (this.isActive()) this.link.resign(this.id, seat);
  }

  subscribe(sub: GameSubscriber): { snapshot: EventFrame; ended: EventFrame | null; unsubscribe(): void } {
    const snapshot = this.view.snapshotFrame();
    if (isEnded(this.view.rec)) return { snapshot, ended: this.view.endedFrame(), unsubscribe: () => {} };
    return { snapshot, ended: null, unsubscribe: this.subs.add(sub) };
  }

  // ---- versions: from the shard ------------------------------------------------------------------

  /** The record a shard `update` describes (history joined to what this replica holds). */
  recordOf(u: Extract<ShardReply, { t: 'update' }>): GameRecord {
    const was = this.view.rec;
    const had = was.history;
    const history = u.hist.length === 0 && u.from === had.length ? had : had.slice(0, u.from).concat(u.hist);
    // The fixed fields stay as they were; an optional moving field absent from the head is unset.
    const { revealHeld: _held, ...fixed } = was;
    return { ...fixed, ...u.head, history };
  }

  /** Adopts the version (`rec` from recordOf) and publishes its lines, in order. */
  apply(u: Extract<ShardReply, { t: 'update' }>, rec: GameRecord): void {
    const tree = u.tree === undefined ? this.view.tree : pendingOf(u.tree, u.lines);
    // The roll this game has moved past: its tree leaves the shared caches now rather than by age.
    if (tree !== this.view.tree) this.view.tree?.release();
    this.view = this.viewOf(rec, tree);
    if (u.lines.length > 0) this.subs.publish(u.lines.map(([v, line]) => new LineFrame(v, line)));
    if (isEnded(rec)) this.closeSubscribers();
  }

  /** A whole record again (the shard restarted and resumed the game). */
  reset(rec: GameRecord, tree: TreeWire | null): void {
    this.view.tree?.release();
    this.view = this.viewOf(rec, pendingOf(tree));
  }

  /** The sync asked for arrived, failed or timed out. */
  syncDone(): void {
    this.syncing = false;
  }

  /** Ends every subscription (the game ended, the server stops, or its shard was lost). */
  closeSubscribers(): void {
    this.subs.closeAll();
  }
}
