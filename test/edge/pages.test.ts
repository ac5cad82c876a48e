// The web page's one table of paths: what each path shows, with its parameters; anything else is no page.
import t from 'tap';
import { PAGE_ROUTES, matchPage } from '../../src/domain/pages.js';

t.test('each page path is matched with its parameters; other paths are not pages', async (t) => {
  t.same(matchPage('/'), { name: 'home', params: [] });
  t.same(matchPage('/ladder'), { name: 'ladder', params: [] });
  t.same(matchPage('/game/abc123'), { name: 'game', params: ['abc123'] });
  t.same(matchPage('/bot/team%20a/name'), { name: 'profile', params: ['team a', 'name'] });
  t.same(matchPage('/tournaments'), { name: 'events', params: [] });
  t.same(matchPage('/tournament/ev1'), { name: 'event', params: ['ev1'] });
  for (const path of ['/game/', '/game', '/game/a/b', '/ladder/x', '/bot/a', '/bot/a/b/c', '/games', '/bot/%E0%A4%A/x', '/tournament/', '/events', '']) {
    t.equal(matchPage(path), null, `${JSON.stringify(path)} is no page`);
  }
  t.same(PAGE_ROUTES.map((p) => p.name), ['home', 'game', 'ladder', 'events', 'event', 'profile'], 'one entry per page');
});
