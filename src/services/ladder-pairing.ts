// Who plays whom in one round of the ladder: a pure function of the candidates and a random source,
// so a test can pin the choice. Bots with high deviations (the least known) choose first, each the
// closest rating among the bots still free; a bot meets a new opponent when one is free, and its
// previous opponent again only when both have waited long enough without one (rematchReady).
// Seats: a bot that can hold a pair (capacity 2 or more) plays only mirror pairs against another
// such bot, so the two need two free seats each; a single game is played only when one side can
// never hold a pair (capacity 1).
import type { LadderKind } from '../domain/types.js';

export interface Candidate {
  id: string;
  rating: number;
  rd: number;
  /** The previous ladder opponent, not chosen again while someone new is free. */
  lastOpponent: string | null;
  /** Ladder capacity (absent: seats are not checked here, as in tests of the choice alone). */
  capacity?: number;
  /** Free seats now: capacity minus live ladder games (absent: as many as needed). */
  free?: number;
  /** Has waited `ladder.rematchAfterMs` without a game: may meet its previous opponent again. */
  rematchReady?: boolean;
}

/** Seats a mirror pair takes from each bot (its two games run at once). */
export const MIRROR_SEATS = 2;

/** A bot that can never hold a mirror pair: its games are singles. */
const singlesOnly = (c: Candidate): boolean => (c.capacity ?? MIRROR_SEATS) < MIRROR_SEATS;

/**
 * Whether the two have the seats for the game they would play: a single when either is singles-only
 * (the other's one free seat is enough); otherwise a mirror pair, two free seats each. A pair bot
 * with one seat left waits for another (its pair's partner game to end) rather than play a single.
 */
export const seatsFit = (a: Candidate, b: Candidate): boolean =>
  singlesOnly(a) || singlesOnly(b) || ((a.free ?? MIRROR_SEATS) >= MIRROR_SEATS && (b.free ?? MIRROR_SEATS) >= MIRROR_SEATS);

const fresh = (a: Candidate, b: Candidate): boolean => a.lastOpponent !== b.id && b.lastOpponent !== a.id;
const allowed = (a: Candidate, b: Candidate): boolean => a.id !== b.id && fresh(a, b) && seatsFit(a, b);
/** The second pass: the same two again, when both have waited and nobody new was free for either. */
const rematch = (a: Candidate, b: Candidate): boolean =>
  a.id !== b.id && a.rematchReady === true && b.rematchReady === true && seatsFit(a, b);

/**
 * Disjoint pairs. Candidates are taken in id order, then each gets one draw of `random` to break
 * ties, so the same candidates and the same random sequence always give the same pairs. Chooser order:
 * deviation high to low, then the draw. Partner: the smallest rating gap, then the higher deviation,
 * then the earlier chooser position. A first pass pairs new opponents only; a second pairs, among
 * the bots still free, previous opponents that are both rematchReady.
 */
export function choosePairs(candidates: readonly Candidate[], random: () => number): [Candidate, Candidate][] {
  const byId = [...candidates].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const draw = new Map(byId.map((c) => [c.id, random()]));
  const order = byId.slice().sort((a, b) => b.rd - a.rd || draw.get(a.id)! - draw.get(b.id)!);
  const rank = new Map(order.map((c, i) => [c.id, i]));
  // Rating order for the partner search: walk outwards from the chooser until the gap only grows.
  const byRating = order.slice().sort((a, b) => a.rating - b.rating || rank.get(a.id)! - rank.get(b.id)!);
  const pos = new Map(byRating.map((c, i) => [c.id, i]));
  const taken = new Set<string>();
  const pairs: [Candidate, Candidate][] = [];
  const better = (x: Candidate, best: Candidate | null, a: Candidate): boolean => {
    if (!best) return true;
    const dx = Math.abs(x.rating - a.rating);
    const db = Math.abs(best.rating - a.rating);
    return dx < db || (dx === db && (x.rd > best.rd || (x.rd === best.rd && rank.get(x.id)! < rank.get(best.id)!)));
  };
  for (const may of [allowed, rematch]) {
    for (const a of order) {
      if (taken.has(a.id)) continue;
      let best: Candidate | null = null;
      const at = pos.get(a.id)!;
      for (const step of [-1, 1]) {
        for (let i = at + step; i >= 0 && i < byRating.length; i += step) {
          const x = byRating[i];
          if (best && Math.abs(x.rating - a.rating) > Math.abs(best.rating - a.rating)) break;
          if (taken.has(x.id) || !may(a, x)) continue;
          if (better(x, best, a)) best = x;
        }
      }
      if (!best) continue;
      taken.add(a.id);
      taken.add(best.id);
      pairs.push([a, best]);
    }
  }
  return pairs;
}

/** How many ladder games a bot has played with each colour (a mirror pair adds one to each). */
export interface ColourCount {
  white: number;
  black: number;
}

/** What the scheduler knows of one paired bot when it decides the kind of game. */
export interface Seating {
  id: string;
  /** Free seats: capacity minus live ladder games. */
  free: number;
  colours: ColourCount;
}

/** The ladder game a pair plays: a mirror pair, or one rated game with its colours decided. */
export interface LadderPlan {
  kind: LadderKind;
  white: string;
  black: string;
}

/**
 * Two bots that both have two free seats play a mirror pair (both colours, the same dice). Otherwise
 * (choosePairs pairs two bots short of that only when one of them is singles-only) they play a single game, and White goes to the bot that has played fewer white games than black
 * ones relative to the other (the lower white-minus-black), so each bot's colours even out over time;
 * equal counts are decided by one draw of `random`.
 */
export function planGame(a: Seating, b: Seating, random: () => number): LadderPlan {
  if (a.free >= MIRROR_SEATS && b.free >= MIRROR_SEATS) return { kind: 'mirror', white: a.id, black: b.id };
  const lean = (s: Seating) => s.colours.white - s.colours.black;
  const diff = lean(a) - lean(b);
  const aWhite = diff < 0 || (diff === 0 && random() < 0.5);
  return aWhite ? { kind: 'single', white: a.id, black: b.id } : { kind: 'single', white: b.id, black: a.id };
}
