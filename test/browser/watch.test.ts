// A spectator's page follows a live bot game (every turn the API shows, live, then the result), and
// the "verify the dice" panel recomputes the rolls in the browser: it passes on the real reveal and
// fails when the reveal is tampered with on its way to the page.
import t from 'tap';
import { Bot, UNLIMITED } from '../helpers/bot.js';
import { fullTree } from '../helpers/games.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { prng as rng } from '../helpers/prng.js';
import { rig, shownTurns, turnKey, untilShown } from '../helpers/browser.js';

interface History {
  seed: string;
  clientSeeds: { white: string; black: string };
  history: { seat: string; dice: number[]; moves: string[] }[];
}

t.test('a spectator sees every turn of a live bot game, then the result; the dice verify', async (t) => {
  const { app, page, foreign, errors } = await rig(t);
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await white.playAgainst(black, UNLIMITED);
  await white.seed(gameId, 'white-seed-0123456789');
  await black.seed(gameId, 'black-seed-0123456789');
  await page.goto(`${app.base}/game/${gameId}`);
  await page.waitForSelector('.player.top .name');

  const random = rng(7);
  const history = async () => ((await app.req('GET', `/games/${gameId}/history`)).json as History).history;
  for (let turn = 0; turn < 12; turn++) {
    const tree = await fullTree(app, gameId);
    if (!tree.dicePending && 'Ended' in ((await app.req('GET', `/games/${gameId}`)).json as { status: object }).status) break;
    const mover = tree.dfen.split(' ')[1] === 'w' ? white : black;
    if (tree.dicePending) {
      const r = await mover.move(gameId, randomPath(tree.legalMoves as Tree, random));
      if (r.status !== 200) throw new Error(`move: ${r.status} ${r.text}`);
    }
    const api = await history();
    // The page catches up by itself (no reload): the same turns, with their dice, in order.
    await untilShown(page, api.map(turnKey));
    t.same(await shownTurns(page), api.map(turnKey), `after turn ${turn + 1} the page shows the ${api.length} turns the API shows`);
  }
  await black.resign(gameId); // ignored if the dice already ended it
  await page.waitForSelector('.result:has-text("wins"), .result:has-text("Draw")');
  t.same(await shownTurns(page), (await history()).map(turnKey), 'the final transcript');
  const over = ((await app.req('GET', `/games/${gameId}`)).json as { status: { Ended: { over: { result: { Win?: { side: string } }; termination: string } } } }).status.Ended.over;
  const why: Record<string, string> = { Resign: 'resignation', KingCaptured: 'king captured', Draw: 'draw rule' };
  const expected = over.result.Win ? `${over.result.Win.side === 'White' ? '1–0' : '0–1'} · ${over.result.Win.side} wins (${why[over.termination]})` : `½–½ · Draw (${why[over.termination]})`;
  t.equal(await page.textContent('.result'), expected, `the page shows the result the API shows: ${expected}`);

  const verdict = await page.waitForSelector('[data-verdict]');
  t.equal(await verdict.getAttribute('data-verdict'), 'pass', 'the real reveal verifies');
  const rows = await page.$$eval('.rolls tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-ok')));
  t.equal(rows.length, (await history()).length, 'one row per roll');
  t.ok(rows.every((ok) => ok === 'true'), 'each roll matches');

  // Replay with the keyboard: Home shows the start, → steps one turn.
  await page.keyboard.press('Home');
  t.match(await page.textContent('.replay .at'), /^Turn 0 of /);
  await page.keyboard.press('ArrowRight');
  t.match(await page.textContent('.replay .at'), /^Turn 1 of /);
  t.equal(await page.getAttribute('ol.moves li.current', 'data-turn'), '1', 'the move list marks the turn shown');

  t.same(foreign, [], 'no request left the server');
  t.same(errors, [], 'no error in the page');

  // The same game, its reveal tampered with between server and page.
  const tampers: Record<string, (h: History) => void> = {
    'a changed server seed': (h) => {
      h.seed = (h.seed[0] === '0' ? '1' : '0') + h.seed.slice(1);
    },
    'a changed client seed': (h) => {
      h.clientSeeds.white += 'x';
    },
  };
  for (const [what, tamper] of Object.entries(tampers)) {
    const tab = await page.context().newPage();
    await tab.route(`**/games/${gameId}/history`, async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as History;
      tamper(body);
      await route.fulfill({ response: res, json: body });
    });
    await tab.goto(`${app.base}/game/${gameId}`);
    const v = await tab.waitForSelector('[data-verdict]');
    t.equal(await v.getAttribute('data-verdict'), 'fail', `${what} fails the verification`);
    const bad = await tab.$$eval('.rolls tbody tr[data-ok="false"]', (trs) => trs.length);
    t.ok(bad > 0, `${what}: ${bad} rolls shown as differing`);
    await tab.close();
  }
});

t.test('the game page reconnects when its stream is cut, and catches up from the fresh Snapshot', async (t) => {
  const { app, page, errors } = await rig(t);
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await white.playAgainst(black, UNLIMITED);
  await white.seed(gameId, 'white-seed-0123456789');
  await black.seed(gameId, 'black-seed-0123456789');
  // The first two connections fail; the page must keep trying on its own.
  let attempts = 0;
  await page.route(`**/games/${gameId}/stream`, (route) => (++attempts <= 2 ? route.abort('connectionreset') : route.fallback()));
  await page.goto(`${app.base}/game/${gameId}`);
  await page.waitForSelector('.link:has-text("reconnecting")');
  t.pass('the page says the connection is lost');
  await page.waitForSelector('.player.top .name:has-text("anon")');
  t.ok(attempts >= 3, `it connected on attempt ${attempts}`);
  t.equal(await page.textContent('.link'), '', 'the warning is gone once connected');
  const random = rng(3);
  for (let i = 0; i < 4; i++) {
    const tree = await fullTree(app, gameId);
    if (!tree.dicePending) continue;
    const mover = tree.dfen.split(' ')[1] === 'w' ? white : black;
    await mover.move(gameId, randomPath(tree.legalMoves as Tree, random));
  }
  const api = ((await app.req('GET', `/games/${gameId}/history`)).json as History).history;
  await untilShown(page, api.map(turnKey));
  t.same(await shownTurns(page), api.map(turnKey), 'and then follows the game live');
  t.same(errors, [], 'no error in the page');
});
