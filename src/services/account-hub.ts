// The account event hub behind GET /bot/stream/event. Transport-free: a sink is anything with
// send(line). Several connections of one identity are allowed and all receive every event; nothing
// is kept for identities that are not connected (streams are live only).
import type { AccountEvent } from '../domain/types.js';
import type { GameHandle, GameLifecycleListener } from '../game/types.js';
import { eventLine } from '../wire/encode.js';

export interface AccountSink {
  /** Receives one ndjson line (JSON + '\n'). Backpressure and cut-off are the transport's job. */
  send(line: string): void;
  /** Ends the connection cleanly (server shutdown). */
  close?(): void;
}

export class AccountHub implements GameLifecycleListener {
  private readonly sinks = new Map<string, Set<AccountSink>>();

  /** Attaches a connection; the returned function detaches it (calling it twice is harmless). */
  subscribe(principalId: string, sink: AccountSink): () => void {
    let set = this.sinks.get(principalId);
    if (!set) {
      set = new Set();
      this.sinks.set(principalId, set);
    }
    set.add(sink);
    return () => this.detach(principalId, sink);
  }

  /** Serialises once and hands the same line to every connection of this identity. */
  publish(principalId: string, event: AccountEvent): void {
    const set = this.sinks.get(principalId);
    if (!set || set.size === 0) return;
    const line = eventLine(event);
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
    return (this.sinks.get(principalId)?.size ?? 0) > 0;
  }

  /** Number of open account streams (for metrics). */
  connections(): number {
    let n = 0;
    for (const set of this.sinks.values()) n += set.size;
    return n;
  }

  /** GameStart to both seats, however the game was made (challenge, seek, ladder). */
  gameStarted(game: GameHandle): void {
    const event: AccountEvent = { GameStart: { gameId: game.id } };
    this.publish(game.white.id, event);
    if (game.black.id !== game.white.id) this.publish(game.black.id, event);
  }

  /** Server shutdown: ends every connection cleanly and forgets them. */
  closeAll(): void {
    const all = [...this.sinks.values()].flatMap((set) => [...set]);
    this.sinks.clear();
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
    if (set.size === 0) this.sinks.delete(principalId);
  }
}
