// A small hand-written SVG line chart: one x axis of categories (e.g. pair counts, evenly spaced),
// a left y axis for the first series and a right y axis for the second, each from 0. Enough for the
// charts the benchmarks write into docs/; no dependency.

export interface Series {
  label: string;
  unit: string;
  values: number[];
  colour: string;
}

export interface ChartSpec {
  title: string;
  subtitle: string;
  xLabel: string;
  xTicks: string[];
  /** Label every k-th x tick only (default 1: all), for long series. */
  xLabelEvery?: number;
  left: Series;
  right: Series;
}

const W = 640;
const H = 360;
const M = { top: 56, right: 72, bottom: 56, left: 72 };

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A round axis maximum at or above `max` (1, 2, 2.5 or 5 times a power of ten). */
function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

const fmt = (n: number): string => (n >= 1000 ? Math.round(n).toLocaleString('en-US') : Number(n.toPrecision(3)).toString());

export function lineChart(c: ChartSpec): string {
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const n = c.xTicks.length;
  const x = (i: number): number => Math.round(M.left + (n === 1 ? pw / 2 : (i * pw) / (n - 1)));
  const axis = (s: Series) => {
    const max = niceMax(Math.max(...s.values.filter(Number.isFinite)));
    return { max, y: (v: number): number => M.top + ph - (v / max) * ph };
  };
  const l = axis(c.left);
  const r = axis(c.right);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(c.title)}</text>`,
    `<text x="${W / 2}" y="40" text-anchor="middle" fill="#555">${esc(c.subtitle)}</text>`,
  ];
  // Grid and y ticks (five steps on each axis).
  for (let k = 0; k <= 5; k++) {
    const y = M.top + ph - (k * ph) / 5;
    out.push(`<line x1="${M.left}" y1="${y}" x2="${M.left + pw}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${M.left - 6}" y="${y + 4}" text-anchor="end" fill="${c.left.colour}">${fmt((l.max * k) / 5)}</text>`);
    out.push(`<text x="${M.left + pw + 6}" y="${y + 4}" fill="${c.right.colour}">${fmt((r.max * k) / 5)}</text>`);
  }
  out.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`);
  c.xTicks.forEach((t, i) => {
    out.push(`<line x1="${x(i)}" y1="${M.top + ph}" x2="${x(i)}" y2="${M.top + ph + 5}" stroke="#888"/>`);
    if (i % (c.xLabelEvery ?? 1) === 0) out.push(`<text x="${x(i)}" y="${M.top + ph + 18}" text-anchor="middle">${esc(t)}</text>`);
  });
  out.push(`<text x="${M.left + pw / 2}" y="${H - 12}" text-anchor="middle">${esc(c.xLabel)}</text>`);
  const yLabel = (s: Series, xPos: number, rot: number) =>
    `<text transform="translate(${xPos},${M.top + ph / 2}) rotate(${rot})" text-anchor="middle" fill="${s.colour}">${esc(`${s.label} (${s.unit})`)}</text>`;
  out.push(yLabel(c.left, 18, -90), yLabel(c.right, W - 14, 90));
  for (const [s, a, dash] of [[c.left, l, ''], [c.right, r, ' stroke-dasharray="6 4"']] as const) {
    const pts = s.values.map((v, i) => `${x(i).toFixed(1)},${a.y(v).toFixed(1)}`).join(' ');
    out.push(`<polyline points="${pts}" fill="none" stroke="${s.colour}" stroke-width="2"${dash}/>`);
    s.values.forEach((v, i) => {
      out.push(`<circle cx="${x(i).toFixed(1)}" cy="${a.y(v).toFixed(1)}" r="3.5" fill="${s.colour}"><title>${esc(`${c.xTicks[i]}: ${fmt(v)} ${s.unit}`)}</title></circle>`);
    });
  }
  // Legend, top left inside the plot.
  [c.left, c.right].forEach((s, k) => {
    const y = M.top + 14 + k * 16;
    const dash = k ? ' stroke-dasharray="6 4"' : '';
    out.push(`<line x1="${M.left + 10}" y1="${y - 4}" x2="${M.left + 34}" y2="${y - 4}" stroke="${s.colour}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${M.left + 40}" y="${y}">${esc(s.label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
