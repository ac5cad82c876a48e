// The web page's entry: picks the page for the path.
import { gamePage } from './pages/game.js';
import { homePage } from './pages/home.js';
import { ladderPage } from './pages/ladder.js';
import { eventListPage, eventPage } from './pages/event.js';
import { profilePage } from './pages/profile.js';
import { startRouter } from './router.js';
import { matchPage } from '../../src/domain/pages.js';
import { h, mount } from './ui.js';

startRouter((path) => {
  const page = matchPage(path);
  switch (page?.name) {
    case 'game':
      return gamePage(page.params[0]);
    case 'profile':
      return profilePage(page.params[0], page.params[1]);
    case 'ladder':
      return ladderPage();
    case 'home':
      return homePage();
    case 'events':
      return eventListPage();
    case 'event':
      return eventPage(page.params[0]);
  }
  mount('Not found', h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '/' }, 'Back to the live games')));
  return () => {};
});
