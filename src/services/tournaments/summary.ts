// The interval summaries of an event's stream (`summaryEvery`, like cutechess's -ratinginterval):
// after every K finished pairs, a line with the standings and where the estimates stand. Only live
// followers get them; a follower that comes later starts from the event's view (EventState), which
// holds all of it, and gets the next summary when it is due (docs/EVENTS.md "Summaries").
import { pairFinished, type GameScore, type TournamentRecord } from '../../domain/tournaments.js';
import { eventRatings } from './ratings.js';
import { pairStats } from './stats.js';
import type { TournamentTally } from './tally.js';

const face = (ev: TournamentRecord, i: number) => ({ team: ev.players[i].team, name: ev.players[i].name });

/** The summary due after `finished` pairs, or null when none is (no `summaryEvery`, or not a multiple of it). */
export function summaryLine(ev: TournamentRecord, finished: number, tally: TournamentTally) {
  const every = ev.summaryEvery;
  if (every === undefined || finished === 0 || finished % every !== 0) return null;
  const ratings = eventRatings(ev);
  const sprt = tally.sprt(ev);
  return {
    EventSummary: {
      eventId: ev.id,
      pairsFinished: finished,
      standings: tally.standings(ev).map((s) => ({ ...face(ev, s.player), points: s.points, games: s.games })),
      ratings: ratings?.map((r) => ({ ...face(ev, r.player), elo: tenth(r.elo), low: tenth(r.low), high: tenth(r.high) })) ?? null,
      encounter: ratings === null ? encounterOf(ev) : null,
      llr: sprt ? sprt.llr : null,
      bounds: sprt ? sprt.bounds : null,
    },
  };
}

const tenth = (x: number) => Math.round(x * 10) / 10;

/** A match's or an SPRT's one encounter, from the lower-numbered player's side (as its view shows it). */
function encounterOf(ev: TournamentRecord) {
  const scores: [GameScore, GameScore][] = [];
  let first = -1;
  let second = -1;
  for (const p of ev.pairs) {
    if (!pairFinished(p) || p.void === true) continue;
    const [x, y] = p.scores as [GameScore, GameScore];
    first = Math.min(p.a, p.b);
    second = Math.max(p.a, p.b);
    scores.push(p.a === first ? [x, y] : [(1 - x) as GameScore, (1 - y) as GameScore]);
  }
  if (first < 0) return null;
  const s = pairStats(scores);
  return { players: [face(ev, first), face(ev, second)], pairs: s.pairs, score: s.score, elo: s.elo, eloInterval: s.eloInterval, los: s.los };
}
