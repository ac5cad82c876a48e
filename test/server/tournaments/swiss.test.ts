// A Swiss over HTTP: seeded by the players' ladder ratings (house bots at the default 1500), paired
// by the Dutch system (top half against bottom half in round 1, FIDE C.04.3 B.2; no rematch, [C1]),
// and its standings carry Buchholz and Sonneborn–Berger, ranked by points, then those, then seed.
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, ResigningBot, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

const key = (p: Json) => `${p.team}/${p.name}`;

t.test('a Swiss seeds by rating, pairs top half against bottom half, never repeats, and shows its tiebreaks', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'swiss', 'host');
  // Four stream bots that resign every game; their ratings as the ladder would have left them.
  const ratings: Record<string, number> = { low: 1300, mid: 1600, top: 1900, top2: 1900 };
  const bots: ResigningBot[] = [];
  for (const name of Object.keys(ratings)) {
    const b = await new ResigningBot(await Bot.register(app, 'swiss', name)).start();
    t.teardown(() => b.close());
    await trustHosts(b.bot, [host]);
    const rec = app.server.store.getBot(b.bot.id)!;
    await app.server.store.updateBot({ ...rec, rating: { ...rec.rating, rating: ratings[name] } });
    bots.push(b);
  }
  // Entry order: low, mid, top, top2, greedy, random, so the seeding cannot be the entry order.
  const players = [...bots.map((b) => ({ team: b.bot.creds.team, name: b.bot.creds.name })), HOUSE_GREEDY, HOUSE_RANDOM];
  const created = await host.req('POST', '/events', { name: 'seeded swiss', format: 'swiss', rounds: 5, concurrency: 3, players, timeControl: UNLIMITED });
  t.equal(created.status, 201, created.text);
  const ev = await waitEvent(app, (created.json as Json).eventId);
  t.equal(ev.state, 'finished', ev.note ?? '');
  t.equal(ev.note, null, 'all five rounds were paired');

  // Seeding: top and top2 (1900, entry order between them), mid (1600), the house bots (no stored
  // record: the default 1500, entry order), low (1300).
  const seeds = Object.fromEntries(ev.players.map((p: Json) => [p.name, [p.seed, p.seedRating]]));
  t.same(seeds, { top: [1, 1900], top2: [2, 1900], mid: [3, 1600], greedy: [4, 1500], random: [5, 1500], low: [6, 1300] });

  // Round 1, everyone on 0 points: S1 = seeds 1–3 against S2 = seeds 4–6 in order.
  const round1 = ev.pairs.filter((p: Json) => p.round === 1).map((p: Json) => p.players.map((x: Json) => x.name).sort().join('-')).sort();
  t.same(round1, ['greedy-top', 'random-top2', 'low-mid'].map((s) => s.split('-').sort().join('-')).sort(), 'round 1: 1-4, 2-5, 3-6');

  const meetings = ev.pairs.map((p: Json) => [key(p.players[0]), key(p.players[1])].sort().join(' '));
  t.equal(meetings.length, 15, 'three pairs a round for five rounds');
  t.equal(new Set(meetings).size, 15, 'no two players met twice');

  // The standings: tiebreak columns, recomputed here from the pairs, and the Swiss order.
  const points = new Map<string, number>(ev.standings.map((r: Json) => [key(r), r.points]));
  for (const r of ev.standings) {
    let buchholz = 0;
    let sb = 0;
    for (const p of ev.pairs) {
      const side = p.players.findIndex((x: Json) => key(x) === key(r));
      if (side < 0) continue;
      const opp = key(p.players[1 - side]);
      const mine = side === 0 ? p.scores[0] + p.scores[1] : 2 - p.scores[0] - p.scores[1];
      buchholz += points.get(opp)!;
      sb += (mine / 2) * points.get(opp)!;
    }
    t.equal(r.buchholz, buchholz, `${r.name}: Buchholz`);
    t.equal(r.sonnebornBerger, sb, `${r.name}: Sonneborn–Berger`);
  }
  const order = ev.standings.map((r: Json) => [r.points, r.buchholz, r.sonnebornBerger, seeds[r.name][0]]);
  const ranked = [...order].sort((x, y) => y[0] - x[0] || y[1] - x[1] || y[2] - x[2] || x[3] - y[3]);
  t.same(order, ranked, 'ranked by points, Buchholz, Sonneborn–Berger, then seed');
});
