// `dicechess verify-event FILE`: checks an event export (GET /events/{id}/games) end to end. The
// games' rolls are recomputed on a Piscina pool across the cores, a batch of games per task, with a
// progress line on stderr; the standings, statistics and SPRT history are recomputed from the games'
// results and compared with what the server published; an SPRT's verdict is re-derived from the pairs
// in the order the server counted them. Exit 0 when everything agrees (an export too old for its
// verdict to be re-derived says so and still exits 0), 1 when something differs, 2 when the file
// cannot be read as an export.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { commitOf, hexToSeed } from '../fair/index.js';
import type { TournamentRecord, TournamentSeed, GameScore } from '../domain/tournaments.js';
import { tournamentTables } from '../services/tournaments/standings.js';
import type { GameTask } from './verify-game.js';
import { checkSprt, finishingOrder } from './verify-sprt.js';

export const VERIFY_USAGE = 'usage: dicechess verify-event FILE   (FILE: the ndjson of GET /events/{id}/games)';

/** Games per pool task: big enough that a task outweighs its hand-over. */
const BATCH = 64;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface VerifyOutput {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Progress line (rewritten in place on a terminal). */
  progress: (done: number, total: number) => void;
}

/** Compares two numbers of a published statistic (they were computed the same way, so closely). */
const same = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));

export async function verifyEvent(path: string, io: VerifyOutput, threads = Math.max(1, availableParallelism())): Promise<number> {
  let lines: Json[];
  try {
    lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Json);
  } catch (e) {
    io.err(`cannot read ${path}: ${(e as Error).message}`);
    return 2;
  }
  const ev = lines[0]?.Event;
  if (!ev) {
    io.err(`${path}: the first line is not the event ({"Event": …})`);
    return 2;
  }
  const games: GameTask['game'][] = lines.slice(1).filter((l) => l.Game).map((l) => l.Game);
  const problems: string[] = [];
  if (ev.seed !== null) {
    const seed = hexToSeed(ev.seed);
    if (!seed || commitOf(seed) !== ev.commit) problems.push('event: the revealed seed does not match the commitment');
  } else {
    io.out('the event seed is not revealed yet (the event is not over): per-game checks only');
  }

  // Every roll of every game, on the pool.
  const pool = new Piscina({ filename: new URL('./verify-game.js', import.meta.url).href, maxThreads: threads });
  let done = 0;
  try {
    const batches: GameTask[][] = [];
    for (let i = 0; i < games.length; i += BATCH) {
      batches.push(games.slice(i, i + BATCH).map((game) => ({ eventId: ev.eventId, eventSeed: ev.seed, dice: ev.dice, game })));
    }
    const found = await Promise.all(
      batches.map(async (b) => {
        const r = (await pool.run(b)) as string[];
        done += b.length;
        io.progress(done, games.length);
        return r;
      }),
    );
    problems.push(...found.flat());
  } finally {
    await pool.destroy();
  }

  const notes: string[] = [];
  problems.push(...checkTables(ev, games as Json[], notes));
  for (const n of notes) io.out(n);
  for (const p of problems) io.out(p);
  io.out(problems.length === 0 ? `ok: ${games.length} games, standings and statistics agree` : `${problems.length} problems`);
  return problems.length === 0 ? 0 : 1;
}

