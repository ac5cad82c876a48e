// Events: the list (newest first) and one event's page: live standings, the crosstable of points
// between players, the SPRT's LLR against its bounds as a chart, and every pair with links to its
// two games. The page reloads the event on every line of its stream, so it follows the event live.
import { api, followEvent, type EventView } from '../api.js';
import { llrChart } from '../llr-chart.js';
import { h, mount, timeControlText } from '../ui.js';

const FORMATS: Record<string, string> = { match: 'Match', gauntlet: 'Gauntlet', roundRobin: 'Round-robin', swiss: 'Swiss', sprt: 'SPRT' };
const who = (p: { team: string; name: string }) => `${p.team} ${p.name}`;
const num = (x: number, digits = 2) => (Number.isInteger(x) ? String(x) : x.toFixed(digits));
const pairCount = (n: number) => (n === 1 ? '1 pair' : `${n} pairs`);

export function eventListPage(): () => void {
  const body = h('div', {}, h('p', {}, 'Loading the events…'));
  mount('Events', h('h1', {}, 'Events'),
    h('p', { class: 'lead' }, 'Matches, gauntlets, round-robins, Swiss events and SPRT tests between bots, every encounter played as mirror pairs.'),
    body);
  api.events().then((list) => {
    body.replaceChildren(list.events.length === 0 ? h('p', { class: 'empty' }, 'No events yet.') : h('table', { class: 'events', 'aria-label': 'Events' },
      h('thead', {}, h('tr', {}, ...['Event', 'Format', 'State', 'Players', 'Pairs', 'Host'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...list.events.map((e) => h('tr', { 'data-event': e.eventId },
        h('td', {}, h('a', { href: `/tournament/${encodeURIComponent(e.eventId)}` }, e.name)),
        h('td', {}, FORMATS[e.format] ?? e.format),
        h('td', {}, e.verdict ? `${e.state} (${e.verdict})` : e.state),
        h('td', {}, String(e.players)), h('td', {}, String(e.pairsFinished)), h('td', {}, who(e.host)))))));
  }, (e: unknown) => body.replaceChildren(h('p', { class: 'empty' }, `Could not load the events: ${(e as Error).message}`)));
  return () => {};
}

export function eventPage(id: string): () => void {
  const body = h('div', {}, h('p', {}, 'Loading the event…'));
  mount('Event', body);
  let stopped = false;
  const load = () => api.event(id).then((ev) => {
    if (!stopped) render(body, ev);
  }, (e: unknown) => body.replaceChildren(h('p', { class: 'empty' }, `Could not load the event: ${(e as Error).message}`)));
  void load();
  const follower = followEvent(id, () => void load());
  return () => {
    stopped = true;
    follower.stop();
  };
}

function render(body: HTMLElement, ev: EventView): void {
  document.title = `${ev.name} · dicechess`;
  // A cancel lets running pairs finish: say how many still play (the seed comes after them).
  const now = ev.state === 'cancelling' ? `cancelled, ${pairCount(ev.pairsRunning)} still playing` : ev.state;
  const state = ev.verdict ? `${now}, verdict ${ev.verdict} after ${pairCount(ev.verdictAfter ?? 0)}` : now;
  body.replaceChildren(
    h('h1', {}, ev.name),
    h('p', { class: 'lead' }, `${FORMATS[ev.format] ?? ev.format} · ${timeControlText(ev.timeControl)} · hosted by ${who(ev.host)} · `,
      h('span', { class: 'event-state' }, state), ev.note ? ` · ${ev.note}` : ''),
    h('h2', {}, 'Standings'),
    standings(ev),
    ev.ratings ? h('h2', {}, 'Ratings') : '',
    ev.ratings ? ratings(ev.ratings) : '',
    ev.players.length > 2 ? h('h2', {}, 'Crosstable') : '',
    ev.players.length > 2 ? crosstable(ev) : '',
    ev.sprt ? h('h2', {}, 'SPRT') : '',
    ev.sprt ? sprtBlock(ev) : '',
    h('h2', {}, 'Encounters'),
    encounters(ev),
    h('h2', {}, 'Pairs'),
    pairs(ev),
    h('p', { class: 'fair' }, `Commitment ${ev.commit}`, ev.seed ? h('br') : '', ev.seed ? `Seed ${ev.seed}` : ''),
  );
}

function standings(ev: EventView): HTMLElement {
  const cols = ['#', 'Bot', 'Points', 'Games', 'W', 'D', 'L', 'Pairs', 'Byes', 'Time losses', 'Refused moves'];
  return h('table', { class: 'standings', 'aria-label': 'Standings' },
    h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...ev.standings.map((r, i) => h('tr', { 'data-bot': `${r.team}/${r.name}` },
      h('td', {}, String(i + 1)), h('td', {}, who(r)), h('td', {}, num(r.points, 1)), h('td', {}, String(r.games)),
      h('td', {}, String(r.wins)), h('td', {}, String(r.draws)), h('td', {}, String(r.losses)), h('td', {}, String(r.pairs)),
      h('td', {}, String(r.byes)), h('td', {}, String(r.timeLosses)), h('td', {}, String(r.refusedMoves))))));
}

/** Bradley–Terry ratings (mean 0) with their 95% intervals, best first. */
function ratings(rows: NonNullable<EventView['ratings']>): HTMLElement {
  return h('table', { class: 'ratings', 'aria-label': 'Ratings' },
    h('thead', {}, h('tr', {}, ...['Bot', 'Elo', '95% interval', 'Games'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', { 'data-bot': `${r.team}/${r.name}` },
      h('td', {}, who(r)), h('td', {}, r.elo.toFixed(0)), h('td', {}, `${r.low.toFixed(0)} … ${r.high.toFixed(0)}`),
      h('td', {}, String(r.games))))));
}

/** Points each row player scored against each column player, over their finished pairs. */
function crosstable(ev: EventView): HTMLElement {
  const key = (p: { team: string; name: string }) => `${p.team}/${p.name}`;
  const order = ev.standings.map(key);
  const got = new Map<string, number>();
  for (const p of ev.pairs) {
    if (p.scores[0] === null || p.scores[1] === null) continue;
    const [a, b] = p.players.map(key);
    const s = p.scores[0] + p.scores[1];
    got.set(`${a}|${b}`, (got.get(`${a}|${b}`) ?? 0) + s);
    got.set(`${b}|${a}`, (got.get(`${b}|${a}`) ?? 0) + 2 - s);
  }
  return h('table', { class: 'crosstable', 'aria-label': 'Crosstable' },
    h('thead', {}, h('tr', {}, h('th', {}, ''), ...order.map((_, j) => h('th', { scope: 'col' }, String(j + 1))))),
    h('tbody', {}, ...order.map((row, i) => h('tr', {},
      h('th', { scope: 'row' }, `${i + 1}. ${row.replace('/', ' ')}`),
      ...order.map((col) => h('td', {}, row === col ? '×' : got.has(`${row}|${col}`) ? num(got.get(`${row}|${col}`)!, 1) : '·'))))));
}

function sprtBlock(ev: EventView): HTMLElement {
  const enc = ev.encounters[0];
  const bounds = enc?.bounds ?? [Math.log(ev.sprt!.beta / (1 - ev.sprt!.alpha)), Math.log((1 - ev.sprt!.beta) / ev.sprt!.alpha)];
  return h('div', {},
    h('p', { class: 'sprt-line' }, `H0: ${ev.sprt!.elo0} Elo, H1: ${ev.sprt!.elo1} Elo, α ${ev.sprt!.alpha}, β ${ev.sprt!.beta}. LLR ${num(enc?.llr ?? 0)} in [${num(bounds[0])}, ${num(bounds[1])}]` + (ev.verdict ? `: ${ev.verdict}` : '')),
    llrChart(ev.llrHistory, bounds as [number, number], `llr-clip-${ev.eventId}`));
}

function encounters(ev: EventView): HTMLElement {
  if (ev.encounters.length === 0) return h('p', { class: 'empty' }, 'No pair has finished yet.');
  const cols = ['Players', 'Pairs', 'LL LD WL+DD WD WW', 'Score', 'Elo (95%)', 'LOS', 'Draws', 'Luck r'];
  return h('table', { class: 'encounters', 'aria-label': 'Encounters' },
    h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...ev.encounters.map((e) => h('tr', {},
      h('td', {}, `${who(e.players[0])} – ${who(e.players[1])}`), h('td', {}, String(e.pairs)), h('td', {}, e.pentanomial.join(' ')),
      h('td', {}, num(e.score, 3)), h('td', {}, eloText(e.elo, e.eloInterval)),
      h('td', {}, `${num(e.los * 100, 1)}%`), h('td', {}, `${num(e.drawRatio * 100, 1)}%`), h('td', {}, num(e.luck.correlation))))));
}

