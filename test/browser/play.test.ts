// A guest plays a whole game against house/random in the browser, only by clicking: the front page's
// button starts it, the legal-move tree offers the pieces, each micro-move is a click on a piece and
// a click on its target, and the page shows the result at the end.
import t from 'tap';
import type { Page } from 'playwright-core';
import { rig, shownTurns, turnKey, untilShown, type MiniDoc } from '../helpers/browser.js';

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

/** The square the keyboard focus is on. */
const focused = (page: Page): Promise<string | null> =>
  page.evaluate(() => {
    const d = (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } | null } }).document;
    return d.activeElement?.getAttribute('data-square') ?? null;
  });

/** The focus ring's stroke on the focused square ('none' or transparent when it is not drawn). */
const ringStroke = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const g = globalThis as unknown as {
      document: { activeElement: { querySelector(s: string): unknown } | null };
      getComputedStyle(e: unknown): { stroke: string };
    };
    const ring = g.document.activeElement?.querySelector('.ring');
    const stroke = ring ? g.getComputedStyle(ring).stroke : 'none';
    return stroke === 'rgba(0, 0, 0, 0)' || stroke === 'transparent' ? 'none' : stroke;
  });

/** Walks the keyboard focus to a square with the arrow keys (the board may be flipped). */
async function keyTo(page: Page, target: string): Promise<void> {
  for (let step = 0; step < 20; step++) {
    const at = await focused(page);
    if (at === target) return;
    if (!at) throw new Error('the focus left the board');
    const df = target.charCodeAt(0) - at.charCodeAt(0);
    const dr = target.charCodeAt(1) - at.charCodeAt(1);
    const flipped = (await page.textContent('.player.bottom .name'))?.startsWith('Black');
    const sign = flipped ? -1 : 1;
    if (df !== 0) await page.keyboard.press(df * sign > 0 ? 'ArrowRight' : 'ArrowLeft');
    else await page.keyboard.press(dr * sign > 0 ? 'ArrowUp' : 'ArrowDown');
  }
  throw new Error(`could not reach ${target} with the arrow keys`);
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

  // The first micro-move by keyboard only: Tab onto the board, arrows to the piece, Enter, arrows to
  // its square, Enter. The focused square shows a visible ring.
  await page.waitForSelector('.options button.uci');
  const firstTurn = await counts(page);
  const opening = await page.getAttribute('.options button.uci', 'data-uci');
  await page.focus('.board .sq[tabindex="0"]');
  await page.keyboard.press('ArrowRight'); // the first tab stop (e2, or e7 when playing Black) is inland
  await page.keyboard.press('ArrowLeft');
  await keyTo(page, opening!.slice(0, 2));
  t.not(await ringStroke(page), 'none', 'the focused square has a visible ring');
  await page.keyboard.press('Enter');
  t.equal(await page.getAttribute('.board .selected', 'data-square'), opening!.slice(0, 2), 'Enter picks the piece up');
  await keyTo(page, opening!.slice(2, 4));
  await page.keyboard.press(' ');
  const afterKeys = await counts(page);
  t.ok(afterKeys.used > firstTurn.used || afterKeys.turns > firstTurn.turns, `the keyboard played ${opening}`);

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
  await untilShown(page, api.history.map(turnKey));
  t.same(await shownTurns(page), api.history.map(turnKey), 'the move list is the transcript');
  await page.waitForSelector('[data-verdict="pass"]');
  t.pass('the dice of the finished game verify');
  t.same(foreign, [], 'no request left the server');
  t.same(errors, [], 'no error in the page');
});
