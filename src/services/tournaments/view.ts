// What GET /events/{id} and the lists show of an event: built from the record alone (the standings
// and statistics recomputed from its pairs), with the seed only once it may be revealed.
import { diceOf, faceOfId, sprtModelOf, type TournamentHead, type TournamentRecord } from '../../domain/tournaments.js';
import { tournamentTables } from './standings.js';
import { pairsRunning, seedRevealed } from './reveal.js';
import { seedView } from './seeding.js';
import { ratingsView } from './ratings.js';
import { sprtBounds } from './stats.js';
import { BIAS_NOTE, SPRT_METHOD } from './sprt-verdict.js';
import { playerControlView } from './odds.js';

const faceOf = (p: { team: string; name: string }) => ({ team: p.team, name: p.name });

export function tournamentSummary(ev: TournamentHead) {
  return {
    ...headOf(ev),
    players: ev.players.length,
    pairsFinished: ev.pairsFinished,
    createdAt: ev.createdAt,
    verdict: ev.verdict,
    rated: ev.rated,
  };
}

export function tournamentView(ev: TournamentRecord) {
  const tables = tournamentTables(ev);
  const face = (i: number) => faceOf(ev.players[i]);
  return {
    ...headOf(ev),
    players: ev.players.map((p, i) => ({ ...faceOf(p), invitation: answerOf(p.accepted), withdrawn: p.withdrawn === true, ...seedView(ev, i), ...playerControlView(p) })),
    timeControl: ev.timeControl,
    pairsPerEncounter: ev.pairsPerEncounter,
    rounds: ev.rounds,
    // An SPRT stored before models existed shows the model it was run under.
    // With the method and the LLR bounds, an export holds all that re-deriving the verdict needs.
    sprt: ev.sprt ? { ...ev.sprt, model: sprtModelOf(ev.sprt), method: SPRT_METHOD, llrBounds: sprtBounds(ev.sprt.alpha, ev.sprt.beta) } : null,
    maxPairs: ev.maxPairs,
    concurrency: ev.concurrency,
    summaryEvery: ev.summaryEvery ?? null,
    rated: ev.rated,
    dice: diceOf(ev),
    commit: ev.commit,
    seed: seedRevealed(ev) ? ev.seed : null,
    pairsRunning: pairsRunning(ev),
    createdAt: ev.createdAt,
    startedAt: ev.startedAt,
    finishedAt: ev.finishedAt,
    verdict: ev.verdict,
    verdictAfter: ev.verdictAfter,
    note: ev.note,
    standings: tables.standings.map((r) => ({ ...face(r.player), ...withoutPlayer(r), withdrawn: ev.players[r.player].withdrawn === true })),
    encounters: tables.encounters.map((e) => ({
      players: [face(e.players[0]), face(e.players[1])],
      pairs: e.pairs,
      pentanomial: e.pentanomial,
      score: e.score,
      elo: e.elo,
      eloInterval: e.eloInterval,
      los: e.los,
      drawRatio: e.drawRatio,
      luck: e.luck,
      ...(e.sprt ? { llr: e.sprt.llr, bounds: e.sprt.bounds, verdict: ev.verdict, eloBiased: ev.verdict !== null } : {}),
      ...(e.sprt && ev.verdict !== null ? { biasNote: BIAS_NOTE } : {}),
    })),
    // Bradley–Terry ratings of a round-robin, gauntlet or Swiss (null otherwise, or before a pair finished).
    ratings: ratingsView(ev),
    llrHistory: tables.llrHistory,
    pairs: ev.pairs.map((p) => ({
      index: p.index,
      round: p.round,
      players: [face(p.a), face(p.b)],
      games: p.games,
      scores: p.scores,
      void: p.void === true,
      finishedSeq: p.finishedSeq,
      ...(p.replays ? { replays: p.replays } : {}),
      ...(p.voidReason ? { voidReason: p.voidReason } : {}),
    })),
    byes: ev.byes.map(([round, player]) => ({ round, ...face(player) })),
  };
}

/** What the list and the full view of an event both open with. */
const headOf = (ev: TournamentHead | TournamentRecord) => ({ eventId: ev.id, name: ev.name, format: ev.format, state: ev.state, host: faceOfId(ev.host) });

export const answerOf = (a: boolean | null | undefined): 'accepted' | 'declined' | 'invited' =>
  a === true ? 'accepted' : a === false ? 'declined' : 'invited';

function withoutPlayer<T extends { player: number }>(r: T): Omit<T, 'player'> {
  const { player: _player, ...rest } = r;
  return rest;
}
