// The front page follows the live games without a reload. Two guests meet in its lobby: one opens a seek, the other sees it in the list and
// accepts it; both pages land on the same game, in opposite seats, each able to play its own.
import t from 'tap';
import { Bot, UNLIMITED } from '../helpers/bot.js';
import { rig } from '../helpers/browser.js';

t.test('a guest opens a seek, another accepts it from the lobby list; both play the same game', async (t) => {
  const { app, context, page, foreign, errors } = await rig(t, { overrides: { 'games.seedGraceMs': 600_000 } });
  await page.goto(app.base + '/');
  // The live list and the TV pick up a game started after the page was loaded, without a reload.
  // The list is filled by the page's first request for the live games, after the load event.
  t.ok(await page.waitForSelector('td.empty', { timeout: 10_000 }), 'no game at first');
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const live = await white.playAgainst(black, UNLIMITED);
  await page.waitForSelector(`tr[data-game="${live}"]`, { timeout: 10_000 });
  await page.waitForSelector(`.tv a[href="/game/${live}"]`);
  t.match(await page.textContent(`tr[data-game="${live}"]`), /anon white.*anon black.*Unlimited/, 'the new game is listed');
  await page.click('text=Open a seek');
  await page.waitForSelector('text=Your seek is open');
  const seeks = (await app.req('GET', '/lobby/seeks')).json as { seeks: { id: string; kind: string }[] };
  t.equal(seeks.seeks.length, 1, 'the server lists the seek');
  t.equal(seeks.seeks[0].kind, 'Human');

  const other = await context.newPage();
  await other.goto(app.base + '/');
  const row = await other.waitForSelector(`li[data-seek="${seeks.seeks[0].id}"]`);
  t.match(await row.textContent(), /a guest/);
  t.notOk(await page.isVisible(`li[data-seek="${seeks.seeks[0].id}"]`), 'the owner is not offered its own seek');
  await other.click(`li[data-seek="${seeks.seeks[0].id}"] button`);
  await other.waitForURL(/\/game\/[A-Za-z0-9]+$/);
  // The owner's page learns of the match on its next poll and goes to the game too.
  await page.waitForURL(other.url(), { timeout: 15_000 });
  const seats = await Promise.all([page, other].map(async (p) => {
    const el = await p.waitForSelector('.player.bottom .name:has-text("(you)")').catch(() => null);
    return el ? el.textContent() : p.textContent('.player.bottom .name');
  }));
  t.ok(seats.every((s) => / \(you\)$/.test(s ?? '')), `both pages hold a seat: ${seats.join(' / ')}`);
  t.not(seats[0]!.split(':')[0], seats[1]!.split(':')[0], 'opposite seats');
  // Both seeded, so the opening roll comes without the grace period; the mover's page offers its moves.
  const [a, b] = await Promise.all([page, other].map((p) => p.waitForFunction(() => {
    const d = (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document;
    return d.querySelectorAll('.options button.uci').length;
  }, undefined, { timeout: 5000 }).then(() => 1, () => 0)));
  t.equal(a + b, 1, 'exactly one of the two is offered moves: the side to move');

  // The owner resigns (after confirming); both pages show the end.
  page.once('dialog', (d) => void d.accept());
  await page.click('button:text-is("Resign")');
  const loser = seats[0]!.split(':')[0];
  const winner = loser === 'White' ? 'Black' : 'White';
  for (const p of [page, other]) {
    await p.waitForSelector(`.result:has-text("${winner} wins (resignation)")`);
  }
  t.pass(`both pages show ${winner} winning by resignation`);
  t.notOk(await page.isVisible('button:text-is("Resign")'), 'no Resign button after the end');
  t.same(foreign, [], 'no request left the server');
  t.same(errors, [], 'no error in the page');
});
