// Real browser, real server: Debian's chromium driven by playwright-core against the whole service
// on 127.0.0.1 port 0, with real time (the page's clocks and the house bots run as in production).
// The browser is confined to loopback: every request to another host is refused and counted, so a
// test fails if the page ever reaches for a CDN.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { systemClock } from '../../src/domain/clock.js';
import { bootApp, type BootOptions, type TestApp } from './app.js';
import type { Teardown } from './http.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
// The profile directory (--user-data-dir) is a fresh temporary one per launch: playwright passes it.

export interface BrowserRig {
  app: TestApp;
  context: BrowserContext;
  page: Page;
  /** Requests the page tried to send to any host but the server. */
  foreign: string[];
  /** Uncaught errors in the page. */
  errors: string[];
}

/** A fresh browser profile (deleted at teardown) in a persistent context, as the flags want. */
export async function launch(t: Teardown, viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), 'dicechess-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport,
  });
  t.teardown(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return context;
}

/** A server (real clock, no seed grace, no house delay) and a fresh page confined to it. */
export async function rig(t: Teardown, opts: BootOptions = {}, viewport?: { width: number; height: number }): Promise<BrowserRig> {
  const app = await bootApp(t, { clock: systemClock, ...opts });
  const context = await launch(t, viewport);
  const foreign: string[] = [];
  const origin = new URL(app.base).origin;
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin || url.startsWith('data:')) return route.fallback();
    foreign.push(url);
    return route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return { app, context, page, foreign, errors };
}

/** The turns a page's move list shows, as "seat|dice|moves". */
export async function shownTurns(page: Page): Promise<string[]> {
  return page.$$eval('ol.moves li', (items) =>
    items.map((li) => `${li.querySelector('.seat')?.textContent === 'W' ? 'White' : 'Black'}|${li.getAttribute('data-dice')}|${li.getAttribute('data-moves')}`));
}

export const turnKey = (t: { seat: string; dice: number[]; moves: string[] }): string => `${t.seat}|${t.dice.join(' ')}|${t.moves.join(' ')}`;

interface MiniItem {
  querySelector(selector: string): { textContent: string | null } | null;
  getAttribute(name: string): string | null;
}

/**
 * Waits until the page's move list shows exactly `want` (turnKey form). The list may first show a
 * roll's dice as the Snapshot's DFEN sorts them; the page then corrects them from the transcript.
 */
export async function untilShown(page: Page, want: string[], timeoutMs = 10_000): Promise<void> {
  await page.waitForFunction(
    (expected) => {
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<MiniItem> } }).document;
      const shown = Array.from(doc.querySelectorAll('ol.moves li'), (li) =>
        `${li.querySelector('.seat')?.textContent === 'W' ? 'White' : 'Black'}|${li.getAttribute('data-dice')}|${li.getAttribute('data-moves')}`);
      return JSON.stringify(shown) === JSON.stringify(expected);
    },
    want,
    { timeout: timeoutMs },
  ).catch(() => {}); // the assertion that follows reports what differs
}

/** The little of the DOM the tests' page functions touch (the test build has no DOM library). */
export interface MiniDoc {
  querySelector(selector: string): { textContent: string | null } | null;
  querySelectorAll(selector: string): { length: number };
}
