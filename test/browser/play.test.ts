// A guest plays a whole game against house/random in the browser, only by clicking: the front page's
// button starts it, the legal-move tree offers the pieces, each micro-move is a click on a piece and
// a click on its target, and the page shows the result at the end.
import t from 'tap';
import type { Page } from 'playwright-core';
import { rig, shownTurns, turnKey, type MiniDoc } from './support.js';

const VALUE: Record<string, number> = { king: 100, queen: 9, rook: 5, bishop: 3, knight: 3, pawn: 1 };

/** The option capturing the most valuable piece (a quick end), else the first. */
async function choose(page: Page, options: string[]): Promise<string> {
  let best = options[0];
  let bestScore = -1;
  for (const uci of options) {
    const label = (await page.getAttribute(`[data-square="${uci.slice(2, 4)}"]`, 'aria-label')) ?? '';
    const piece = /(white|black) (\w+)/.exec(label);
    const score = piece ? VALUE[piece[2]] ?? 0 : 0;
    if (score > bestScore) {
      best = uci;
      bestScore = score;
    }
  }
  return best;
}

/** Turns listed, micro-moves offered and dice marked used, read at one instant. */
const counts = (page: Page): Promise<{ turns: number; options: number; used: number }> =>
  page.evaluate(() => {
    const d = (globalThis as unknown as { document: MiniDoc }).document;
    return {
      turns: d.querySelectorAll('ol.moves li').length,
      options: d.querySelectorAll('.options button.uci').length,
      used: d.querySelectorAll('.roll .die.used').length,
    };
  });

t.test('a guest plays house/random to the end by clicking', async (t) => {
  const { app, page, foreign, errors } = await rig(t);
  await page.goto(app.base + '/');
  await page.selectOption('#tc', { label: 'Unlimited' });
  await page.click('text=Play house/random');
  await page.waitForURL(/\/game\/[A-Za-z0-9]+$/);
  const gameId = page.url().split('/').pop()!;

  let clicks = 0;
  let turns = 0;
  for (let guard = 0; guard < 2000; guard++) {
    await page.waitForFunction(() => {
      const d = (globalThis as unknown as { document: MiniDoc }).document;
      return (d.querySelector('.result')?.textContent ?? '') !== '' || d.querySelectorAll('.options button.uci').length > 0;
    });
    if ((await page.textContent('.result')) !== '') break;
    const options = await page.$$eval('.options button.uci', (bs) => bs.map((b) => b.getAttribute('data-uci')!));
    const before = await counts(page);
    const uci = await choose(page, options);
    await page.click(`[data-square="${uci.slice(0, 2)}"]`);
    await page.click(`[data-square="${uci.slice(2, 4)}"]`);
    clicks += 2;
    // Several promotions on one square ask which piece; a single one is played at once.
    if (uci.length === 5 && (await page.isVisible('.promote'))) {
      await page.click(`.promote button[data-uci="${uci}"]`);
      clicks++;
    }
    // Either the turn went out, or the next micro-move of the same turn waits with one more die used.
    const after = await counts(page);
    if (after.turns === before.turns && after.options > 0) {
      t.ok(after.used > before.used, 'a played micro-move marks its die used');
    } else turns++;
  }
  const result = await page.textContent('.result');
  t.match(result, /(White wins|Black wins|Draw)/, `the page shows the result: ${result}`);
  t.ok(turns > 0 && clicks > 0, `the guest played ${turns} turns in ${clicks} clicks`);

  const api = (await app.req('GET', `/games/${gameId}/history`)).json as { status: { Ended?: unknown }; history: { seat: string; dice: number[]; moves: string[] }[] };
  t.ok(api.status.Ended, 'the server says the game ended');
  t.same(await shownTurns(page), api.history.map(turnKey), 'the move list is the transcript');
  await page.waitForSelector('[data-verdict="pass"]');
  t.pass('the dice of the finished game verify');
  t.same(foreign, [], 'no request left the server');
  t.same(errors, [], 'no error in the page');
});
