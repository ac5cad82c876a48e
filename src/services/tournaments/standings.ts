// Standings and per-encounter statistics of an event, recomputed from its pair list (the server's
// views and `dicechess verify-event` both call this, so they cannot disagree by construction; the
// statistics themselves are checked against an independent implementation in the tests).
import { pairFinished, type TournamentPairRecord, type TournamentRecord, type GameScore } from '../../domain/tournaments.js';
import { pairStats, sprtReport, type PairStats, type SprtReport } from './stats.js';
import { rankRows, SwissMeetings } from './tiebreaks.js';

export interface StandingRow {
  player: number;
  points: number;
  games: number;
  wins: number;
  draws: number;
  losses: number;
  pairs: number;
  byes: number;
  timeLosses: number;
  /** Moves of this player the server refused (not its turn, an illegal turn) while the event ran. */
  refusedMoves: number;
  /** Swiss only (null otherwise): tiebreaks, in points (tiebreaks.ts). */
  buchholz: number | null;
  sonnebornBerger: number | null;
}

const flip = (s: GameScore): GameScore => (1 - s) as GameScore;

/** What a finished pair counts in its players' rows. */
export type PairCounts = Pick<StandingRow, 'points' | 'games' | 'wins' | 'draws' | 'losses' | 'pairs' | 'timeLosses'>;

/**
 * Adds one finished pair to its two players' rows: a pair, two games with their points, wins, draws
 * and losses, and each time loss. `rowOf` gives the row a player's counts go to (kept by the caller).
 * The views (tournamentTables) and the scheduler's running tally (tally.ts) both count with it.
 */
export function countPair(p: TournamentPairRecord, rowOf: (player: number) => PairCounts): void {
  const [x, y] = p.scores as [GameScore, GameScore];
  for (const [who, scores] of [[p.a, [x, y]], [p.b, [flip(x), flip(y)]]] as const) {
    const r = rowOf(who);
    r.pairs++;
    for (const s of scores) {
      r.games++;
      r.points += s;
      if (s === 1) r.wins++;
      else if (s === 0) r.losses++;
      else r.draws++;
    }
  }
  for (const loser of p.timeLosses) rowOf(loser).timeLosses++;
}

export interface EncounterStats extends PairStats {
  /** Player indexes; statistics are from the first one's side. */
  players: [number, number];
  /** Game ids of its finished pairs, pair by pair ([first player White, first player Black]). */
  games: [string, string][];
  sprt: SprtReport | null;
}

export interface TournamentTables {
  standings: StandingRow[];
  encounters: EncounterStats[];
  /** SPRT only: the LLR after each finished pair, in finishing order. */
  llrHistory: number[];
}

/** A pair is finished once both of its games have a result. */


/**
 * The standings (ranked by points, then entry order; a Swiss by points, Buchholz, Sonneborn–Berger,
 * then seed) and every encounter's statistics. A Swiss bye scores as if the player had won every
 * game of that round's encounter (2 points per pair).
 */
export function tournamentTables(ev: TournamentRecord): TournamentTables {
  const rows = new Map<number, StandingRow>();
  ev.players.forEach((p, i) => {
    if (p.accepted === true) rows.set(i, { player: i, points: 0, games: 0, wins: 0, draws: 0, losses: 0, pairs: 0, byes: 0, timeLosses: 0, refusedMoves: 0, buchholz: null, sonnebornBerger: null });
  });
  const row = (i: number): StandingRow => rows.get(i) ?? { player: i, points: 0, games: 0, wins: 0, draws: 0, losses: 0, pairs: 0, byes: 0, timeLosses: 0, refusedMoves: 0, buchholz: null, sonnebornBerger: null };
  const finished = ev.pairs.filter(pairFinished).sort((x, y) => x.finishedSeq - y.finishedSeq);
  const meetings = new SwissMeetings();
  const byEncounter = new Map<string, { players: [number, number]; scores: [GameScore, GameScore][]; games: [string, string][] }>();
  for (const p of finished) {
    const [x, y] = p.scores as [GameScore, GameScore];
    countPair(p, (i) => {
      const r = row(i);
      rows.set(i, r);
      return r;
    });
    meetings.add(p);
    // Statistics are kept from the side of the lower-numbered player of the two.
    const first = Math.min(p.a, p.b);
    const key = `${first}-${Math.max(p.a, p.b)}`;
    const enc = byEncounter.get(key) ?? { players: [first, Math.max(p.a, p.b)] as [number, number], scores: [], games: [] };
    enc.scores.push(first === p.a ? [x, y] : [flip(x), flip(y)]);
    enc.games.push(p.games ?? ['', '']);
    byEncounter.set(key, enc);
  }
  (ev.refused ?? []).forEach((n, who) => {
    if (n === 0) return;
    const r = row(who);
    r.refusedMoves += n;
    rows.set(who, r);
  });
  for (const [, player] of ev.byes) {
    const r = row(player);
    r.byes++;
    r.points += 2 * ev.pairsPerEncounter;
    rows.set(player, r);
  }
  const llrHistory: number[] = [];
  if (ev.sprt) {
    const counts = [0, 0, 0, 0, 0];
    for (const p of finished) {
      const s = (p.scores[0]! + p.scores[1]!) / 2;
      // The SPRT is on the first player's side (player 0 against player 1).
      counts[Math.round((p.a === Math.min(p.a, p.b) ? s : 1 - s) * 4)]++;
      llrHistory.push(sprtReport(counts, ev.sprt).llr);
    }
  }
  const encounters = [...byEncounter.values()].map((e) => ({
    players: e.players,
    games: e.games,
    ...pairStats(e.scores),
    sprt: ev.sprt ? sprtReport(pairStats(e.scores).pentanomial, ev.sprt) : null,
  }));
  const standings = rankRows(ev, [...rows.values()], meetings);
  return { standings, encounters, llrHistory };
}
