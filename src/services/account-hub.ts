// The account event hub behind GET /bot/stream/event. Transport-free: a sink is anything with
// send(line). Several connections of one identity are allowed and all receive every event; nothing
// is kept for identities that are not connected (streams are live only).
//
// In a cluster a bot's streams may be held on another node: an optional AccountRemote (built in
// src/cluster/sharing/account-bus.ts; this file knows no transport) carries each event to the other nodes and
// says whether the identity holds a stream elsewhere. Events that come in from the other nodes are
// handed to deliver(), which reaches this node's connections only.
import type { GameRecord } from '../domain/records.js';
import type { AccountEvent } from '../domain/types.js';
import type { GameHandle, GameLifecycleListener } from '../game/types.js';
import { eventLine } from '../wire/encode.js';
import { gameFinishEvent, gameStartEvent, perSeat } from './account-events.js';

export interface AccountSink {
  /** Receives one ndjson line (JSON + '\n'). Backpressure and cut-off are the transport's job. */
  send(line: string): void;
  /** Ends the connection cleanly (server shutdown). */
  close?(): void;
}

/** The other nodes of a cluster, as the hub sees them (all calls are fire-and-forget and never throw). */
export interface AccountRemote {
  /** The other nodes' connections of this identity should get this line too. */
  publish(principalId: string, line: string): void;
  /** The first connection of this identity opened on this node. */
  attached(principalId: string): void;
  /** The last connection of this identity on this node closed. */
  detached(principalId: string): void;
  /** Whether another node holds an account stream of this identity. */
  isOnline(principalId: string): boolean;
}

export class AccountHub implements GameLifecycleListener {
  private readonly sinks = new Map<string, Set<AccountSink>>();

  /** Without `remote` (the single-machine server) the hub is what it always was: this process only. */
  constructor(private readonly remote?: AccountRemote) {}

  /** Attaches a connection; the returned function detaches it (calling it twice is harmless). */
  subscribe(principalId: string, sink: AccountSink): () => void {
    let set = this.sinks.get(principalId);
    if (!set) {
      set = new Set();
      this.sinks.set(principalId, set);
      this.remote?.attached(principalId);
    }
    set.add(sink);
    return () => this.detach(principalId, sink);
  }

  /** Serialises once and hands the same line to every connection of this identity, here and on the other nodes. */
  publish(principalId: string, event: AccountEvent): void {
    const local = this.sinks.get(principalId);
    if (!this.remote && (!local || local.size === 0)) return;
    const line = eventLine(event);
    this.deliver(principalId, line);
    this.remote?.publish(principalId, line);
  }

  /** Hands a serialised event to this node's connections of the identity only (events from other nodes). */
  deliver(principalId: string, line: string): void {
    const set = this.sinks.get(principalId);
    if (!set || set.size === 0) return;
    // Copy first: a sink may unsubscribe itself while being served.
    for (const sink of [...set]) {
      try {
        sink.send(line);
      } catch {
        // A sink must not throw; if one does, drop that connection rather than starve the others.
        this.detach(principalId, sink);
      }
    }
  }

  /** Whether the identity holds at least one account stream (ChallengeView.targetOnline). */
  isOnline(principalId: string): boolean {
    return (this.sinks.get(principalId)?.size ?? 0) > 0 || (this.remote?.isOnline(principalId) ?? false);
  }

  /** Number of open account streams on this node (for metrics). */
  connections(): number {
    let n = 0;
    for (const set of this.sinks.values()) n += set.size;
    return n;
  }

  /**
   * GameStart to both seats, however the game was made (challenge, seek, ladder). In a cluster every
   * node sees every game start; tell only the hub of the node that owns the game's shard (its event
   * reaches the other nodes through the remote), or each connection would get one per node.
   */
  gameStarted(game: GameHandle): void {
    for (const [id, event] of perSeat(game, (seat) => gameStartEvent(game, seat))) this.publish(id, event);
  }

  /** GameFinish to both seats; in a cluster, as for gameStarted, only the owner's hub is told. */
  gameEnded(_game: GameHandle, record: GameRecord): void {
    for (const [id, event] of perSeat(record, (seat) => gameFinishEvent(record, seat))) this.publish(id, event);
  }

  /** Server shutdown: ends every connection cleanly and forgets them. */
  closeAll(): void {
    const all = [...this.sinks.values()].flatMap((set) => [...set]);
    const principals = [...this.sinks.keys()];
    this.sinks.clear();
    for (const id of principals) this.remote?.detached(id);
    for (const sink of all) {
      try {
        sink.close?.();
      } catch {
        // Shutting down regardless.
      }
    }
  }

  private detach(principalId: string, sink: AccountSink): void {
    const set = this.sinks.get(principalId);
    if (!set) return;
    set.delete(sink);
    if (set.size === 0) {
      this.sinks.delete(principalId);
      this.remote?.detached(principalId);
    }
  }
}
