// What the events' live games weigh, and on whom. The live-game index counts a game against the
// bots seated in it only, so without this a host that does not play (house bots against each other)
// would hold games no cap sees. Counted here from the event records: every host carries the live
// games of its events it does not sit in (GameAdmission adds them to its own), its pairs between
// two house bots, and the server all its event games. A game counts from its pair's start until its
// result is recorded, so the counts may over-state for a moment, never under-state.
import { pairRunning, type TournamentRecord } from '../../domain/tournaments.js';

interface Weight {
  host: string;
  /** Where the event was created from (none for an older record). */
  address: string | undefined;
  /** Live games of this event's running pairs in which the host does not sit. */
  hosted: number;
  /** Running pairs between two house bots. */
  housePairs: number;
  /** Live games of this event. */
  games: number;
}

const bump = (m: Map<string, number>, k: string, by: number) => {
  const n = (m.get(k) ?? 0) + by;
  if (n > 0) m.set(k, n);
  else m.delete(k);
};

export class TournamentLoad {
  private readonly byEvent = new Map<string, Weight>();
  private readonly hosted = new Map<string, number>();
  private readonly housePairs = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();
  private games = 0;

  constructor(private readonly isHouse: (botId: string) => boolean) {}

  /** Weighs every event anew (a scheduler pass's look at all the records). */
  reset(events: readonly TournamentRecord[]): void {
    this.byEvent.clear();
    this.hosted.clear();
    this.housePairs.clear();
    this.byAddress.clear();
    this.games = 0;
    for (const ev of events) this.update(ev);
  }

  /** Weighs one event anew from its record (after a change of its pairs). */
  update(ev: TournamentRecord): void {
    const old = this.byEvent.get(ev.id);
    if (old) this.apply(old, -1);
    const w = this.weigh(ev);
    if (w.games === 0 && w.housePairs === 0) this.byEvent.delete(ev.id);
    else {
      this.byEvent.set(ev.id, w);
      this.apply(w, 1);
    }
  }

  /** Live event games charged to this identity besides those it sits in: its events' games. */
  hostedBy(id: string): number {
    return this.hosted.get(id) ?? 0;
  }

  /** Running pairs between two house bots over this host's events. */
  housePairsOf(host: string): number {
    return this.housePairs.get(host) ?? 0;
  }

  /** Live games of the events created from this address (whichever hosts made them). */
  fromAddress(address: string): number {
    return this.byAddress.get(address) ?? 0;
  }

  /** Live games of all events on this server. */
  total(): number {
    return this.games;
  }

  /** Whether both players of a pair are house bots (the server playing itself). */
  housePair(ev: TournamentRecord, a: number, b: number): boolean {
    return this.isHouse(ev.players[a].id) && this.isHouse(ev.players[b].id);
  }

  private weigh(ev: TournamentRecord): Weight {
    const w: Weight = { host: ev.host, address: ev.hostAddress, hosted: 0, housePairs: 0, games: 0 };
    for (const p of ev.pairs) {
      if (!p.games || !pairRunning(p)) continue;
      const live = p.scores.filter((s) => s === null).length;
      w.games += live;
      if (ev.players[p.a].id !== ev.host && ev.players[p.b].id !== ev.host) w.hosted += live;
      if (this.housePair(ev, p.a, p.b)) w.housePairs++;
    }
    return w;
  }

  private apply(w: Weight, sign: 1 | -1): void {
    bump(this.hosted, w.host, sign * w.hosted);
    bump(this.housePairs, w.host, sign * w.housePairs);
    if (w.address !== undefined) bump(this.byAddress, w.address, sign * w.games);
    this.games += sign * w.games;
  }
}