/** The standings, encounter statistics and LLR history recomputed from the exported games' results. */
function checkTables(ev: Json, games: Json[], notes: string[]): string[] {
  const out: string[] = [];
  const index = new Map<string, number>(ev.players.map((p: Json, i: number) => [`${p.team}/${p.name}`, i]));
  const scores = new Map<string, GameScore>();
  for (const g of games) {
    const aWhite = g.game === 0;
    const a = aWhite ? g.white : g.black;
    const s: GameScore = g.result === 'Draw' ? 0.5 : (g.result === 'White') === aWhite ? 1 : 0;
    scores.set(`${g.pair}/${g.game}`, s);
    if (!index.has(`${a.team}/${a.name}`)) out.push(`pair ${g.pair}: unknown player ${a.team}/${a.name}`);
  }
  const rec: TournamentRecord = {
    schema: 1, id: ev.eventId, name: ev.name, format: ev.format, host: '', timeControl: ev.timeControl,
    players: ev.players.map((p: Json) => ({ id: '', team: p.team, name: p.name, accepted: p.invitation === 'accepted' })),
    pairsPerEncounter: ev.pairsPerEncounter, rounds: ev.rounds, sprt: ev.sprt, maxPairs: ev.maxPairs, concurrency: ev.concurrency,
    rated: ev.rated, state: ev.state, createdAt: 0, startedAt: null, finishedAt: null, commit: ev.commit, seed: '', queue: [],
    byes: ev.byes.map((b: Json) => [b.round, index.get(`${b.team}/${b.name}`) ?? -1]),
    verdict: ev.verdict, verdictAfter: ev.verdictAfter, note: null, seeding: seedingOfView(ev),
    pairs: ev.pairs.map((p: Json) => {
      const mine: [GameScore | null, GameScore | null] = [scores.get(`${p.index}/0`) ?? null, scores.get(`${p.index}/1`) ?? null];
      if (mine[0] !== p.scores[0] || mine[1] !== p.scores[1]) out.push(`pair ${p.index}: published scores ${p.scores} but the games say ${mine}`);
      return {
        index: p.index, round: p.round, games: p.games, timeLosses: [],
        a: index.get(`${p.players[0].team}/${p.players[0].name}`)!, b: index.get(`${p.players[1].team}/${p.players[1].name}`)!,
        scores: mine, finishedSeq: 0,
      };
    }),
  };
  // The SPRT reads pairs in the order the server counted them, which the export states (finishedSeq);
  // an export made before it did is read in pair order, and its verdict is not re-derived (verify-sprt.ts).
  const order = finishingOrder(ev);
  out.push(...order.problems);
  rec.pairs.forEach((p, i) => (p.finishedSeq = order.seq[i]));
  const tables = tournamentTables(rec);
  for (const row of tables.standings) {
    const p = rec.players[row.player];
    const pub = ev.standings.find((s: Json) => s.team === p.team && s.name === p.name);
    for (const k of ['points', 'games', 'wins', 'draws', 'losses', 'pairs', 'byes'] as const) {
      if (!pub || pub[k] !== row[k]) out.push(`standings ${p.team}/${p.name}: ${k} published ${pub?.[k]}, recomputed ${row[k]}`);
    }
    // Swiss tiebreaks (sums of fractions: summed here in pair order, by the server in finishing order).
    for (const k of ['buchholz', 'sonnebornBerger'] as const) {
      const mine = row[k];
      if (pub && (mine === null ? pub[k] !== null : !same(pub[k], mine))) out.push(`standings ${p.team}/${p.name}: ${k} published ${pub[k]}, recomputed ${mine}`);
    }
  }
  for (const enc of tables.encounters) {
    const [x, y] = enc.players.map((i) => rec.players[i]);
    const pub = ev.encounters.find((e: Json) => e.players[0].name === x.name && e.players[0].team === x.team && e.players[1].name === y.name && e.players[1].team === y.team);
    const what = `encounter ${x.team}/${x.name} - ${y.team}/${y.name}`;
    if (!pub) {
      out.push(`${what}: not published`);
      continue;
    }
    if (pub.pentanomial.join() !== enc.pentanomial.join()) out.push(`${what}: pentanomial published ${pub.pentanomial}, recomputed ${enc.pentanomial}`);
    for (const k of ['score', 'elo', 'los', 'drawRatio'] as const) if (!same(pub[k], enc[k])) out.push(`${what}: ${k} published ${pub[k]}, recomputed ${enc[k]}`);
    if (enc.sprt && !same(pub.llr, enc.sprt.llr)) out.push(`${what}: llr published ${pub.llr}, recomputed ${enc.sprt.llr}`);
  }
  const sprt = checkSprt(ev, tables.llrHistory);
  notes.push(...sprt.notes);
  out.push(...sprt.problems);
  return out;
}

/** A Swiss's seeding as its view shows it (each player's `seed` and `seedRating`); none in an export without them. */
function seedingOfView(ev: Json): TournamentSeed[] | undefined {
  const seeded = (ev.players as Json[]).flatMap((p, player) => (typeof p.seed === 'number' ? [{ player, seed: p.seed as number, rating: p.seedRating as number }] : []));
  return seeded.length === 0 ? undefined : seeded.sort((x, y) => x.seed - y.seed).map(({ player, rating }) => ({ player, rating }));
}
