// A Swiss's initial ranking (FIDE C.04.3 A.1/A.2: the order of players with equal points): by the
// players' ladder rating when the event starts, highest first, entry order breaking ties. It is kept
// in the record at the start so that the pairings, the standings' last tiebreak and an export's
// audit all read the same order, whatever the ratings do afterwards.
import { DEFAULT_RATING } from '../../domain/records.js';
import type { TournamentRecord, TournamentSeed } from '../../domain/tournaments.js';

/** The seeding of the players who take part (`playing`, player indexes) from each one's rating. */
export function seedingOf(playing: readonly number[], ratingOf: (player: number) => number): TournamentSeed[] {
  return playing
    .map((player) => ({ player, rating: ratingOf(player) }))
    .sort((x, y) => y.rating - x.rating || x.player - y.player);
}

/**
 * Player indexes in seed order: the recorded seeding, then any player taking part it does not name
 * in entry order. A record without one (stored before seeding existed, or not a Swiss) is in entry order.
 */
export function seedOrder(ev: Pick<TournamentRecord, 'players' | 'seeding'>): number[] {
  const seeded = (ev.seeding ?? []).map((s) => s.player);
  const named = new Set(seeded);
  return [...seeded, ...ev.players.flatMap((p, i) => (p.accepted === true && !named.has(i) ? [i] : []))];
}

/**
 * A Swiss as it starts: its players taking part seeded by their ladder rating now. A bot without a
 * stored record (a house bot) has the default rating, as the rating batches give it. Other formats
 * are not seeded.
 */
export function seededAtStart(ev: TournamentRecord, storedRating: (botId: string) => number | undefined): TournamentRecord {
  if (ev.format !== 'swiss') return ev;
  const playing = ev.players.flatMap((p, i) => (p.accepted === true ? [i] : []));
  return { ...ev, seeding: seedingOf(playing, (i) => storedRating(ev.players[i].id) ?? DEFAULT_RATING.rating) };
}

/** A player's place in a Swiss's seeding (1 the first) and the rating it was seeded by; null when not seeded. */
export function seedView(ev: Pick<TournamentRecord, 'seeding'>, i: number): { seed: number | null; seedRating: number | null } {
  const k = ev.seeding?.findIndex((s) => s.player === i) ?? -1;
  return k < 0 ? { seed: null, seedRating: null } : { seed: k + 1, seedRating: ev.seeding![k].rating };
}
