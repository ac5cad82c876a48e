// `make screenshots`: regenerates docs/screenshots/*.png from a real server (LMDB in a temporary
// directory, a few bots seeded on the ladder, live games driven through the game handles) and the
// same headless chromium the browser tests use. Run it after changing how a page looks.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DEFAULT_RATING, SCHEMA_VERSION } from '../../src/domain/records.js';
import type { Seat, SeatPlayer } from '../../src/domain/types.js';
import type { GameHandle } from '../../src/game/types.js';
import { projectFile } from '../../src/paths.js';
import { openStore } from '../../src/store/index.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { prng } from '../helpers/prng.js';
import { rig } from '../helpers/browser.js';

const OUT = projectFile('docs', 'screenshots');
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => void teardowns.push(fn) };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seat = (name: string): SeatPlayer => ({
  id: `bot:team:acme:${name}`, face: { kind: 'Bot', name: `acme ${name}` }, participant: { Bot: { team: 'acme', name } },
});

/** Plays random legal turns for both seats of a game until it ends or `stop()` is called. */
function drive(game: GameHandle, everyMs: number): { stop(): void } {
  let stopped = false;
  const random = prng(game.id.length * 7919);
  void (async () => {
    while (!stopped && game.isActive()) {
      const m = game.moves();
      if (m.dicePending) {
        const mover: Seat = m.dfen.split(' ')[1] === 'w' ? 'White' : 'Black';
        await game.move(mover, randomPath(JSON.parse(m.legalMovesJson) as Tree, random));
      }
      await sleep(everyMs);
    }
  })();
  return { stop: () => (stopped = true) };
}

async function shot(page: Page, name: string): Promise<void> {
  await sleep(300); // let the last stream lines and the clocks' tick land
  await page.screenshot({ path: join(OUT, `${name}.png`) });
  console.log(`docs/screenshots/${name}.png`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-shots-'));
  teardowns.push(() => rmSync(dir, { recursive: true, force: true }));
  const opened = await openStore({ memory: false, dataDir: dir });
  if (!opened.ok) throw new Error(opened.error);
  const bots = [['alpha', 1820, 60], ['beta', 1712, 74], ['gamma', 1650, 95], ['delta', 1544, 88], ['newbie', 1500, 310]] as const;
  for (const [name, rating, rd] of bots) {
    await opened.value.createBot({
      schema: SCHEMA_VERSION, id: `bot:team:acme:${name}`, team: 'acme', name, tokenHash: name.padEnd(64, '0'),
      createdAt: 0, onLadder: true, rating: { ...DEFAULT_RATING, rating, rd }, webhook: null,
    });
  }
  const { app, page } = await rig(t, { store: opened.value, overrides: { 'games.houseMoveDelayMs': 400 } });
  const registry = app.server.games;
  const fischer = { Fischer: { initialSeconds: 300, incrementSeconds: 3 } };

  // Finished games for the profile, then live ones for the front page.
  for (const [w, b, loser] of [['alpha', 'beta', 'Black'], ['gamma', 'alpha', 'White'], ['alpha', 'delta', 'Black']] as const) {
    const g = await registry.create({ white: seat(w), black: seat(b), timeControl: fischer, rated: false });
    const d = drive(g, 0);
    await sleep(150);
    d.stop();
    g.resign(loser);
  }
  const rated = await registry.create({ white: seat('alpha'), black: seat('beta'), timeControl: fischer, rated: true });
  const other = await registry.create({ white: seat('gamma'), black: seat('delta'), timeControl: { Fischer: { initialSeconds: 600, incrementSeconds: 10 } }, rated: false });
  const drivers = [drive(rated, 1500), drive(other, 2000)];
  await app.req('POST', '/lobby/seeks', { body: { timeControl: { Fischer: { initialSeconds: 180, incrementSeconds: 2 } } } });
  await sleep(3000);

  await page.goto(`${app.base}/`);
  await page.waitForSelector('.tv .board');
  await sleep(3500);
  await shot(page, 'home');

  await page.goto(`${app.base}/game/${rated.id}`);
  await page.waitForSelector('ol.moves li');
  await shot(page, 'game');

  // A guest's game against house/greedy, one micro-move into a turn.
  await page.goto(`${app.base}/`);
  await page.click('text=Play house/greedy');
  await page.waitForSelector('.options button.uci');
  const first = await page.getAttribute('.options button.uci', 'data-uci');
  if (first) {
    await page.click(`[data-square="${first.slice(0, 2)}"]`);
    await page.click(`[data-square="${first.slice(2, 4)}"]`);
  }
  await page.waitForSelector('.board .selected, .board .movable');
  await shot(page, 'play');
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, 'phone');
  await page.setViewportSize({ width: 1280, height: 900 });

  for (const d of drivers) d.stop();
  rated.resign('Black');
  await sleep(300);
  await page.goto(`${app.base}/game/${rated.id}`);
  await page.waitForSelector('[data-verdict]');
  await page.click('.verify summary');
  await page.keyboard.press('End');
  await shot(page, 'replay');

  await page.goto(`${app.base}/ladder`);
  await page.waitForSelector('table.ladder');
  await shot(page, 'ladder');
  await page.goto(`${app.base}/bot/acme/alpha`);
  await page.waitForSelector('.recent');
  await shot(page, 'profile');
}

main().then(
  async () => {
    for (const fn of teardowns.reverse()) await fn();
  },
  async (e: unknown) => {
    console.error(e);
    for (const fn of teardowns.reverse()) await fn();
    process.exitCode = 1;
  },
);
