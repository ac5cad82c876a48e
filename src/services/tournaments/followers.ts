// The event records both the API (TournamentService) and the scheduler (TournamentScheduler) change: every
// change of one event is a read-modify-write queued behind the previous one, so the two never
// overwrite each other's work. Also the live followers of GET /events/{id}/stream.
import type { TournamentRecord } from '../../domain/tournaments.js';
import type { Store } from '../../store/types.js';

export interface TournamentSink {
  /** One ndjson line (JSON + '\n'). */
  send(line: string): void;
  close(): void;
}

/**
 * The other nodes of a cluster, for the followers (src/cluster/sharing/tournament-bus.ts): the event scheduler
 * runs on one node, the followers of an event's stream may be on any.
 */
export interface TournamentFollowersRemote {
  /** The other nodes' followers of the event should get this line too (`last`: then close). */
  publish(id: string, line: string, last: boolean): void;
  /** The first follower of the event on this node came. */
  attached(id: string): void;
  /** The last follower of the event on this node left. */
  detached(id: string): void;
}

export class TournamentFollowers {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly followers = new Map<string, Set<TournamentSink>>();

  constructor(
    readonly store: Store,
    private readonly remote?: TournamentFollowersRemote,
  ) {}

  get(id: string): TournamentRecord | undefined {
    return this.store.getTournament(id);
  }

  /**
   * Applies `change` to the stored record, in order with every other change of that event, and
   * stores what it returns (null: nothing to store). Resolves with the record as it stands after.
   */
  modify<T>(id: string, change: (ev: TournamentRecord) => { next: TournamentRecord | null; value: T }): Promise<{ ev: TournamentRecord | undefined; value: T | undefined }> {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const run = prev.then(async () => {
      const ev = this.store.getTournament(id);
      if (!ev) return { ev: undefined, value: undefined };
      const { next, value } = change(ev);
      if (next) await this.store.putTournament(next);
      return { ev: next ?? ev, value };
    });
    const settled = run.catch(() => undefined);
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return run;
  }

  follow(id: string, sink: TournamentSink): () => void {
    let set = this.followers.get(id);
    if (!set) {
      this.followers.set(id, (set = new Set()));
      this.remote?.attached(id);
    }
    set.add(sink);
    return () => {
      set.delete(sink);
      if (set.size === 0 && this.followers.get(id) === set) {
        this.followers.delete(id);
        this.remote?.detached(id);
      }
    };
  }

  /** Sends one line to every follower of the event, here and on the other nodes; `last` closes their streams after it. */
  publish(id: string, value: unknown, last = false): void {
    if (!this.remote && !this.followers.has(id)) return;
    const line = `${JSON.stringify(value)}\n`;
    this.deliver(id, line, last);
    this.remote?.publish(id, line, last);
  }

  /** Sends a line to this node's followers only (lines from the other nodes). */
  deliver(id: string, line: string, last: boolean): void {
    const set = this.followers.get(id);
    if (!set) return;
    for (const sink of [...set]) {
      sink.send(line);
      if (last) sink.close();
    }
    if (last && this.followers.get(id) === set) {
      this.followers.delete(id);
      this.remote?.detached(id);
    }
  }

  closeAll(): void {
    for (const set of this.followers.values()) for (const sink of set) sink.close();
    const ids = [...this.followers.keys()];
    this.followers.clear();
    for (const id of ids) this.remote?.detached(id);
  }
}
