// What the event routes and the scheduler look events up by, kept in memory beside the records so
// that none of them reads every event ever stored: the pending and running events, the newest
// events, and each bot's newest events (hosted or playing). Fed with every head the store writes or
// (in a cluster) sees another node write. Finished events are read by id, on demand, and only the
// newest TOURNAMENT_INDEX_DEPTH of each list are remembered, so the memory is bounded by the open
// events and the bots, not by the events kept.
import { inPlay, type TournamentListing, type TournamentPlayer, type TournamentState } from '../domain/tournaments.js';

/** Events remembered per list (all, and each bot's): the most one page of a list shows. */
export const TOURNAMENT_INDEX_DEPTH = 100;

/** What the index reads of a head (or of a record stored whole by an earlier version). */
export interface IndexedHead {
  id: string;
  host: string;
  state: TournamentState;
  createdAt: number;
  players: Pick<TournamentPlayer, 'id'>[];
}

interface Dated {
  id: string;
  createdAt: number;
}

/** Open: pending, running, or cancelling while its pairs still play (the scheduler looks after those). */
const isOpen = (s: TournamentState): boolean => s === 'pending' || inPlay(s);
/** Newest first: later creation first, then the larger id (a total order both stores agree on). */
const before = (a: Dated, b: Dated): boolean => a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);

export class TournamentIndex {
  private readonly open = new Map<string, TournamentListing>();
  /** Of the open events: grows with every write of one seen (so a copy kept elsewhere can be checked). */
  private readonly revisions = new Map<string, number>();
  private readonly newest: Dated[] = [];
  private readonly byBot = new Map<string, Dated[]>();

  /** A head was stored (here, or by another node). */
  stored(h: IndexedHead): void {
    if (isOpen(h.state)) {
      this.open.set(h.id, { id: h.id, host: h.host, state: h.state, createdAt: h.createdAt });
      this.revisions.set(h.id, (this.revisions.get(h.id) ?? 0) + 1);
    } else {
      this.open.delete(h.id);
      this.revisions.delete(h.id);
    }
    const dated = { id: h.id, createdAt: h.createdAt };
    insert(this.newest, dated);
    for (const bot of new Set([h.host, ...(h.players ?? []).map((p) => p.id)])) {
      let list = this.byBot.get(bot);
      if (!list) this.byBot.set(bot, (list = []));
      insert(list, dated);
    }
  }

  /** Some other part of the event (a pair, a queue chunk) was stored. */
  touched(id: string): void {
    const r = this.revisions.get(id);
    if (r !== undefined) this.revisions.set(id, r + 1);
  }

  /** Pending, running and cancelling events, oldest first. */
  openEvents(): TournamentListing[] {
    return [...this.open.values()].sort((a, b) => (before(a, b) ? 1 : before(b, a) ? -1 : 0));
  }

  /** Undefined unless the event is open (pending, running or cancelling). */
  revision(id: string): number | undefined {
    return this.revisions.get(id);
  }

  /** Ids of the newest events (those `bot` hosts or plays in), newest first. */
  recent(limit: number, bot?: string): string[] {
    const list = bot === undefined ? this.newest : this.byBot.get(bot) ?? [];
    return list.slice(0, Math.max(0, limit)).map((d) => d.id);
  }
}

/** Puts an event into a newest-first list kept at most TOURNAMENT_INDEX_DEPTH long (unless there already or too old). */
function insert(list: Dated[], d: Dated): void {
  if (list.some((x) => x.id === d.id)) return;
  let i = 0;
  while (i < list.length && before(list[i], d)) i++;
  if (i >= TOURNAMENT_INDEX_DEPTH) return;
  list.splice(i, 0, d);
  if (list.length > TOURNAMENT_INDEX_DEPTH) list.length = TOURNAMENT_INDEX_DEPTH;
}
