// Swiss tiebreaks and the Swiss order of the standings. Units are the standings' points (game
// points: an encounter of k mirror pairs is worth 2k). Buchholz: the sum of the opponents' points,
// one term per encounter. Sonneborn–Berger: the sum over encounters of the share of the encounter's
// points the player scored times that opponent's points (a chess win counts the opponent's whole
// score, a draw half of it). A bye is an encounter with a virtual opponent (FIDE handbook C.07, the
// virtual opponent of unplayed rounds): he has the player's own points from before that round, loses
// that round (the bye scores as a win), and draws every later round played so far (up to the last
// round with a finished pair or a bye), so his points are P_before + (E / 2) × (last round − bye
// round), with E the points of one encounter and P_before the player's points from earlier rounds
// (finished pairs and byes); the bye counts
// as a win against him in Sonneborn–Berger. Only finished pairs count.
import type { TournamentPairRecord, TournamentRecord } from '../../domain/tournaments.js';
import { seedOrder } from './seeding.js';

interface Meeting {
  round: number;
  opponent: number;
  /** Game points the player scored against him in this encounter's finished pairs. */
  scored: number;
  /** Finished pairs of the encounter. */
  pairs: number;
}

export interface Tiebreaks {
  buchholz: number;
  sonnebornBerger: number;
}

/** Every player's encounters, kept pair by pair (the scheduler's tally adds each finished pair once). */
export class SwissMeetings {
  private readonly byPlayer = new Map<number, Map<string, Meeting>>();
  /** The last round with a finished pair. */
  private lastRound = 0;

  /** Adds a finished pair. */
  add(p: TournamentPairRecord): void {
    this.lastRound = Math.max(this.lastRound, p.round);
    const a = (p.scores[0] ?? 0) + (p.scores[1] ?? 0);
    this.note(p.a, p.b, p.round, a);
    this.note(p.b, p.a, p.round, 2 - a);
  }

  private note(player: number, opponent: number, round: number, scored: number): void {
    const mine = this.byPlayer.get(player) ?? new Map<string, Meeting>();
    const key = `${round}/${opponent}`;
    const m = mine.get(key) ?? { round, opponent, scored: 0, pairs: 0 };
    m.scored += scored;
    m.pairs++;
    mine.set(key, m);
    this.byPlayer.set(player, mine);
  }

  /** Each player's tiebreaks, from everyone's points (byes included) and the event's byes. */
  tiebreaks(ev: TournamentRecord, points: ReadonlyMap<number, number>): Map<number, Tiebreaks> {
    const perEncounter = 2 * ev.pairsPerEncounter;
    const lastRound = ev.byes.reduce((m, [r]) => Math.max(m, r), this.lastRound);
    const players = new Set([...points.keys(), ...this.byPlayer.keys()]);
    const out = new Map<number, Tiebreaks>();
    for (const player of players) {
      const met = [...(this.byPlayer.get(player)?.values() ?? [])];
      let buchholz = 0;
      let sb = 0;
      for (const m of met) {
        const theirs = points.get(m.opponent) ?? 0;
        buchholz += theirs;
        sb += (m.scored / (2 * m.pairs)) * theirs;
      }
      for (const [round, who] of ev.byes) {
        if (who !== player) continue;
        const before = met.reduce((s, m) => s + (m.round < round ? m.scored : 0), 0)
          + ev.byes.filter(([r, p]) => p === player && r < round).length * perEncounter;
        const virtual = before + (perEncounter / 2) * (lastRound - round);
        buchholz += virtual;
        sb += virtual;
      }
      out.set(player, { buchholz, sonnebornBerger: sb });
    }
    return out;
  }
}

interface Ranked {
  player: number;
  points: number;
  buchholz: number | null;
  sonnebornBerger: number | null;
}

/**
 * Fills in the tiebreaks and orders the rows: a Swiss by points, Buchholz, Sonneborn–Berger, then
 * seed; the other formats by points, then entry order (their tiebreaks stay null).
 */
export function rankRows<R extends Ranked>(ev: TournamentRecord, rows: R[], meetings: SwissMeetings): R[] {
  if (ev.format !== 'swiss') return rows.sort((p, q) => q.points - p.points || p.player - q.player);
  const tb = meetings.tiebreaks(ev, new Map(rows.map((r) => [r.player, r.points])));
  for (const r of rows) {
    r.buchholz = tb.get(r.player)?.buchholz ?? 0;
    r.sonnebornBerger = tb.get(r.player)?.sonnebornBerger ?? 0;
  }
  const seed = new Map(seedOrder(ev).map((p, i) => [p, i]));
  const seedOf = (p: number) => seed.get(p) ?? ev.players.length + p;
  return rows.sort(
    (p, q) => q.points - p.points || q.buchholz! - p.buchholz! || q.sonnebornBerger! - p.sonnebornBerger! || seedOf(p.player) - seedOf(q.player),
  );
}
