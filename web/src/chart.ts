// The rating chart: a line of the rating over time with the deviation drawn as a band (rating ± RD),
// in SVG, scaled to the data.
import type { RatingPoint } from './api.js';

const SVG = 'http://www.w3.org/2000/svg';
const W = 600;
const H = 220;
const PAD = { l: 44, r: 10, t: 10, b: 24 };

/** Epoch ms of a rating point's ISO date-time. */
const toMs = (at: string): number => Date.parse(at);

function node<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const n = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}

export function ratingChart(points: readonly RatingPoint[]): SVGSVGElement {
  const pts = points.map((p) => ({ t: toMs(p.at), r: p.rating, d: p.rd })).filter((p) => Number.isFinite(p.t)).sort((a, b) => a.t - b.t);
  const svg = node('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img' });
  const last = pts[pts.length - 1];
  svg.append(node('title', {}, last ? `Rating over time; now ${Math.round(last.r)} ± ${Math.round(last.d)}` : 'No rating history yet'));
  if (pts.length === 0) return svg;
  const t0 = pts[0].t;
  const t1 = Math.max(pts[pts.length - 1].t, t0 + 1);
  const lo = Math.min(...pts.map((p) => p.r - p.d));
  const hi = Math.max(...pts.map((p) => p.r + p.d));
  const x = (t: number) => (pts.length === 1 ? (PAD.l + W - PAD.r) / 2 : PAD.l + ((t - t0) / (t1 - t0)) * (W - PAD.l - PAD.r));
  const y = (r: number) => PAD.t + (1 - (r - lo) / Math.max(1, hi - lo)) * (H - PAD.t - PAD.b);
  for (let k = 0; k <= 4; k++) {
    const r = lo + ((hi - lo) * k) / 4;
    svg.append(node('line', { x1: PAD.l, x2: W - PAD.r, y1: y(r), y2: y(r), class: 'grid' }));
    svg.append(node('text', { x: PAD.l - 4, y: y(r) + 4, 'text-anchor': 'end', class: 'axis' }, String(Math.round(r))));
  }
  const upper = pts.map((p) => `${x(p.t)},${y(p.r + p.d)}`);
  const lower = pts.map((p) => `${x(p.t)},${y(p.r - p.d)}`).reverse();
  if (pts.length === 1) {
    svg.append(node('rect', { x: x(t0) - 6, y: y(last.r + last.d), width: 12, height: y(last.r - last.d) - y(last.r + last.d), class: 'band' }));
  } else svg.append(node('polygon', { points: [...upper, ...lower].join(' '), class: 'band' }));
  svg.append(node('polyline', { points: pts.map((p) => `${x(p.t)},${y(p.r)}`).join(' '), class: 'line' }));
  for (const p of pts) svg.append(node('circle', { cx: x(p.t), cy: y(p.r), r: 3, class: 'point' }));
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  svg.append(node('text', { x: PAD.l, y: H - 6, class: 'axis' }, day(t0)));
  svg.append(node('text', { x: W - PAD.r, y: H - 6, 'text-anchor': 'end', class: 'axis' }, day(t1)));
  return svg;
}
