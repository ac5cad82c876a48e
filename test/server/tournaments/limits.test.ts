// Bad events get a 400 with a problem body, and every limit holds: events per host, players and pairs
// per event, pairs in flight per host, and each bot's seats (a pair takes two).
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

const LIMITS = {
  'limits.registrationsPerHour': 100,
  'events.openPerHost': 2,
  'events.pairsInFlightPerHost': 3,
  'events.playersPerEvent': 6,
  'events.pairsPerEvent': 40,
};

t.test('bad shapes and limits are refused with a problem', async (t) => {
  const app = await bootApp(t, { overrides: LIMITS });
  const host = await Bot.register(app, 'lim', 'host');
  const anon = await Bot.anon(app, 'drifter');
  const base = { name: 'e', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED };
  const refused = async (body: Json, status: number, what: string, who = host) => {
    const r = await who.req('POST', '/events', body);
    t.equal(r.status, status, `${what}: ${r.text}`);
    t.equal(r.headers['content-type'], 'application/problem+json', `${what}: a problem body`);
  };
  await refused({ ...base, format: 'knockout' }, 400, 'an unknown format');
  await refused({ ...base, players: [HOUSE_GREEDY] }, 400, 'a match of one');
  await refused({ ...base, players: [HOUSE_GREEDY, { team: 'nobody', name: 'here' }] }, 400, 'an unknown bot');
  await refused({ ...base, players: [HOUSE_GREEDY, HOUSE_GREEDY] }, 400, 'a player twice');
  await refused({ ...base, players: [HOUSE_GREEDY, { team: anon.creds.team, name: anon.creds.name }] }, 400, 'an anonymous player');
  await refused({ ...base, format: 'swiss', players: [HOUSE_GREEDY, HOUSE_RANDOM] }, 400, 'a swiss without rounds');
  await refused({ ...base, format: 'swiss', rounds: 2, players: [HOUSE_GREEDY, HOUSE_RANDOM] }, 400, 'more swiss rounds than opponents');
  await refused({ ...base, pairsPerEncounter: 41 }, 400, 'more pairs than the server allows');
  await refused({ ...base, format: 'sprt', sprt: { elo0: 5, elo1: 0, alpha: 0.05, beta: 0.05 } }, 400, 'elo0 above elo1');
  const many = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => Bot.register(app, 'lim', n)));
  await refused({ ...base, format: 'roundRobin', players: [HOUSE_GREEDY, HOUSE_RANDOM, ...many.map((b) => ({ team: 'lim', name: b.creds.name }))] }, 400, 'more players than the server allows');
  await refused(base, 403, 'an anonymous host', anon);
  t.equal((await app.req('GET', '/events/nothing-here')).status, 404, 'an unknown event');
  t.equal((await host.req('POST', '/events/nothing-here/cancel')).status, 404, 'cancelling an unknown event');
});

t.test('events per host, pairs in flight per host and seats per bot', async (t) => {
  const app = await bootApp(t, { overrides: LIMITS });
  const host = await Bot.register(app, 'idle', 'host');
  // Bots that take the host's events unasked and never move: their Unlimited games stay live (the clock stands still).
  const idle = await Promise.all(['p', 'q', 'r', 's', 't', 'u'].map((n) => Bot.register(app, 'idle', n)));
  const face = (b: Bot) => ({ team: 'idle', name: b.creds.name });
  for (const b of idle) await trustHosts(b, [host]);
  for (const b of idle) await app.server.store.updateBot({ ...app.server.store.getBot(b.id)!, capacity: 32 });
  const rr = await host.req('POST', '/events', {
    name: 'idle rr', format: 'roundRobin', players: idle.slice(0, 4).map(face), timeControl: UNLIMITED, concurrency: 3,
  });
  t.equal(rr.status, 201, rr.text);
  const id = (rr.json as Json).eventId;
  await app.server.tournaments.round();
  let ev = (await app.req('GET', `/events/${id}`)).json as Json;
  t.equal(ev.pairs.length, 3, 'three pairs in flight: its concurrency');
  const rrPairs = ev.pairs as Json[];

  const second = await host.req('POST', '/events', { name: 'second', format: 'match', players: [face(idle[4]), face(idle[5])], timeControl: UNLIMITED });
  t.equal(second.status, 201);
  await app.server.tournaments.round();
  ev = (await app.req('GET', `/events/${(second.json as Json).eventId}`)).json as Json;
  t.equal(ev.pairs.length, 0, 'the host has three pairs in flight already (its limit): the new event waits');
  const third = await host.req('POST', '/events', { name: 'third', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED });
  t.equal(third.status, 429, 'a third open event is refused');
  t.ok(Number(third.headers['retry-after']) >= 1, 'with Retry-After');

  const cancelled = await host.req('POST', `/events/${id}/cancel`);
  t.equal(cancelled.status, 200);
  t.equal((cancelled.json as Json).state, 'cancelling', 'its three pairs play on');
  t.equal((cancelled.json as Json).pairsRunning, 3);
  t.equal((cancelled.json as Json).seed, null, 'so its seed stays secret');
  t.equal((await host.req('POST', `/events/${id}/cancel`)).status, 409, 'cancelling twice');
  const fourth = await host.req('POST', '/events', { name: 'fourth', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED });
  t.equal(fourth.status, 201, 'room again once one is cancelled');
  // The cancelled event's pairs end (their first player resigns both games): it is over, the host's pairs free.
  for (const p of rrPairs) {
    const first = idle.find((b) => b.creds.name === p.players[0].name)!;
    for (const g of p.games) t.equal((await first.resign(g)).status, 202);
  }
  const over = await waitEvent(app, id, (e) => e.state === 'cancelled');
  t.match(over.seed, /^[0-9a-f]{64}$/, 'a cancelled event reveals its seed once its games are over');
  await waitEvent(app, (fourth.json as Json).eventId);
});

t.test('a bot sits in no more pairs than its seats allow', async (t) => {
  const app = await bootApp(t, { overrides: LIMITS });
  const host = await Bot.register(app, 'solo', 'host');
  const [a, b] = await Promise.all(['a', 'b'].map((n) => Bot.register(app, 'solo', n)));
  for (const bot of [a, b]) await trustHosts(bot, [host]);
  const r = await host.req('POST', '/events', {
    name: 'seats', format: 'match', players: [{ team: 'solo', name: 'a' }, { team: 'solo', name: 'b' }], timeControl: UNLIMITED,
    pairsPerEncounter: 3, concurrency: 3,
  });
  const id = (r.json as Json).eventId;
  await app.server.tournaments.round();
  const first = ((await app.req('GET', `/events/${id}`)).json as Json).pairs;
  t.equal(first.length, 1, 'capacity 1 (counted as one pair): one pair at a time');
  // One game of the pair ends; its partner still runs on the same server seed.
  t.equal((await a.resign(first[0].games[0])).status, 202);
  await waitEvent(app, id, (ev) => ev.pairs[0].scores[0] !== null);
  const exported = (await app.req('GET', `/events/${id}/games`)).text.split('\n').filter((l) => l !== '');
  t.equal(exported.length, 1, 'the export holds the event only: no game of a pair still running');
  await app.server.store.updateBot({ ...app.server.store.getBot(a.id)!, capacity: 4 });
  await app.server.store.updateBot({ ...app.server.store.getBot(b.id)!, capacity: 4 });
  await app.server.tournaments.round();
  t.equal(((await app.req('GET', `/events/${id}`)).json as Json).pairs.length, 2, 'four seats each: two pairs');
});
