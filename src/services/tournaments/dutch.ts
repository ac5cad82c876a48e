// One Swiss round paired by the core rules of the FIDE Dutch system (handbook C.04.3, as numbered in
// the 2017 text): players ordered by score, then seed (A.2); each score group is a bracket whose top
// half (S1) meets its bottom half (S2) in order (B.2/B.3); a repeat is avoided by transpositions of S2
// (D.1), then by exchanges between S1 and S2 (D.2), then by pairing fewer players and floating the
// rest down (A.4), where the next bracket pairs those moved-down players first; no two players meet
// twice ([C1], C.04.1.b), nobody has a second bye ([C2], C.04.1.d), and the bye goes to the lowest
// ranked player who may take it. A candidate is kept only if the players left can still all be paired
// ([C4], completion, checked exactly by a maximum matching) and the rounds after it can still be
// played (lookahead.ts). Pure: the scheduler passes everything in (plan.ts).
import { canPlayRounds } from './lookahead.js';
import { perfectPairs } from './matching.js';
import type { Encounter, SwissRound } from './pairing.js';

export interface DutchInput {
  /** Players to pair, best first: by points, then seed. */
  ranked: readonly number[];
  points: ReadonlyMap<number, number>;
  /** Whether two players may meet (they have not met). */
  mayMeet: (a: number, b: number) => boolean;
  /** Whether a player may have the bye (has had none). */
  mayHaveBye: (p: number) => boolean;
  /** Rounds still to play after this one (the lookahead's horizon). */
  roundsAfter: number;
}

/** Bounds on one round's search (the work a pairing may cost the server, whatever the event). */
export const DUTCH_LIMITS = {
  /** Completion checks (each a maximum matching) over the whole round. */
  checks: 4_000,
  /** Whole-round candidates offered to the lookahead. */
  candidates: 200,
  /** Steps of one lookahead. */
  lookaheadSteps: 20_000,
};

/** The vertex standing for the bye in the lookahead's graph. */
const BYE = -1;

class OutOfChecks extends Error {}

interface BracketResult {
  pairs: Encounter[];
  /** Players moved down to the next bracket, best first. */
  floaters: number[];
}

/** The round, or null when no pairing without a repeat or a second bye exists. */
export function dutchRound(given: DutchInput, limits = DUTCH_LIMITS): SwissRound | null {
  const { ranked } = given;
  const rank = new Map(ranked.map((p, i) => [p, i]));
  // Who may meet whom, asked once: the searches below ask it millions of times.
  const n = ranked.length;
  const may = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) may[i * n + j] = i !== j && given.mayMeet(ranked[i], ranked[j]) ? 1 : 0;
  const mayMeet = (a: number, b: number): boolean => may[rank.get(a)! * n + rank.get(b)!] === 1;
  const input: DutchInput = { ...given, mayMeet };
  const byRank = (a: number, b: number) => rank.get(a)! - rank.get(b)!;
  let checks = 0;
  // Every candidate split and every completion check is charged, so a round's work is bounded.
  const tick = (): void => {
    if (++checks > limits.checks) throw new OutOfChecks();
  };
  const completable = (players: readonly number[]): boolean => {
    tick();
    return perfectPairs(players, mayMeet) !== null;
  };
  const odd = ranked.length % 2 === 1;
  // The lowest ranked player first (C.04.1.c): the bye is his unless the round cannot be paired then.
  const byes: (number | null)[] = odd ? [...ranked].reverse().filter(input.mayHaveBye) : [null];
  let fallback: SwissRound | null = null;
  let offered = 0;
  try {
    for (const bye of byes) {
      const playing = ranked.filter((p) => p !== bye);
      const any = perfectPairs(playing, mayMeet);
      if (!any) continue;
      fallback ??= { pairs: any, bye };
      for (const pairs of roundCandidates(playing, input.points, { mayMeet, byRank, completable, tick })) {
        const round = { pairs, bye };
        if (offered === 0) fallback = round;
        if (++offered > limits.candidates) return fallback;
        if (roundsRemain(round, playing, input, limits.lookaheadSteps)) return round;
      }
    }
  } catch (e) {
    if (!(e instanceof OutOfChecks)) throw e;
  }
  // Past the bounds, or no candidate leaves the later rounds playable: the first legal one.
  return fallback;
}

/** Whether, after this round, the rounds still to come can be paired (or the search ran out: taken as yes). */
function roundsRemain(round: SwissRound, playing: readonly number[], input: DutchInput, steps: number): boolean {
  if (input.roundsAfter <= 0) return true;
  const now = new Set(round.pairs.map(([a, b]) => (a < b ? `${a}-${b}` : `${b}-${a}`)));
  const ok = (a: number, b: number): boolean => {
    if (a === BYE || b === BYE) {
      const p = a === BYE ? b : a;
      return p !== round.bye && input.mayHaveBye(p);
    }
    return input.mayMeet(a, b) && !now.has(a < b ? `${a}-${b}` : `${b}-${a}`);
  };
  const everyone = round.bye === null ? [...playing] : [...playing, round.bye, BYE];
  return canPlayRounds(everyone, ok, input.roundsAfter, steps) !== 'no';
}

/** Whole rounds in the Dutch order of preference: bracket by bracket, each bracket's candidates in order. */
/** What the bracket search asks of the round: who may meet, the order, the completion check, the charge. */
interface Search {
  mayMeet: (a: number, b: number) => boolean;
  byRank: (a: number, b: number) => number;
  completable: (players: readonly number[]) => boolean;
  tick: () => void;
}

