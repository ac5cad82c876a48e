// The web page's entry: picks the page for the path.
import { gamePage } from './pages/game.js';
import { homePage } from './pages/home.js';
import { ladderPage } from './pages/ladder.js';
import { eventListPage, eventPage } from './pages/event.js';
import { profilePage } from './pages/profile.js';
import { startRouter } from './router.js';
import { h, mount } from './ui.js';

startRouter((path) => {
  const game = /^\/game\/([^/]+)$/.exec(path);
  if (game) return gamePage(decodeURIComponent(game[1]));
  const bot = /^\/bot\/([^/]+)\/([^/]+)$/.exec(path);
  if (bot) return profilePage(decodeURIComponent(bot[1]), decodeURIComponent(bot[2]));
  if (path === '/ladder') return ladderPage();
  const ev = /^\/tournament\/([^/]+)$/.exec(path);
  if (ev) return eventPage(decodeURIComponent(ev[1]));
  if (path === '/tournaments') return eventListPage();
  if (path === '/') return homePage();
  mount('Not found', h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '/' }, 'Back to the live games')));
  return () => {};
});
