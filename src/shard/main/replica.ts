// A live game as the main thread sees it when its actor runs in a shard: a read model kept current
// by the shard's `update`s, answering every read synchronously (state, history, legal moves, the
// Snapshot of a new subscriber), and the place where the game's subscribers on this thread (ndjson
// streams, webhook deliveries, the account hub's listeners) get its already-encoded event lines.
// Commands go to the shard through `send`; the actor there decides.
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../domain/log.js';
import type { GameRecord } from '../../domain/records.js';
import type { GameEvent } from '../../domain/types.js';
import type { EventFrame, GameHandle, GameSubscriber } from '../../game/types.js';
import { Subscribers } from '../../game/subscribers.js';
import { commandSpec, type CommandName, type PayloadOf, type ReplyOf } from '../../game/commands.js';
import { GameView, PendingTree, isEnded } from '../../game/view.js';
import { GameHandleBase } from '../../game/handle-base.js';
import { movesJson } from '../../wire/encode.js';
import { treeJsonOfLine, type ShardReply, type TreeWire } from '../protocol/messages.js';
import { PublishedTree } from './tree-texts.js';

/** What a replica asks of its owner: send a game command (any, by name) to the game's shard. */
export interface ReplicaLink {
  /** Resolves with the command's reply, or its `lost` answer when none came. */
  command(id: string, name: string, payload: unknown): Promise<unknown>;
  /** Asks the shard for the game's pending tree again; the replica's `treeArrived` follows. */
  refetchTree(id: string): void;
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

/**
 * The replica's pending tree: from the text sent, or from the text in the update's DiceRolled line.
 * Not found (never, by the shard's rule): it is asked of the shard when first read.
 */
function pendingOf(
  t: TreeWire | null, cap: number, refetch: () => void, lines: readonly [number, string][] = [],
): PendingTree | null {
  if (t === null) return null;
  let text: Uint8Array | string | undefined = t.text;
  for (let i = 0; text === undefined && i < lines.length; i++) text = treeJsonOfLine(lines[i][1]);
  return new PublishedTree(t.dfen, t.leaves, text, cap, refetch);
}

/** The bytes of a GET /games/{id}/moves body around a tree's text, which is copied once and not parsed. */
function movesBodyOf(version: number, dfen: string, tree: Uint8Array): Uint8Array {
  const around = movesJson(version, dfen, true, '');
  return Buffer.concat([Buffer.from(around.slice(0, -1), 'utf8'), tree, Buffer.from('}', 'utf8')]);
}

/** Rounds of asking the owner for a large tree's text before a read gives up (the store is thrashing). */
const REFETCH_TRIES = 3;

export class GameReplica extends GameHandleBase implements GameHandle {
  protected view: GameView;
  /** The `seq` of the last update applied (0 at the announcement): the next one must be seq + 1. */
  seq = 0;
  /** A `sync` is on its way: updates wait for it (they are dropped; the sync covers them). */
  syncing = false;
  /** The owner's newest `seq` as its last `heads` told; still ahead of `seq` at the next: resync. */
  headSeq = 0;
  /** Read by tests that check a subscription was released. */
  readonly subs: Subscribers;
  /** Reads waiting for a large tree's text asked of the shard again. */
  private treeWaiters: (() => void)[] = [];
  /** The tree was asked of the shard and has not come yet (one request at a time). */
  private treeAsked = false;

  constructor(
    rec: GameRecord,
    tree: TreeWire | null,
    private readonly link: ReplicaLink,
    private readonly clock: Clock,
    private readonly cap: number,
    log: Logger,
  ) {
    super();
    this.view = this.viewOf(rec, this.pendingOf(tree));
    this.subs = new Subscribers(rec.id, log);
  }

  private pendingOf(t: TreeWire | null, lines?: readonly [number, string][]): PendingTree | null {
    return pendingOf(t, this.cap, () => this.askTree(), lines);
  }

  private askTree(): void {
    if (this.treeAsked) return;
    this.treeAsked = true;
    this.link.refetchTree(this.id);
  }

  private viewOf(rec: GameRecord, tree: PendingTree | null): GameView {
    return new GameView(rec, tree, this.cap, this.clock);
  }

  // ---- commands: to the shard --------------------------------------------------------------------

  /** Any game command: to the game's shard, whose actor runs it; an ended game answers at once. */
  command<K extends CommandName>(name: K, payload: PayloadOf<K>): Promise<ReplyOf<K>> {
    const spec = commandSpec(name);
    if (spec === undefined) return Promise.reject(new Error(`unknown game command ${name}`));
    if (!this.isActive()) return Promise.resolve(spec.over as ReplyOf<K>);
    return this.link.command(this.id, name, payload) as Promise<ReplyOf<K>>;
  }

  protected now(): number {
    return this.clock.now();
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
    const tree = u.tree === undefined ? this.view.tree : this.pendingOf(u.tree, u.lines);
    // The roll this game has moved past: its tree leaves the shared caches now rather than by age.
    if (tree !== this.view.tree) this.view.tree?.release();
    this.view = this.viewOf(rec, tree);
    if (u.lines.length > 0) this.subs.publish(u.lines.map(([v, line]) => new LineFrame(v, line)));
    if (isEnded(rec)) this.closeSubscribers();
  }

  /** A whole record again (the shard restarted and resumed the game). */
  reset(rec: GameRecord, tree: TreeWire | null): void {
    this.view.tree?.release();
    this.view = this.viewOf(rec, this.pendingOf(tree));
  }

  /**
   * The pending tree asked of the shard again came (`tree`, at the version this replica holds, or
   * undefined when the game moved on meanwhile), or the asking failed: the reads waiting try again.
   */
  treeArrived(tree?: TreeWire | null): void {
    if (tree !== undefined) {
      const was = this.view.tree;
      this.view = this.viewOf(this.view.rec, this.pendingOf(tree));
      was?.release();
    }
    this.treeAsked = false;
    const waiters = this.treeWaiters;
    this.treeWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * The body of GET /games/{id}/moves as bytes around the owner's text of a tree over the inline cap,
   * with its version; null (at once) for any other game, whose body is small (movesJson). When main
   * let the text go, it waits for the shard to send it again.
   */
  movesBody(): Promise<{ version: number; bytes: Uint8Array }> | null {
    return this.hasLargeTree() ? this.largeMovesBody() : null;
  }

  private hasLargeTree(): boolean {
    const tree = this.view.tree;
    return tree instanceof PublishedTree && tree.large;
  }

  private async largeMovesBody(): Promise<{ version: number; bytes: Uint8Array }> {
    for (let i = 0; i < REFETCH_TRIES; i++) {
      const view = this.view;
      // The game moved on while this read waited: its body now is the ordinary one.
      if (!this.hasLargeTree()) return { version: view.rec.version, bytes: Buffer.from(view.movesJson(), 'utf8') };
      const tree = view.tree as PublishedTree;
      const text = tree.text(); // asks the shard when missing
      if (text !== undefined) return { version: view.rec.version, bytes: movesBodyOf(view.rec.version, tree.dfen, text) };
      await new Promise<void>((resolve) => this.treeWaiters.push(resolve));
    }
    throw new Error(`the legal-move tree of game ${this.id} could not be had from its shard`);
  }

  /** The sync asked for arrived, failed or timed out. */
  syncDone(): void {
    this.syncing = false;
  }

  /** Streams and other subscribers on this replica now. */
  get subscriberCount(): number {
    return this.subs.size;
  }

  /** Ends every subscription (the game ended, the server stops, or its shard was lost). */
  closeSubscribers(): void {
    this.subs.closeAll();
  }
}
