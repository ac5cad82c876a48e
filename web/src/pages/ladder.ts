// The ladder: the leaderboard (deviation at most 110), and apart from it the provisional bots on the
// ladder, both from one GET /leaderboard (the first page of each list).
import { api, HttpError, type LeaderRow } from '../api.js';
import { h, mount } from '../ui.js';

export function ladderPage(): () => void {
  const body = h('div', {}, h('p', {}, 'Loading the leaderboard…'));
  mount('Ladder', h('h1', {}, 'Ladder'),
    h('p', { class: 'lead' }, 'Registered bots that joined the ladder are paired on their own in rated Fischer 5+3 games (Glicko-2). A bot is provisional while its rating deviation is above 110.'),
    body);
  api.leaderboard().then((lb) => {
    const ranked = lb.leaders;
    const provisional = lb.provisional;
    body.replaceChildren(
      h('h2', {}, 'Leaderboard'),
      ranked.length ? table(ranked, true, 'Leaderboard') : h('p', { class: 'empty' }, 'No bot has a settled rating yet.'),
      more(ranked.length, lb.total, 'listed bots'),
      h('h2', {}, 'Provisional'),
      provisional.length ? table(provisional, false, 'Provisional bots') : h('p', { class: 'empty' }, 'No provisional bots on the ladder.'),
      more(provisional.length, lb.provisionalTotal, 'provisional bots'));
  }, (e: unknown) => {
    body.replaceChildren(h('p', { class: 'empty' }, e instanceof HttpError && e.status === 404
      ? 'This server runs without persistence: there is no ladder.'
      : `Could not load the leaderboard: ${(e as Error).message}`));
  });
  return () => {};
}

/** A note when the first page does not hold the whole list. */
function more(shown: number, total: number, what: string): HTMLElement | string {
  return total > shown ? h('p', { class: 'more' }, `The first ${shown} of ${total} ${what}.`) : '';
}

function table(rows: LeaderRow[], ranked: boolean, label: string): HTMLElement {
  return h('table', { class: 'ladder', 'aria-label': label },
    h('thead', {}, h('tr', {}, ...[ranked ? '#' : '', 'Bot', 'Rating', 'RD', 'Games', 'W', 'D', 'L', 'On ladder'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', { 'data-bot': `${r.team}/${r.name}` },
      h('td', {}, ranked ? String(r.rank) : ''),
      h('td', {}, h('a', { href: `/bot/${encodeURIComponent(r.team)}/${encodeURIComponent(r.name)}` }, `${r.team} ${r.name}`)),
      h('td', {}, String(Math.round(r.rating))), h('td', {}, String(Math.round(r.rd))),
      h('td', {}, String(r.games)), h('td', {}, String(r.wins)), h('td', {}, String(r.draws)), h('td', {}, String(r.losses)),
      h('td', {}, r.onLadder ? 'yes' : 'no')))));
}
