// The event records both the API (EventService) and the scheduler (EventScheduler) change: every
// change of one event is a read-modify-write queued behind the previous one, so the two never
// overwrite each other's work. Also the live followers of GET /events/{id}/stream.
import type { EventRecord } from '../../domain/events.js';
import type { Store } from '../../store/types.js';

export interface EventSink {
  /** One ndjson line (JSON + '\n'). */
  send(line: string): void;
  close(): void;
}

export class EventBook {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly followers = new Map<string, Set<EventSink>>();

  constructor(readonly store: Store) {}

  get(id: string): EventRecord | undefined {
    return this.store.getEvent(id);
  }

  /**
   * Applies `change` to the stored record, in order with every other change of that event, and
   * stores what it returns (null: nothing to store). Resolves with the record as it stands after.
   */
  modify<T>(id: string, change: (ev: EventRecord) => { next: EventRecord | null; value: T }): Promise<{ ev: EventRecord | undefined; value: T | undefined }> {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const run = prev.then(async () => {
      const ev = this.store.getEvent(id);
      if (!ev) return { ev: undefined, value: undefined };
      const { next, value } = change(ev);
      if (next) await this.store.putEvent(next);
      return { ev: next ?? ev, value };
    });
    const settled = run.catch(() => undefined);
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return run;
  }

  follow(id: string, sink: EventSink): () => void {
    let set = this.followers.get(id);
    if (!set) this.followers.set(id, (set = new Set()));
    set.add(sink);
    return () => {
      set.delete(sink);
      if (set.size === 0 && this.followers.get(id) === set) this.followers.delete(id);
    };
  }

  /** Sends one line to every follower of the event; `last` closes their streams after it. */
  publish(id: string, value: unknown, last = false): void {
    const set = this.followers.get(id);
    if (!set) return;
    const line = `${JSON.stringify(value)}\n`;
    for (const sink of [...set]) {
      sink.send(line);
      if (last) sink.close();
    }
    if (last) this.followers.delete(id);
  }

  closeAll(): void {
    for (const set of this.followers.values()) for (const sink of set) sink.close();
    this.followers.clear();
  }
}
