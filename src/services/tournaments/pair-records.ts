// Small reads of a tournament record's pairs that the scheduler needs: a game's score from White's
// side, where the next pair goes, where a pair sits, a player's public face, and the line a finished
// pair publishes.
import type { GameRecord } from '../../domain/records.js';
import type { Termination } from '../../domain/types.js';
import type { GameScore, TournamentPairRecord, TournamentRecord } from '../../domain/tournaments.js';

/** Results of a game from White's side. */
export function whiteScore(rec: GameRecord): GameScore | null {
  if (!('Ended' in rec.status)) return null;
  const { result } = rec.status.Ended.over;
  // An aborted game (the server's failure) has a Draw result; its pair's attempt is then voided
  // rather than counted (withGameResult marks it, replays.ts voids it).
  if ('Win' in result) return result.Win.side === 'White' ? 1 : 0;
  return 0.5;
}

/** The pair with the result of its game `k` (White's score `white`), a time loss, and an abort marked. */
export function withGameResult(pair: TournamentPairRecord, k: number, white: GameScore, termination: Termination | undefined): TournamentPairRecord {
  // Game 0: the first player (a) is White; game 1: a is Black.
  const scoreA: GameScore = k === 0 ? white : ((1 - white) as GameScore);
  const scores: TournamentPairRecord['scores'] = k === 0 ? [scoreA, pair.scores[1]] : [pair.scores[0], scoreA];
  const timeLosses = [...pair.timeLosses];
  if (termination === 'Timeout') {
    const whiteLost = white === 0;
    const aWhite = k === 0;
    timeLosses.push(whiteLost === aWhite ? pair.a : pair.b);
  }
  return { ...pair, scores, timeLosses, ...(termination === 'Aborted' ? { aborted: true } : {}) };
}

/** The index the next pair started takes: one past the last stored (an index whose start failed stays unused). */
export const nextPairIndex = (ev: TournamentRecord): number => (ev.pairs.length === 0 ? 0 : ev.pairs[ev.pairs.length - 1].index + 1);

/** Where a pair of this index sits in the event's list (pairs are stored in index order, maybe with gaps). */
export const pairAt = (ev: TournamentRecord, index: number): number => ev.pairs.findIndex((p) => p.index === index);

export const face = (ev: TournamentRecord, i: number) => ({ team: ev.players[i].team, name: ev.players[i].name });

/** The stream's line for a pair just finished, with the standings (and the SPRT's LLR) after it. */
export function pairFinishedLine(
  ev: TournamentRecord,
  pair: TournamentPairRecord,
  standings: readonly { player: number; points: number; games: number }[],
  llr: number,
) {
  return {
    PairFinished: {
      eventId: ev.id,
      index: pair.index,
      round: pair.round,
      players: [face(ev, pair.a), face(ev, pair.b)],
      games: pair.games,
      scores: pair.scores,
      score: ((pair.scores[0] ?? 0) + (pair.scores[1] ?? 0)) / 2,
      standings: standings.map((s) => ({ ...face(ev, s.player), points: s.points, games: s.games })),
      ...(ev.sprt ? { llr, verdict: ev.verdict } : {}),
    },
  };
}