/**
 * Elo with its 95% interval. When every pair scored the same the interval has no width (and the
 * estimate sits at its cap): "1200 [1200, 1200]" read as certainty, so it says n/a and why.
 */
function eloText(elo: number, [lo, hi]: readonly [number, number]): string {
  if (hi - lo > 0) return `${num(elo, 0)} [${num(lo, 0)}, ${num(hi, 0)}]`;
  return `${num(elo, 0)} (interval n/a: every pair scored the same)`;
}

/**
 * Each pair with its two games. A game's link gives its result White–Black as chess writes it (the
 * pair's first player has White in game 1 and Black in game 2) and names the winner: "game 2: 0–1
 * (acme alpha wins)", "½–½ (draw)", or "playing". A bare score ("second game 1") did not say whose.
 */
function pairs(ev: EventView): HTMLElement {
  if (ev.pairs.length === 0) return h('p', { class: 'empty' }, 'No pair has started yet.');
  const half = (s: number) => (s === 0.5 ? '½' : String(s));
  const result = (p: EventView['pairs'][number], k: number) => {
    const s = p.scores[k]; // the first player's score in game k
    if (s === null) return 'playing';
    const white = k === 0 ? s : 1 - s;
    const winner = s === 1 ? p.players[0] : s === 0 ? p.players[1] : null;
    return `${half(white)}–${half(1 - white)} (${winner ? `${who(winner)} wins` : 'draw'})`;
  };
  return h('div', { class: 'pairs-block' }, h('p', { class: 'note' }, 'Results are White–Black; the first player named has White in game 1 and Black in game 2.'),
    h('ol', { class: 'pairs', start: '0' }, ...ev.pairs.map((p) => h('li', { 'data-pair': String(p.index) },
    p.round ? `Round ${p.round}: ` : '', `${who(p.players[0])} – ${who(p.players[1])}: `,
    ...(p.games ?? []).flatMap((g, k) => [
      k > 0 ? ', ' : '',
      h('a', { href: `/game/${encodeURIComponent(g)}`, 'data-game': String(k + 1) }, `game ${k + 1}: ${result(p, k)}`),
    ])))));
}
