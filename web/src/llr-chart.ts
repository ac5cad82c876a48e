// The SPRT's LLR after each pair, against the test's two bounds. The vertical scale is set by the
// bounds, not by the LLR: a finished test's LLR can end far past a bound (hundreds, when every pair
// went one way), and scaling to it squeezed both bounds and zero into one line at the bottom with
// their labels on top of each other. So the chart always spans the bounds with a margin, the LLR
// line is clipped to that band, and where it leaves the band a marker says so and gives the value.
const SVG = 'http://www.w3.org/2000/svg';
const W = 600;
const H = 220;
const PAD = { l: 12, r: 12, t: 16, b: 16 };
/** Share of the bounds' span added above and below them. */
const MARGIN = 0.2;
/** Least vertical distance between two line labels (the font is 11px). */
const LABEL_GAP = 13;

function node<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const n = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}

const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2)).replace('-', '−');

/**
 * Label heights for lines at `ys` (top to bottom in any order): each label sits just above its line
 * and is pushed down (then, at the bottom edge, up) until no two are closer than LABEL_GAP.
 */
export function spreadLabels(ys: readonly number[], top: number, bottom: number): number[] {
  const order = ys.map((y, i) => ({ y: y - 3, i })).sort((a, b) => a.y - b.y);
  for (let k = 0; k < order.length; k++) {
    order[k].y = Math.max(order[k].y, top + 10, k > 0 ? order[k - 1].y + LABEL_GAP : -Infinity);
  }
  for (let k = order.length - 1; k >= 0; k--) {
    order[k].y = Math.min(order[k].y, bottom - 2, k < order.length - 1 ? order[k + 1].y - LABEL_GAP : Infinity);
  }
  const out: number[] = [];
  for (const o of order) out[o.i] = o.y;
  return out;
}

export function llrChart(llr: readonly number[], [lower, upper]: readonly [number, number], clipId: string): SVGSVGElement {
  const svg = node('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart llr', role: 'img' });
  const pairs = llr.length === 1 ? '1 pair' : `${llr.length} pairs`;
  svg.append(node('title', {}, `LLR after each of ${pairs}, between the H0 accept bound ${fmt(lower)} and the H1 accept bound ${fmt(upper)}`));
  const span = Math.max(upper - lower, 1e-9);
  const lo = Math.min(lower, 0) - MARGIN * span;
  const hi = Math.max(upper, 0) + MARGIN * span;
  const x = (i: number) => PAD.l + (llr.length <= 1 ? (W - PAD.l - PAD.r) / 2 : (i / (llr.length - 1)) * (W - PAD.l - PAD.r));
  const y = (v: number) => PAD.t + (1 - (v - lo) / (hi - lo)) * (H - PAD.t - PAD.b);
  const [top, bottom] = [y(hi), y(lo)];

  const lines = [
    { v: upper, cls: 'bound upper', key: 'upper', label: `H1 accept bound ${fmt(upper)}` },
    { v: lower, cls: 'bound lower', key: 'lower', label: `H0 accept bound ${fmt(lower)}` },
    { v: 0, cls: 'grid', key: 'zero', label: '0' },
  ];
  const labelY = spreadLabels(lines.map((l) => y(l.v)), top, bottom);
  lines.forEach((l, i) => {
    svg.append(node('line', { x1: PAD.l, x2: W - PAD.r, y1: y(l.v), y2: y(l.v), class: l.cls }));
    svg.append(node('text', { x: W - PAD.r - 2, y: labelY[i], 'text-anchor': 'end', class: 'axis line-label', 'data-line': l.key }, l.label));
  });

  // The line is clipped to the band; points are drawn only inside it.
  const clip = node('clipPath', { id: clipId });
  clip.append(node('rect', { x: 0, y: top, width: W, height: bottom - top }));
  svg.append(clip);
  if (llr.length > 0) {
    svg.append(node('polyline', { points: llr.map((v, i) => `${x(i)},${y(v)}`).join(' '), class: 'line', 'clip-path': `url(#${clipId})` }));
  }
  llr.forEach((v, i) => {
    if (v >= lo && v <= hi) svg.append(node('circle', { cx: x(i), cy: y(v), r: 3, class: 'point' }));
  });
  for (const m of exits(llr, lo, hi)) {
    const ey = m.above ? top : bottom;
    const ex = llr.length <= 1 ? x(0) : x(m.at);
    const tip = m.above ? ey - 6 : ey + 6;
    svg.append(node('polygon', { points: `${ex - 5},${ey} ${ex + 5},${ey} ${ex},${tip}`, class: 'off-chart', 'data-pair': m.pair }));
    const text = `${m.above ? '↑' : '↓'} LLR ${fmt(m.value)} (pair ${m.pair})`;
    const anchor = ex > W / 2 ? 'end' : 'start';
    svg.append(node('text', { x: anchor === 'end' ? ex - 8 : ex + 8, y: m.above ? ey + 12 : ey - 4, 'text-anchor': anchor, class: 'axis off-chart-label' }, text));
  }
  return svg;
}

/**
 * Each run of the LLR outside [lo, hi]: where it crosses the edge (a fractional pair index; at the
 * first point when it starts outside), on which side, and the farthest value of the run with its pair.
 */
function exits(llr: readonly number[], lo: number, hi: number): { at: number; above: boolean; value: number; pair: number }[] {
  const out: { at: number; above: boolean; value: number; pair: number }[] = [];
  let run: { at: number; above: boolean; value: number; pair: number } | null = null;
  for (let i = 0; i < llr.length; i++) {
    const v = llr[i];
    if (v >= lo && v <= hi) {
      run = null;
      continue;
    }
    const above = v > hi;
    if (run === null || run.above !== above) {
      const prev: number = i > 0 ? llr[i - 1] : v;
      const inside = i > 0 && prev >= lo && prev <= hi;
      const edge: number = above ? hi : lo;
      run = { at: inside ? i - 1 + (edge - prev) / (v - prev) : i, above, value: v, pair: i + 1 };
      out.push(run);
    } else if (above ? v > run.value : v < run.value) {
      run.value = v;
      run.pair = i + 1;
    }
  }
  return out;
}
