// A reference Glicko-2 for the ladder's tests, written out plainly from Glickman's paper "Example of
// the Glicko-2 system", separately from src/services/glicko2.ts (which the tests check against it).

export interface Ref { r: number; rd: number; vol: number }
const SCALE = 173.7178;

/** One rating period: `me` after `games` against opponents at their pre-period ratings. */
export function referenceUpdate(me: Ref, games: { opp: Ref; s: number }[], tau: number): Ref {
  const mu = (me.r - 1500) / SCALE;
  const phi = me.rd / SCALE;
  let vInv = 0;
  let dSum = 0;
  for (const { opp, s } of games) {
    const phiJ = opp.rd / SCALE;
    const gJ = 1 / Math.sqrt(1 + (3 * phiJ ** 2) / Math.PI ** 2);
    const eJ = 1 / (1 + Math.exp(-gJ * (mu - (opp.r - 1500) / SCALE)));
    vInv += gJ ** 2 * eJ * (1 - eJ);
    dSum += gJ * (s - eJ);
  }
  const v = 1 / vInv;
  const delta = v * dSum;
  // The volatility equation solved by plain bisection (f falls as x grows), not the paper's
  // Illinois method: the two must agree to far below the rating's printed precision.
  const a = Math.log(me.vol ** 2);
  const f = (x: number) => (Math.exp(x) * (delta ** 2 - phi ** 2 - v - Math.exp(x))) / (2 * (phi ** 2 + v + Math.exp(x)) ** 2) - (x - a) / tau ** 2;
  let lo = a - 20;
  let hi = a + 20;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > 0) lo = mid;
    else hi = mid;
  }
  const vol = Math.exp((lo + hi) / 4);
  const phiStar = Math.sqrt(phi ** 2 + vol ** 2);
  const phiNew = 1 / Math.sqrt(1 / phiStar ** 2 + 1 / v);
  const muNew = mu + phiNew ** 2 * dSum;
  return { r: muNew * SCALE + 1500, rd: phiNew * SCALE, vol };
}
