// Mirror pairs by capacity, through the whole server. Before, a bot of capacity 4 played mostly
// single games: whenever one game of its pair ended first, the freed seat went to a single (6 bots of
// capacity 4 over 12 s: 17 singles beside 9 pairs). Now a bot of capacity 2 or more meets another
// such bot only in mirror pairs, two free seats each (a seat freed by one game of a pair waits for
// its partner game or for another free seat), and a single is played only against a bot of
// capacity 1, which can never hold a pair. Six bots of capacities 1, 1, 2, 2, 4 and 4 join over HTTP;
// the test runs the pairing rounds on the injected clock and, after each, ends a seeded random half
// of the live games by resignation, so pairs are often left with one game running when a round comes.
import t from 'tap';
import { bootApp, diskStore } from '../helpers/app.js';
import type { Bot } from '../helpers/bot.js';
import { ladderBot, ladderGame, liveGames, pairingRound, resignAndWait, type LadderGame } from '../helpers/ladder.js';
import { prng } from '../helpers/prng.js';

const PAIR_MS = 1_000;
const ROUNDS = 30;
const BOTS: [string, number][] = [['uno', 1], ['una', 1], ['duo', 2], ['dua', 2], ['quad', 4], ['quid', 4]];

t.test('capacity 2 and up: only mirror pairs among themselves; capacity 1: singles', async (t) => {
  const app = await bootApp(t, {
    store: await diskStore(t),
    overrides: { 'ladder.pairIntervalMs': PAIR_MS, 'ladder.rematchAfterMs': 2_000, 'limits.registrationsPerHour': 100 },
  });
  const bots: Bot[] = [];
  for (const [name, capacity] of BOTS) bots.push(await ladderBot(app, 'cap', name, capacity));
  const capacityOf = new Map(BOTS.map(([name, capacity]) => [`cap ${name}`, capacity]));
  const byFace = new Map(bots.map((b) => [`cap ${b.creds.name}`, b]));
  const random = prng(7);
  const games = new Map<string, LadderGame>();
  let halfPairsAtRound = 0;
  for (let r = 0; r < ROUNDS; r++) {
    await pairingRound(app, bots, PAIR_MS);
    const live = new Set<string>();
    for (const b of bots) {
      const mine = await liveGames(b);
      t.ok(mine.length <= capacityOf.get(`cap ${b.creds.name}`)!, `round ${r}: ${b.creds.name} within its capacity`);
      for (const id of mine) live.add(id);
    }
    for (const id of live) if (!games.has(id)) games.set(id, await ladderGame(app, id));
    const mirrors = [...live].filter((id) => games.get(id)!.kind === 'mirror');
    // A mirror game whose partner has ended: its players had a seat free during this round.
    const partners = new Map<string, number>();
    for (const id of mirrors) {
      const g = games.get(id)!;
      const key = [g.white, g.black].sort().join(' ');
      partners.set(key, (partners.get(key) ?? 0) + 1);
    }
    if ([...partners.values()].some((n) => n % 2 === 1)) halfPairsAtRound++;
    for (const id of live) {
      if (random() < 0.5) continue;
      const g = games.get(id)!;
      await resignAndWait(app, byFace.get(random() < 0.5 ? g.white : g.black)!, id);
    }
  }
  t.ok(halfPairsAtRound >= 5, `${halfPairsAtRound} rounds ran with a pair half over (the case that made singles)`);

  const all = [...games.values()];
  const pairBot = (face: string) => capacityOf.get(face)! >= 2;
  const among = all.filter((g) => pairBot(g.white) && pairBot(g.black));
  t.ok(among.length >= 20, `${among.length} games between bots of capacity 2 and more`);
  t.same(among.filter((g) => g.kind === 'single').map((g) => `${g.white} v ${g.black}`), [], 'none of them single');
  const singles = all.filter((g) => g.kind === 'single');
  t.ok(singles.every((g) => !pairBot(g.white) || !pairBot(g.black)), 'every single has a capacity-1 bot in it');
  for (const [name, capacity] of BOTS) {
    const face = `cap ${name}`;
    const mine = all.filter((g) => g.white === face || g.black === face);
    const pairs = mine.filter((g) => g.kind === 'mirror').length / 2;
    const single = mine.filter((g) => g.kind === 'single').length;
    if (capacity === 1) t.ok(single > 0 && pairs === 0, `${name} (capacity 1): ${single} singles, no pair`);
    else t.ok(pairs > 0, `${name} (capacity ${capacity}): ${pairs} pairs, ${single} singles against capacity-1 bots`);
    const profile = (await app.req('GET', `/bots/cap/${name}`)).json as { ladder: unknown };
    t.same(profile.ladder, { pairs, singles: single }, `${name}: the profile counts them`);
  }
});
