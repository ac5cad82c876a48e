// The ladder page lists rated bots (seeded straight into an LMDB store before the server starts),
// provisional ones apart, and a bot's profile shows its rating, the chart and recent games that
// link to their replays.
import t from 'tap';
import { DEFAULT_RATING, SCHEMA_VERSION } from '../../src/domain/records.js';
import type { SeatPlayer } from '../../src/domain/types.js';
import { diskStore } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/bot.js';
import { rig } from '../helpers/browser.js';

const BOTS = [
  { name: 'alpha', rating: 1820, rd: 60 },
  { name: 'beta', rating: 1650, rd: 95 },
  { name: 'newbie', rating: 1500, rd: 300 },
];

const seat = (name: string): SeatPlayer => ({
  id: `bot:team:acme:${name}`, face: { kind: 'Bot', name: `acme ${name}` }, participant: { Bot: { team: 'acme', name } },
});

t.test('the ladder page lists the rated bots; a profile links its games to their replays', async (t) => {
  const store = await diskStore(t);
  for (const b of BOTS) {
    await store.createBot({
      schema: SCHEMA_VERSION, id: `bot:team:acme:${b.name}`, team: 'acme', name: b.name, tokenHash: b.name.padEnd(64, '0'),
      createdAt: 0, onLadder: true, rating: { ...DEFAULT_RATING, rating: b.rating, rd: b.rd }, webhook: null,
    });
  }
  const { app, page, foreign, errors } = await rig(t, { store });
  // One finished game between two of them, for the profile's recent games.
  const game = await app.server.games.create({ white: seat('alpha'), black: seat('beta'), timeControl: UNLIMITED, rated: false });
  // The end is awaited on the game's own events (published once persisted), not polled: an LMDB write
  // under load can outlast any fixed number of event-loop turns.
  const ended = new Promise<void>((resolve) => {
    game.subscribe({ deliver: (f) => 'GameEnded' in f.event && resolve() });
  });
  game.resign('Black');
  await ended;
  t.notOk(game.isActive(), 'the game has ended');

  await page.goto(`${app.base}/ladder`);
  await page.waitForSelector('table.ladder');
  const ranked = await page.$$eval('table[aria-label="Leaderboard"] tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-bot')));
  t.same(ranked, ['acme/alpha', 'acme/beta'], 'the bots with a settled rating, best first');
  const row = await page.textContent('tr[data-bot="acme/alpha"]');
  t.match(row, /1820/, 'with the rating');
  const provisional = await page.$$eval('table[aria-label="Provisional bots"] tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-bot')));
  t.notOk(ranked.includes('acme/newbie'), 'a provisional bot is not ranked');
  t.same(provisional, ['acme/newbie'], 'it appears apart, among the provisional bots');
  t.match(await page.textContent('tr[data-bot="acme/newbie"]'), /1500/, 'with its rating');

  await page.click('tr[data-bot="acme/alpha"] a');
  await page.waitForURL(/\/bot\/acme\/alpha$/);
  await page.waitForSelector('.rating-line');
  t.match(await page.textContent('.rating-line'), /1820 ± 60/);
  t.ok(await page.isVisible('svg.chart .band'), 'the chart draws the deviation band');
  const link = await page.waitForSelector(`.recent a[href="/game/${game.id}"]`);
  t.match(await link.textContent(), /win as White/);
  await link.click();
  await page.waitForURL(new RegExp(`/game/${game.id}$`));
  await page.waitForSelector('.result:has-text("White wins")');
  t.ok(await page.isVisible('.replay'), 'the game opens as a replay');

  // A direct load of a profile path gets the page too (the server serves the shell to browsers).
  await page.goto(`${app.base}/bot/acme/beta`);
  await page.waitForSelector('.rating-line');
  t.match(await page.textContent('h1'), /acme beta/);
  t.same(foreign, [], 'no request left the server');
  t.same(errors, [], 'no error in the page');
});
