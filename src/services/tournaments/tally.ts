// The standings and the SPRT of a running event kept pair by pair, for the scheduler: each finished
// pair is added once, instead of counting every pair again at each result (which made a 20,000-pair
// event quadratic). They give what tournamentTables (standings.ts) gives for the same pairs — the
// views and `dicechess verify-event` keep using that one, and a test holds the two equal.
import { pairFinished, type GameScore, type TournamentPairRecord, type TournamentRecord } from '../../domain/tournaments.js';
import { countPair, type PairCounts, type StandingRow } from './standings.js';
import { sprtReport, type SprtReport } from './stats.js';
import { rankRows, SwissMeetings } from './tiebreaks.js';

const zero = (): PairCounts => ({ points: 0, games: 0, wins: 0, draws: 0, losses: 0, pairs: 0, timeLosses: 0 });

export class TournamentTally {
  /** Finished pairs added so far. */
  counted = 0;
  private readonly rows = new Map<number, PairCounts>();
  /** Pentanomial counts of the pairs, from the side of the lower-numbered player (the SPRT's side). */
  private readonly pentanomial = [0, 0, 0, 0, 0];
  /** Who met whom, for a Swiss's tiebreaks. */
  private readonly meetings = new SwissMeetings();

  /** A tally of every finished pair of the event, in finishing order. */
  static of(ev: TournamentRecord): TournamentTally {
    const t = new TournamentTally();
    for (const p of ev.pairs.filter(pairFinished).sort((x, y) => x.finishedSeq - y.finishedSeq)) t.add(p);
    return t;
  }

  /** Adds a finished pair. */
  add(p: TournamentPairRecord): void {
    const [x, y] = p.scores as [GameScore, GameScore];
    countPair(p, (i) => {
      let r = this.rows.get(i);
      if (r === undefined) this.rows.set(i, (r = zero()));
      return r;
    });
    this.meetings.add(p);
    const sum = p.a < p.b ? x + y : 2 - x - y;
    this.pentanomial[Math.round(sum * 2)]++;
    this.counted++;
  }

  /** The standings as tournamentTables ranks them (tiebreaks.ts). */
  standings(ev: TournamentRecord): StandingRow[] {
    const rows = new Map<number, StandingRow>();
    const row = (i: number): StandingRow => {
      let r = rows.get(i);
      if (!r) rows.set(i, (r = { player: i, ...(this.rows.get(i) ?? zero()), byes: 0, refusedMoves: 0, buchholz: null, sonnebornBerger: null }));
      return r;
    };
    ev.players.forEach((p, i) => p.accepted === true && row(i));
    for (const i of this.rows.keys()) row(i);
    (ev.refused ?? []).forEach((n, i) => n > 0 && (row(i).refusedMoves += n));
    for (const [, player] of ev.byes) {
      const r = row(player);
      r.byes++;
      r.points += 2 * ev.pairsPerEncounter;
    }
    return rankRows(ev, [...rows.values()], this.meetings);
  }

  /** The SPRT after the pairs added (null for other formats). */
  sprt(ev: TournamentRecord): SprtReport | null {
    return ev.sprt ? sprtReport(this.pentanomial, ev.sprt) : null;
  }
}

/** The tallies of the running events, counted afresh whenever one is not where the record is. */
export class Tallies {
  private readonly byEvent = new Map<string, TournamentTally>();

  /** The tally of `ev` with `finished` pairs added (its pairs finished so far). */
  of(ev: TournamentRecord, finished: number): TournamentTally {
    let t = this.byEvent.get(ev.id);
    if (!t || t.counted !== finished) this.byEvent.set(ev.id, (t = TournamentTally.of(ev)));
    return t;
  }

  forget(id: string): void {
    this.byEvent.delete(id);
  }

  /** Forgets the tallies of events not in `running` (ended, or cancelled by their host). */
  retain(running: ReadonlySet<string>): void {
    for (const id of this.byEvent.keys()) if (!running.has(id)) this.byEvent.delete(id);
  }
}
