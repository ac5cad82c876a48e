// The scheduler's tally (pairs added one by one as they finish) gives the same standings and SPRT as
// tournamentTables counting every pair of the record, on random events: players who declined, pairs
// still running, pairs finished out of index order, time losses, byes and refused moves.
import t from 'tap';
import type { GameScore, TournamentPairRecord, TournamentRecord } from '../../../src/domain/tournaments.js';
import { tournamentTables } from '../../../src/services/tournaments/standings.js';
import { Tallies, TournamentTally } from '../../../src/services/tournaments/tally.js';
import { tournament } from '../../helpers/store-fixtures.js';
import { prng } from '../../helpers/prng.js';

const SCORES: GameScore[] = [0, 0.5, 1];

function randomEvent(rnd: () => number, sprt: boolean): TournamentRecord {
  const n = sprt ? 2 : 2 + Math.floor(rnd() * 5);
  const pick = () => Math.floor(rnd() * n);
  const players = Array.from({ length: n }, (_, i) => ({ id: `bot:team:t:p${i}`, team: 't', name: `p${i}`, accepted: i < 2 || rnd() < 0.8 ? true : rnd() < 0.5 ? false : null }));
  const count = Math.floor(rnd() * 60);
  const order = [...Array(count).keys()].sort(() => rnd() - 0.5);
  const pairs: TournamentPairRecord[] = Array.from({ length: count }, (_, i) => {
    let a = sprt ? 0 : pick();
    let b = sprt ? 1 : pick();
    if (a === b) b = (a + 1) % n;
    if (sprt && rnd() < 0.3) [a, b] = [b, a];
    const done = rnd() < 0.85;
    const s = (): GameScore => SCORES[Math.floor(rnd() * 3)];
    return {
      index: i, round: 0, a, b, games: [`g${i}a`, `g${i}b`],
      scores: done ? [s(), s()] : [rnd() < 0.5 ? s() : null, null],
      timeLosses: rnd() < 0.2 ? [rnd() < 0.5 ? a : b] : [],
      finishedSeq: 0,
    };
  });
  let seq = 0;
  for (const i of order) if (pairs[i].scores[1] !== null) pairs[i].finishedSeq = ++seq;
  return tournament('r', {
    over: {
      players, pairs, format: sprt ? 'sprt' : 'roundRobin', pairsPerEncounter: 1 + Math.floor(rnd() * 3),
      sprt: sprt ? { elo0: 0, elo1: 10 + rnd() * 40, alpha: 0.05, beta: 0.05 } : null,
      byes: sprt ? [] : Array.from({ length: Math.floor(rnd() * 3) }, (_, r) => [r + 1, pick()] as [number, number]),
      ...(rnd() < 0.5 ? { refused: players.map(() => Math.floor(rnd() * 4)) } : {}),
    },
  });
}

t.test('the tally agrees with tournamentTables', async (t) => {
  const rnd = prng(4242);
  for (let k = 0; k < 300; k++) {
    const ev = randomEvent(rnd, k % 3 === 0);
    const tables = tournamentTables(ev);
    const tally = TournamentTally.of(ev);
    t.same(tally.standings(ev), tables.standings, `standings, event ${k}`);
    if (ev.sprt) {
      const llr = tables.llrHistory[tables.llrHistory.length - 1] ?? 0;
      t.ok(Math.abs((tally.sprt(ev)?.llr ?? NaN) - llr) < 1e-9, `llr, event ${k}`);
      t.equal(tally.sprt(ev)?.verdict ?? null, tables.encounters[0]?.sprt?.verdict ?? null, `verdict, event ${k}`);
    }
  }
});

t.test('pairs added one at a time as they finish come to the same', async (t) => {
  const rnd = prng(99);
  for (let k = 0; k < 50; k++) {
    const ev = randomEvent(rnd, k % 2 === 0);
    const finished = ev.pairs.filter((p) => p.finishedSeq > 0).sort((x, y) => x.finishedSeq - y.finishedSeq);
    const tallies = new Tallies();
    let seen: TournamentRecord = { ...ev, pairs: ev.pairs.map((p) => (p.finishedSeq > 0 ? { ...p, scores: [null, null], finishedSeq: 0 } : p)) };
    for (const p of finished) {
      const tally = tallies.of(seen, p.finishedSeq - 1);
      seen = { ...seen, pairs: seen.pairs.map((q) => (q.index === p.index ? p : q)) };
      tally.add(p);
    }
    t.same(tallies.of(seen, finished.length).standings(seen), tournamentTables(ev).standings, `event ${k}`);
  }
});
