// Whether a Swiss can still play its remaining rounds: a round paired so that some later round has no
// pairing without a rematch ends the event early (with 8 players and 7 rounds, one full-length Swiss
// in eight did before this check). A candidate round is kept only when the pairs not yet played still
// hold as many more rounds as are left: that many disjoint ways to pair everyone. Found by a bounded
// search; past its bound the answer is 'unknown', which the caller takes as a yes.
import { maximumMatching } from './matching.js';

export type Completion = 'yes' | 'no' | 'unknown';

class OutOfSteps extends Error {}

/**
 * Whether `rounds` more rounds can be paired among `players` (ids; with an odd count the caller has
 * added a bye vertex so it is even), each two meeting at most once and only when `ok`. At most
 * `maxSteps` search steps.
 */
export function canPlayRounds(players: readonly number[], ok: (a: number, b: number) => boolean, rounds: number, maxSteps: number): Completion {
  const n = players.length;
  if (rounds <= 0) return 'yes';
  if (n % 2 === 1) return 'no';
  const allowed = new Uint8Array(n * n);
  const degree = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (!ok(players[i], players[j])) continue;
      allowed[i * n + j] = allowed[j * n + i] = 1;
      degree[i]++;
      degree[j]++;
    }
  }
  const mate = new Int32Array(n).fill(-1);
  let steps = 0;
  const step = (): void => {
    if (++steps > maxSteps) throw new OutOfSteps();
  };
  const take = (i: number, j: number, on: 0 | 1): void => {
    allowed[i * n + j] = allowed[j * n + i] = on;
    const d = on ? 1 : -1;
    degree[i] += d;
    degree[j] += d;
  };

  // Rounds `left` more from the edges still allowed.
  const more = (left: number): boolean => {
    if (left === 0) return true;
    step();
    // Each player needs a fresh opponent in every round left, and a round needs everyone paired.
    let least = Infinity;
    for (let i = 0; i < n; i++) least = Math.min(least, degree[i]);
    if (least < left) return false;
    // With every degree at least n/2 a perfect matching exists (Dirac: the graph has a Hamiltonian
    // cycle, and n is even), so the matching is only computed on sparser graphs, to cut dead branches.
    if (2 * least < n && maximumMatching(n, (i, j) => allowed[i * n + j] === 1).some((x) => x === -1)) return false;
    return pairRest(left);
  };

  // Completes the round being built (mate), most constrained player first, then the rounds after it.
  const pairRest = (left: number): boolean => {
    step();
    let pick = -1;
    let fewest = Infinity;
    for (let i = 0; i < n; i++) {
      if (mate[i] !== -1) continue;
      let free = 0;
      for (let j = 0; j < n; j++) if (j !== i && mate[j] === -1 && allowed[i * n + j]) free++;
      if (free < fewest) (fewest = free), (pick = i);
    }
    if (pick === -1) {
      // The round is whole: its pairs are used up for the rounds after it.
      const pairs: [number, number][] = [];
      for (let i = 0; i < n; i++) if (i < mate[i]) pairs.push([i, mate[i]]);
      const saved = Int32Array.from(mate);
      for (const [i, j] of pairs) take(i, j, 0);
      mate.fill(-1);
      const ok = more(left - 1);
      mate.set(saved);
      for (const [i, j] of pairs) take(i, j, 1);
      return ok;
    }
    if (fewest === 0) return false;
    for (let j = 0; j < n; j++) {
      if (j === pick || mate[j] !== -1 || !allowed[pick * n + j]) continue;
      mate[pick] = j;
      mate[j] = pick;
      const ok = pairRest(left);
      mate[pick] = mate[j] = -1;
      if (ok) return true;
    }
    return false;
  };

  try {
    return more(rounds) ? 'yes' : 'no';
  } catch (e) {
    if (e instanceof OutOfSteps) return 'unknown';
    throw e;
  }
}
