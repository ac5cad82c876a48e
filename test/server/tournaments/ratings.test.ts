// Bradley–Terry ratings in GET /events/{id}: a whole round-robin over HTTP with house bots and two
// bots that resign every game at once, and a match, which shows none.
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, ResigningBot, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

const face = (b: Bot) => ({ team: b.creds.team, name: b.creds.name });
const key = (p: Json) => `${p.team}/${p.name}`;

t.test('a finished round-robin shows every player’s rating with its 95% interval', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'club', 'host');
  const mates: ResigningBot[] = [];
  for (const n of ['cat', 'dan']) {
    const b = await new ResigningBot(await Bot.register(app, 'club', n)).start();
    t.teardown(() => b.close());
    await trustHosts(b.bot, [host]);
    mates.push(b);
  }
  const created = await host.req('POST', '/events', {
    name: 'rated rr', format: 'roundRobin', players: [HOUSE_GREEDY, HOUSE_RANDOM, face(mates[0].bot), face(mates[1].bot)],
    timeControl: UNLIMITED, pairsPerEncounter: 2, concurrency: 2,
  });
  t.equal(created.status, 201, created.text);
  t.equal((created.json as Json).ratings, null, 'none before a pair finished');
  const ev = await waitEvent(app, (created.json as Json).eventId);
  t.equal(ev.state, 'finished');
  const ratings = ev.ratings as Json[];
  t.equal(ratings.length, 4, 'every player');
  for (const r of ratings) {
    t.ok(r.low < r.elo && r.elo < r.high, `${key(r)}: ${r.low} < ${r.elo} < ${r.high}`);
    t.equal(r.games, ev.standings.find((s: Json) => key(s) === key(r)).games, `${key(r)}: its games`);
  }
  t.ok(Math.abs(ratings.reduce((s, r) => s + r.elo, 0)) < 0.5, 'anchored to a mean of 0');
  t.same([...ratings].sort((x, y) => y.elo - x.elo), ratings, 'best first');
  // The resigning bots lose every game to the house bots and draw nothing: they rank below both.
  const houseWorst = Math.min(...ratings.filter((r) => r.team === 'house').map((r) => r.elo));
  t.ok(ratings.filter((r) => r.team === 'club').every((r) => r.elo < houseWorst), 'the resigning bots rate lowest');
});

t.test('a match shows no ratings (its encounter says it)', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'mo');
  const created = await host.req('POST', '/events', { name: 'm', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED });
  const ev = await waitEvent(app, (created.json as Json).eventId);
  t.equal(ev.state, 'finished');
  t.equal(ev.ratings, null);
});
