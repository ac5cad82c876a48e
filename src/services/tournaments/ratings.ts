// The Bradley–Terry ratings shown with a round-robin, a gauntlet or a Swiss (GET /events/{id}
// `ratings`, the stream's summaries): every game of every finished pair, solved by bradley-terry.ts.
// A match and an SPRT have one encounter, whose own Elo and interval say the same thing.
import { pairFinished, type TournamentFormat, type TournamentRecord } from '../../domain/tournaments.js';
import { bradleyTerry, type Meeting } from './bradley-terry.js';

/** Formats whose events show ratings. */
export const RATED_FORMATS: readonly TournamentFormat[] = ['roundRobin', 'gauntlet', 'swiss'];

export interface RatingRow {
  player: number;
  elo: number;
  low: number;
  high: number;
  games: number;
}

/**
 * Ratings already computed, by event and the pairs finished then (pairs only ever finish, so the
 * count says which pairs were counted). A view is made on every GET and every stream opening;
 * a 256-player solution costs tens of milliseconds, so each state of an event is solved once.
 */
const CACHE_SIZE = 512;
const cache = new Map<string, RatingRow[] | null>();

/**
 * The players who played at least one game of a finished pair, best first, with their Elo (the
 * mean of those players is 0) and its 95% interval. Null for a match or an SPRT, and before any
 * pair finished.
 */
export function eventRatings(ev: TournamentRecord): RatingRow[] | null {
  if (!RATED_FORMATS.includes(ev.format)) return null;
  const finished = ev.pairs.filter((p) => pairFinished(p) && p.void !== true);
  if (finished.length === 0) return null;
  const key = `${ev.id} ${finished.length}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const rows = solve(ev, finished);
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(key, rows);
  return rows;
}

function solve(ev: TournamentRecord, finished: TournamentRecord['pairs']): RatingRow[] {
  // Dense indexes for the players who played, in entry order.
  const dense = new Map<number, number>();
  const games = new Map<number, number>();
  for (const p of finished) {
    for (const who of [p.a, p.b]) {
      if (!dense.has(who)) dense.set(who, 0);
      games.set(who, (games.get(who) ?? 0) + 2);
    }
  }
  const players = [...dense.keys()].sort((x, y) => x - y);
  players.forEach((who, i) => dense.set(who, i));
  const meetings: Meeting[] = finished.map((p) => {
    const a = dense.get(p.a)!;
    const b = dense.get(p.b)!;
    const s = p.scores[0]! + p.scores[1]!;
    return a < b ? { i: a, j: b, games: 2, score: s } : { i: b, j: a, games: 2, score: 2 - s };
  });
  const sol = bradleyTerry(players.length, meetings);
  return players
    .map((player, i) => ({ player, elo: sol.elo[i], low: sol.low[i], high: sol.high[i], games: games.get(player)! }))
    .sort((x, y) => y.elo - x.elo || x.player - y.player);
}

const tenth = (x: number) => Math.round(x * 10) / 10;

/** The event's ratings as GET /events/{id} shows them: by team and name, to a tenth of an Elo point. */
export function ratingsView(ev: TournamentRecord) {
  return eventRatings(ev)?.map((r) => ({ team: ev.players[r.player].team, name: ev.players[r.player].name, elo: tenth(r.elo), low: tenth(r.low), high: tenth(r.high), games: r.games })) ?? null;
}