function* roundCandidates(playing: readonly number[], points: ReadonlyMap<number, number>, search: Search): Generator<Encounter[]> {
  const groups: number[][] = [];
  for (const p of playing) {
    const last = groups[groups.length - 1];
    if (last && points.get(last[0]) === points.get(p)) last.push(p);
    else groups.push([p]);
  }
  const below = groups.map((_, k) => groups.slice(k + 1).flat());
  function* from(k: number, carry: number[], acc: Encounter[]): Generator<Encounter[]> {
    if (k === groups.length) {
      if (carry.length === 0) yield acc;
      return;
    }
    for (const c of bracketCandidates(carry, groups[k], below[k], k === groups.length - 1, search)) {
      yield* from(k + 1, c.floaters, [...acc, ...c.pairs]);
    }
  }
  yield* from(0, [], []);
}

/**
 * A bracket's candidates: the most pairs first; among those, the most moved-down players (MDPs)
 * paired; the MDPs meet the residents in order, the remaining residents are paired top half against
 * bottom half. Every partial candidate must leave the unpaired players (this bracket's and those
 * below) pairable, so no branch that cannot complete the round is followed.
 */
function* bracketCandidates(
  mdps: readonly number[],
  residents: readonly number[],
  lower: readonly number[],
  last: boolean,
  { mayMeet, byRank, completable, tick }: Search,
): Generator<BracketResult> {
  const all = [...mdps, ...residents];
  const most = Math.floor(all.length / 2);
  const paired = new Set<number>();
  const pairs: Encounter[] = [];
  const stillPairable = (): boolean => completable([...all.filter((p) => !paired.has(p)), ...lower]);
  const meet = (a: number, b: number) => {
    paired.add(a).add(b);
    pairs.push([a, b]);
  };
  const part = (a: number, b: number) => {
    paired.delete(a);
    paired.delete(b);
    pairs.pop();
  };

  // S1[i] takes the first S2 player in order it may meet (transpositions of S2 in order, D.1).
  function* s1AgainstS2(s1: readonly number[], s2: readonly number[], i: number): Generator<BracketResult> {
    if (i === s1.length) {
      yield { pairs: [...pairs], floaters: all.filter((p) => !paired.has(p)).sort(byRank) };
      return;
    }
    for (const b of s2) {
      if (paired.has(b) || !mayMeet(s1[i], b)) continue;
      meet(s1[i], b);
      if (stillPairable()) yield* s1AgainstS2(s1, s2, i + 1);
      part(s1[i], b);
    }
  }

  for (let total = most; total >= (last ? most : 0); total--) {
    if (last && 2 * total !== all.length) continue;
    for (let m1 = Math.min(mdps.length, residents.length, total); m1 >= 0; m1--) {
      const rest = total - m1;
      if (2 * rest > residents.length - m1) continue;
      for (const chosen of combinations(mdps, m1)) {
        tick();
        for (const _ of s1AgainstS2(chosen, residents, 0)) {
          // The MDPs are paired as in `_`; the residents left form the remainder, paired homogeneously.
          const remainder = residents.filter((p) => !paired.has(p));
          const held = pairs.length;
          for (const [s1, s2] of exchanges(remainder, rest, byRank)) {
            tick();
            for (const r of s1AgainstS2(s1, s2, 0)) yield r;
            if (pairs.length !== held) throw new Error('bracket search left pairs behind');
          }
        }
      }
    }
  }
}

/** The k-element subsets of `xs`, earliest elements first (lexicographic by position). */
function* combinations<T>(xs: readonly T[], k: number, from = 0): Generator<T[]> {
  if (k === 0) {
    yield [];
    return;
  }
  for (let i = from; i <= xs.length - k; i++) for (const rest of combinations(xs, k - 1, i + 1)) yield [xs[i], ...rest];
}

/** Above this many exchanges of one size, they are tried in generation order rather than sorted. */
const EXCHANGE_SORT_LIMIT = 5_000;

/**
 * S1/S2 splits of a homogeneous remainder with `size` players in S1: the original (top `size`
 * against the rest) first, then exchanges (D.2) of one player each way, then two, …; among
 * exchanges of one size, the smallest difference between the ranks brought up and sent down first.
 */
function* exchanges(players: readonly number[], size: number, byRank: (a: number, b: number) => number): Generator<[number[], number[]]> {
  const s1 = players.slice(0, size);
  const s2 = players.slice(size);
  const pos = new Map(players.map((p, i) => [p, i]));
  const split = (out: number[], inn: number[]): [number[], number[]] => [
    [...s1.filter((p) => !out.includes(p)), ...inn].sort(byRank),
    [...s2.filter((p) => !inn.includes(p)), ...out].sort(byRank),
  ];
  yield [s1, s2];
  for (let k = 1; k <= Math.min(s1.length, s2.length); k++) {
    const sum = (xs: number[]) => xs.reduce((s, p) => s + pos.get(p)!, 0);
    if (choose(s1.length, k) * choose(s2.length, k) > EXCHANGE_SORT_LIMIT) {
      // Too many to sort: in generation order, made one at a time (the caller's charge bounds them).
      for (const out of combinations([...s1].reverse(), k)) for (const inn of combinations(s2, k)) yield split(out, inn);
      continue;
    }
    const outs = [...combinations([...s1].reverse(), k)];
    const ins = [...combinations(s2, k)];
    const all = outs.flatMap((out) => ins.map((inn) => ({ out, inn, cost: sum(inn) - sum(out) })));
    all.sort((x, y) => x.cost - y.cost);
    for (const e of all) yield split(e.out, e.inn);
  }
}

/** The binomial coefficient (n choose k), as a float (only compared against a bound). */
function choose(n: number, k: number): number {
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  return c;
}
