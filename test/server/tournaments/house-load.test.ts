// What events may make the server hold. Every event game counts against its host's live-game cap,
// whoever plays it (house bots against each other included); pairs between two house bots have
// their own, smaller limit per host; and all events together take at most their share of the
// server's live games, so a player can still start a game when events wait for places.
// House bots think for an hour here and the clock stands still: every game stays live.
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, UNLIMITED } from '../../helpers/tournaments.js';

const STILL = { 'games.houseMoveDelayMs': 3_600_000, 'limits.registrationsPerHour': 100 };

const houseMatch = { format: 'match', players: [HOUSE_RANDOM, HOUSE_GREEDY], timeControl: UNLIMITED, pairsPerEncounter: 10, concurrency: 3 };

const pairsOf = async (bot: Bot, id: string): Promise<number> => ((await bot.app.req('GET', `/events/${id}`)).json as Json).pairs.length;

t.test('a house-only event stops at its host\'s house-only limit', async (t) => {
  const app = await bootApp(t, { overrides: { ...STILL, 'events.houseOnlyPairsPerHost': 1 } });
  const host = await Bot.register(app, 'hosts', 'hal');
  const r = await host.req('POST', '/events', { name: 'self-play', ...houseMatch });
  t.equal(r.status, 201, r.text);
  const id = (r.json as Json).eventId;
  await app.server.tournaments.round();
  await app.server.tournaments.round();
  t.equal(await pairsOf(host, id), 1, 'one pair in flight, not its concurrency of three');
  const other = await host.req('POST', '/events', { name: 'more self-play', ...houseMatch });
  await app.server.tournaments.round();
  t.equal(await pairsOf(host, (other.json as Json).eventId), 0, 'the limit is over all of the host\'s events');
  t.equal(app.server.games.liveCount(), 2, 'the server holds two house games for this host');
});

t.test('event games count against the host\'s live-game cap, whoever plays them', async (t) => {
  const app = await bootApp(t, { overrides: { ...STILL, 'limits.liveGamesPerIdentity.registered': 4, 'events.houseOnlyPairsPerHost': 10 } });
  const host = await Bot.register(app, 'hosts', 'hugo');
  const r = await host.req('POST', '/events', { name: 'self-play', ...houseMatch });
  const id = (r.json as Json).eventId;
  await app.server.tournaments.round();
  t.equal(await pairsOf(host, id), 2, 'two pairs: four games, the host\'s cap, though it plays none');
  t.same(((await host.req('GET', '/bot/games')).json as Json).games, [], 'none of them is the host\'s own');
  const own = await host.challenge(HOUSE_RANDOM);
  t.equal(own.status, 429, 'so the host cannot start a game of its own');
  t.equal((own.json as Json).code, 'too_many_games');
  t.match((own.json as Json).detail, /plays or hosts 4 live games/);
  // A player the host invites is not charged for the host's other games.
  const guest = await Bot.register(app, 'guests', 'gil');
  t.equal((await guest.challenge(HOUSE_RANDOM)).status, 201, 'another bot plays as usual');
});

t.test('with the events\' share of the server taken, a player can still start a game', async (t) => {
  // Six live games on the server, half of them for events: one pair (two games) at most.
  const app = await bootApp(t, { overrides: { ...STILL, 'limits.maxLiveGames': 6, 'events.shareOfLiveGames': 0.5 } });
  const hosts = await Promise.all(['ann', 'bea'].map((n) => Bot.register(app, 'hosts', n)));
  const ids: string[] = [];
  for (const h of hosts) ids.push(((await h.req('POST', '/events', { name: `${h.creds.name}'s`, ...houseMatch, concurrency: 2 })).json as Json).eventId);
  await app.server.tournaments.round();
  const pairs = await Promise.all(ids.map((id) => pairsOf(hosts[0], id)));
  t.equal(pairs[0] + pairs[1], 1, 'one pair in flight over both events: the events\' share');
  const player = await Bot.anon(app, 'walk-in');
  const game = await player.challenge(HOUSE_RANDOM);
  t.equal(game.status, 201, `the player starts a game against a house bot: ${game.text}`);
  await app.server.tournaments.round();
  const after = await Promise.all(ids.map((id) => pairsOf(hosts[0], id)));
  t.same(after, pairs, 'the events still wait for places');
});

t.test('hosts registered from one address share one bound on their events\' live games', async (t) => {
  // Each host alone may hold two house pairs (four games); the address they all came from, four games.
  const app = await bootApp(t, { overrides: { ...STILL, 'events.houseOnlyPairsPerHost': 2, 'events.liveGamesPerAddress': 4 } });
  const hosts = await Promise.all(['ida', 'ivy', 'ina'].map((n) => Bot.register(app, 'hosts', n)));
  const ids: string[] = [];
  for (const h of hosts) {
    const r = await h.req('POST', '/events', { name: `${h.creds.name}'s`, ...houseMatch, concurrency: 2 });
    t.equal(r.status, 201, r.text);
    ids.push((r.json as Json).eventId);
  }
  await app.server.tournaments.round();
  await app.server.tournaments.round();
  const pairs = await Promise.all(ids.map((id) => pairsOf(hosts[0], id)));
  t.equal(pairs.reduce((a, b) => a + b, 0), 2, `two pairs over the three hosts' events (${pairs.join(', ')}), not six`);
  t.equal(app.server.games.liveCount(), 4, 'the server holds four games for the address');
  const view = (await app.req('GET', `/events/${ids[0]}`)).text;
  t.notMatch(view, /127\.0\.0\.1|hostAddress/, 'the address is never shown');
});
