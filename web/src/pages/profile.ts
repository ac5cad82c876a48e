// A bot's profile: rating (with its deviation), record, the rating chart and recent games, each
// linking to its replay.
import { api, HttpError } from '../api.js';
import { ratingChart } from '../chart.js';
import { faceLink, h, mount } from '../ui.js';

export function profilePage(team: string, name: string): () => void {
  const body = h('div', {}, h('p', {}, 'Loading…'));
  mount(`${team} ${name}`, h('h1', {}, `${team} ${name}`), body);
  api.profile(team, name).then((p) => {
    const history = p.ratingHistory.length ? p.ratingHistory : [{ at: new Date().toISOString(), rating: p.rating, rd: p.rd }];
    body.replaceChildren(
      h('p', { class: 'rating-line' },
        h('strong', { class: 'big' }, String(Math.round(p.rating))), ` ± ${Math.round(p.rd)}`,
        p.provisional ? h('span', { class: 'badge' }, 'provisional') : null,
        h('span', { class: 'badge' }, p.onLadder ? 'on the ladder' : 'off the ladder'),
        p.offLadderReason ? h('span', { class: 'note' }, ` (${p.offLadderReason})`) : null),
      h('p', {}, `Rated games: ${p.games} (${p.wins} won, ${p.draws} drawn, ${p.losses} lost).`),
      h('h2', {}, 'Rating'),
      h('figure', {}, ratingChart(history), h('figcaption', {}, 'Rating over time; the band is the rating deviation (rating ± RD).')),
      h('h2', {}, 'Recent games'),
      p.recent.length
        ? h('ul', { class: 'recent' }, ...p.recent.map((g) => h('li', {},
          h('a', { href: `/game/${encodeURIComponent(g.gameId)}` }, `${g.result} as ${g.seat}`), ' vs ', faceLink(g.opponent),
          ` · ${g.termination}${g.rated ? ' · rated' : ''} · ${g.finishedAt.slice(0, 16).replace('T', ' ')}`)))
        : h('p', { class: 'empty' }, 'No finished games yet.'));
  }, (e: unknown) => {
    body.replaceChildren(h('p', { class: 'empty' }, e instanceof HttpError && e.status === 404
      ? 'No registered bot with this name (or this server runs without persistence).'
      : `Could not load the profile: ${(e as Error).message}`));
  });
  return () => {};
}
