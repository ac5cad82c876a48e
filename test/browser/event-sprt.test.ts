// A finished SPRT's page as a host reads it. The case that broke it: one pair took the LLR to 515,
// the chart scaled to that, and the H0, H1 and zero lines fell together at the bottom with their
// labels on top of each other; the state read "verdict H1 after 1 pairs"; the pair links read "first
// game 1, second game 1" with nothing saying the number is a score; and the Elo interval of a test
// whose pairs all scored alike read "1200 [1200, 1200]".
//
// The event is a real one, played on the server (one pair of house bots); the page's read of it is
// then given that case's numbers (LLR 515.27 after its one pair, verdict H1, an interval of no
// width), since which numbers the real pair gives depends on its dice.
import t from 'tap';
import { Bot, type Json } from '../helpers/bot.js';
import { rig } from '../helpers/browser.js';
import { waitEvent } from '../helpers/tournaments.js';

t.test('a finished SPRT: the bounds stay in view, labelled apart; 1 pair; scores say what they are', async (t) => {
  const { app, page, context, foreign, errors } = await rig(t);
  const host = await Bot.register(app, 'web', 'sprthost');
  const created = await host.req('POST', '/events', {
    name: 'one-pair sprt', format: 'sprt', players: [{ team: 'house', name: 'greedy' }, { team: 'house', name: 'random' }],
    timeControl: { Unlimited: {} }, sprt: { elo0: 0, elo1: 100, alpha: 0.05, beta: 0.05 }, maxPairs: 1,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId as string;
  t.equal((await waitEvent(app, id)).state, 'finished');

  const LLR = 515.27;
  await context.route(`${app.base}/events/${id}`, async (route) => {
    const ev = (await (await route.fetch()).json()) as Json;
    ev.llrHistory = [LLR];
    ev.verdict = 'H1';
    ev.verdictAfter = 1;
    const enc = ev.encounters[0];
    Object.assign(enc, { llr: LLR, verdict: 'H1', eloInterval: [enc.elo, enc.elo] });
    await route.fulfill({ json: ev });
  });
  await page.goto(`${app.base}/tournament/${id}`);
  await page.locator('.event-state', { hasText: /verdict H1/ }).waitFor();
  t.match(await page.textContent('.event-state'), /verdict H1 after 1 pair$/, 'one pair, not "1 pairs"');

  // The three lines, each labelled, the labels apart, and all inside the chart's box.
  const labels = await page.$$eval('svg.llr text.line-label', (ts) => ts.map((e) => ({
    line: e.getAttribute('data-line'), text: e.textContent, y: Number(e.getAttribute('y')),
  })));
  t.same(labels.map((l) => l.line).sort(), ['lower', 'upper', 'zero'], 'a label for each line');
  t.match(labels.find((l) => l.line === 'upper')?.text, /^H1 accept bound 2\.94$/);
  t.match(labels.find((l) => l.line === 'lower')?.text, /^H0 accept bound −2\.94$/);
  t.equal(labels.find((l) => l.line === 'zero')?.text, '0');
  for (const a of labels) {
    for (const b of labels) if (a.line! < b.line!) t.ok(Math.abs(a.y - b.y) >= 11, `${a.line} and ${b.line} labels do not overlap (${a.y}, ${b.y})`);
    t.ok(a.y > 0 && a.y < 220, `${a.line} label inside the chart`);
  }
  const lines = await page.$$eval('svg.llr line', (ls) => ls.map((l) => ({ cls: l.getAttribute('class'), y: Number(l.getAttribute('y1')) })));
  const yOf = (cls: string) => lines.find((l) => l.cls === cls)!.y;
  t.ok(yOf('bound upper') + 40 < yOf('grid') && yOf('grid') + 40 < yOf('bound lower'), `H1, 0 and H0 lines well apart (${yOf('bound upper')}, ${yOf('grid')}, ${yOf('bound lower')})`);
  t.ok(yOf('bound upper') > 0 && yOf('bound lower') < 220, 'both bounds in view');
  // The LLR is far above the chart: clipped, with a marker saying where it went.
  t.equal(await page.locator('svg.llr .off-chart').count(), 1, 'a marker where the LLR leaves the chart');
  t.match(await page.textContent('svg.llr .off-chart-label'), /↑ LLR 515 \(pair 1\)/, 'with its value');
  t.equal(await page.locator('svg.llr circle.point').count(), 0, 'no point drawn outside the chart');
  t.match(await page.getAttribute('svg.llr polyline', 'clip-path'), /^url\(#/, 'the line is clipped');

  // Pair links say they are results, and whose.
  const links = await page.$$eval('.pairs a', (as) => as.map((a) => a.textContent));
  t.equal(links.length, 2, 'the pair’s two games');
  // White–Black: greedy (the first player) has White in game 1 and Black in game 2.
  const ev = (await app.req('GET', `/events/${id}`)).json as Json;
  const want = (k: number) => {
    const s = ev.pairs[0].scores[k] as number;
    const white = k === 0 ? s : 1 - s;
    const text = (x: number) => (x === 0.5 ? '½' : String(x));
    return `game ${k + 1}: ${text(white)}–${text(1 - white)} (${s === 1 ? 'house greedy wins' : s === 0 ? 'house random wins' : 'draw'})`;
  };
  t.same(links, [want(0), want(1)], `the links: ${links.join(', ')}`);
  t.match(await page.textContent('.pairs-block'), /White–Black; the first player named has White in game 1 and Black in game 2/, 'the list says how to read them');
  t.match(await page.textContent('table.encounters'), /interval n\/a/, 'an interval of no width is shown as n/a');
  t.same(foreign, [], 'the page talks to its server only');
  t.same(errors, [], 'no page errors');
});
