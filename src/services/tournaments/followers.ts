// The event records both the API (TournamentService) and the scheduler (TournamentScheduler) change: every
// change of one event is a read-modify-write queued behind the previous one, so the two never
// overwrite each other's work. Also the live followers of GET /events/{id}/stream.
//
// Pending and running events are kept here as last stored, so that a change reads nothing and
// writes only what it changed (the store is given the version it replaces). A kept copy is used only
// while the store's revision of the event is the one seen at its write: in a cluster another node
// may have written the event since (an accept, a cancel), and then it is read again. Finished events
// are not kept: they are read from the store when asked for.
import { inPlay, type TournamentListing, type TournamentRecord } from '../../domain/tournaments.js';
import type { Store } from '../../store/types.js';

export interface TournamentSink {
  /** One ndjson line (JSON + '\n'). */
  send(line: string): void;
  /** One line made in pieces as it goes out (a large event's view); lines sent meanwhile follow it. */
  pump(pieces: Iterator<string>): void;
  /** Closes the stream once what was sent has gone out. */
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
  /** Pending and running events as last stored or read here, with the store's revision of each then. */
  private readonly open = new Map<string, { ev: TournamentRecord; revision: number | undefined }>();

  constructor(
    readonly store: Store,
    private readonly remote?: TournamentFollowersRemote,
  ) {}

  get(id: string): TournamentRecord | undefined {
    const kept = this.open.get(id);
    if (kept && kept.revision !== undefined && kept.revision === this.store.tournamentRevision(id)) return kept.ev;
    const ev = this.store.getTournament(id);
    this.keep(id, ev);
    return ev;
  }

  /** Whether the event exists, without reading a finished one whole. */
  exists(id: string): boolean {
    return this.open.has(id) || this.store.getTournamentHead(id) !== undefined;
  }

  /** Pending, running and cancelling events, oldest first (from the store's index: no finished event is read). */
  listing(): TournamentListing[] {
    return this.store.openTournaments();
  }

  /** The events whose pairs the scheduler looks after (running, or cancelling while pairs still play), oldest first. Copies of events no longer open are dropped on the way. */
  inPlay(): TournamentRecord[] {
    const listed = this.listing();
    const ids = new Set(listed.map((e) => e.id));
    for (const id of this.open.keys()) if (!ids.has(id)) this.open.delete(id);
    return listed.flatMap((e) => {
      const ev = inPlay(e.state) ? this.get(e.id) : undefined;
      return ev && inPlay(ev.state) ? [ev] : [];
    });
  }

  private keep(id: string, ev: TournamentRecord | undefined): void {
    if (ev && (ev.state === 'pending' || inPlay(ev.state))) this.open.set(id, { ev, revision: this.store.tournamentRevision(id) });
    else this.open.delete(id);
  }

  /**
   * Applies `change` to the stored record, in order with every other change of that event, and
   * stores what it returns (null: nothing to store). Resolves with the record as it stands after.
   * `change` must not alter the record it is given: it returns a new one, made of new objects for
   * what changed and the same objects for the rest (that is how the store tells what to write).
   */
  modify<T>(id: string, change: (ev: TournamentRecord) => { next: TournamentRecord | null; value: T }): Promise<{ ev: TournamentRecord | undefined; value: T | undefined }> {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const run = prev.then(async () => {
      const ev = this.get(id);
      if (!ev) return { ev: undefined, value: undefined };
      const { next, value } = change(ev);
      if (next) {
        this.open.delete(id); // until stored: a failed write must not leave a copy the store lacks
        await this.store.putTournament(next, ev);
        this.keep(id, next);
      }
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
