// Swiss tiebreaks (src/services/tournaments/tiebreaks.ts) on a small event computed by hand, with the
// bye's virtual opponent of FIDE's tiebreak regulations (handbook C.07, unplayed rounds: the
// opponent has the player's points from before the round, loses that round and draws every later
// one), in the standings' units (an encounter of one mirror pair is worth 2 points).
import t from 'tap';
import type { GameScore, TournamentPairRecord } from '../../../src/domain/tournaments.js';
import { tournamentTables } from '../../../src/services/tournaments/standings.js';
import { TournamentTally } from '../../../src/services/tournaments/tally.js';
import { tournament } from '../../helpers/store-fixtures.js';

const pair = (index: number, round: number, a: number, b: number, scores: [GameScore, GameScore]): TournamentPairRecord => ({
  index, round, a, b, games: [`g${index}w`, `g${index}b`], scores, timeLosses: [], finishedSeq: index + 1,
});

t.test('Buchholz and Sonneborn–Berger of a three-player Swiss with a bye each round', async (t) => {
  // Round 1: A-B 1½–½, C bye. Round 2: A-C 1–1, B bye. Round 3: B-C 2–0, A bye.
  // Points: A 1.5 + 1 + 2 = 4.5; B 0.5 + 2 + 2 = 4.5; C 2 + 1 + 0 = 3.
  // Virtual opponents (last round 3): A's (round 3) 2.5 + 1 × 0 = 2.5; B's (round 2) 0.5 + 1 × 1 = 1.5;
  // C's (round 1) 0 + 1 × 2 = 2.
  // Buchholz: A 4.5 + 3 + 2.5 = 10; B 4.5 + 3 + 1.5 = 9; C 4.5 + 4.5 + 2 = 11.
  // Sonneborn–Berger: A ¾ × 4.5 + ½ × 3 + 2.5 = 7.375; B ¼ × 4.5 + 1 × 3 + 1.5 = 5.625;
  // C ½ × 4.5 + 0 × 4.5 + 2 = 4.25.
  const base = tournament('tb');
  const ev = tournament('tb', {
    over: {
      format: 'swiss', rounds: 3,
      players: [...base.players, { ...base.players[0], id: 'bot:team:tt:c', name: 'c' }],
      pairs: [pair(0, 1, 0, 1, [1, 0.5]), pair(1, 2, 2, 0, [0.5, 0.5]), pair(2, 3, 1, 2, [1, 1])],
      byes: [[1, 2], [2, 1], [3, 0]],
    },
  });
  const rows = tournamentTables(ev).standings;
  t.same(rows.map((r) => [r.player, r.points, r.buchholz, r.sonnebornBerger]), [[0, 4.5, 10, 7.375], [1, 4.5, 9, 5.625], [2, 3, 11, 4.25]], 'A ahead of B on Buchholz');
  t.same(TournamentTally.of(ev).standings(ev), rows, 'the scheduler’s tally agrees');
});

t.test('equal points and tiebreaks fall back to the seed; other formats keep entry order and no tiebreaks', async (t) => {
  const base = tournament('seed');
  const ev = tournament('seed', {
    over: { format: 'swiss', rounds: 1, pairs: [pair(0, 1, 0, 1, [1, 0])], seeding: [{ player: 1, rating: 1700 }, { player: 0, rating: 1500 }] },
  });
  t.same(tournamentTables(ev).standings.map((r) => r.player), [1, 0], 'player 1 is seeded first');
  t.same(tournamentTables({ ...ev, seeding: undefined }).standings.map((r) => r.player), [0, 1], 'an old record without seeding: entry order');
  const rr = tournamentTables({ ...base, format: 'roundRobin', pairs: [pair(0, 0, 0, 1, [1, 0])] }).standings;
  t.same(rr.map((r) => [r.buchholz, r.sonnebornBerger]), [[null, null], [null, null]]);
});
