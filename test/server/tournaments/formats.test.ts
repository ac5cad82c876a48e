// Gauntlet, round-robin and Swiss over HTTP with house bots and stream bots (bots that hold their
// account stream, answer invitations and resign each game at once, to keep the games short).
import t from 'tap';
import { bootApp, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, ResigningBot, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

const face = (b: Bot) => ({ team: b.creds.team, name: b.creds.name });
const key = (p: Json) => `${p.team}/${p.name}`;

async function streamBots(t: Tap, app: TestApp, team: string, names: string[], answer: 'accept' | 'decline' | 'none' = 'accept'): Promise<ResigningBot[]> {
  const out: ResigningBot[] = [];
  for (const n of names) {
    const b = await new ResigningBot(await Bot.register(app, team, n), answer).start();
    t.teardown(() => b.close());
    out.push(b);
  }
  return out;
}
type Tap = { teardown(f: () => void): void };

t.test('a gauntlet waits for its invited players, then the first player meets every other', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'hosts', 'gina');
  const guests = await streamBots(t, app, 'visitors', ['ann', 'ben']);
  const created = await host.req('POST', '/events', {
    name: 'gauntlet', format: 'gauntlet', players: [HOUSE_GREEDY, HOUSE_RANDOM, face(guests[0].bot), face(guests[1].bot)],
    timeControl: UNLIMITED, pairsPerEncounter: 2, concurrency: 3,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId;
  const ev = await waitEvent(app, id);
  t.same(guests.map((g) => g.invitations), [[id], [id]], 'each invited bot got one EventInvitation');
  t.equal(ev.state, 'finished');
  t.equal(ev.pairs.length, 6, '3 opponents × 2 pairs');
  t.ok(ev.pairs.every((p: Json) => key(p.players[0]) === 'house/greedy'), 'the first player is in every pair');
  t.same(new Set(ev.pairs.map((p: Json) => key(p.players[1]))), new Set(['house/random', 'visitors/ann', 'visitors/ben']));
  const mine = await guests[0].bot.req('GET', '/bot/events');
  t.match((mine.json as Json).events[0], { eventId: id, invitation: 'accepted', hosting: false });
});

t.test('a declined invitation holds the event until the host starts it with the others', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'hosts', 'hal');
  const [no] = await streamBots(t, app, 'visitors', ['nay'], 'decline');
  const created = await host.req('POST', '/events', {
    name: 'rr', format: 'roundRobin', players: [HOUSE_GREEDY, HOUSE_RANDOM, face(no.bot)], timeControl: UNLIMITED,
  });
  const id = (created.json as Json).eventId;
  const declined = await waitEvent(app, id, (ev) => ev.players[2].invitation === 'declined');
  t.equal(declined.state, 'pending', 'it does not start on its own');
  t.equal((await no.bot.req('POST', `/events/${id}/start`)).status, 403, 'only the host starts it');
  const started = await host.req('POST', `/events/${id}/start`);
  t.equal(started.status, 200, started.text);
  const ev = await waitEvent(app, id);
  t.equal(ev.pairs.length, 1, 'the two who accepted meet');
  t.equal((await no.bot.req('POST', `/events/${id}/accept`)).status, 409, 'too late to accept');
});

t.test('a round-robin meets everyone once; bots whose setting names the host take part at once', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'club', 'host');
  const mates = await streamBots(t, app, 'club', ['cat', 'dan']);
  for (const m of mates) await trustHosts(m.bot, [host]);
  const created = await host.req('POST', '/events', {
    name: 'club rr', format: 'roundRobin', players: [HOUSE_GREEDY, HOUSE_RANDOM, face(mates[0].bot), face(mates[1].bot)],
    timeControl: UNLIMITED, concurrency: 2,
  });
  t.equal((created.json as Json).state, 'running', 'no invitation needed');
  const ev = await waitEvent(app, (created.json as Json).eventId);
  t.equal(ev.pairs.length, 6);
  const met = new Set(ev.pairs.map((p: Json) => [key(p.players[0]), key(p.players[1])].sort().join('-')));
  t.equal(met.size, 6, 'every two players met once');
  t.equal(ev.encounters.length, 6, 'one statistics block per encounter');
  t.equal(ev.standings.reduce((s: number, r: Json) => s + r.games, 0), 24, 'each of 12 games counted twice');
  t.same(mates.map((m) => m.invitations.length), [1, 1], 'each told of the event it was entered into');
  const mate = ev.standings.find((r: Json) => r.name === 'cat');
  t.equal(mate.games, 6, 'three encounters of two games');
  t.ok(mate.losses >= 4, 'a bot that resigns at once loses to both house bots');
});

t.test('a Swiss of 7 plays its rounds with one bye each and no repeated pairing', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'swiss', 'host');
  const bots = await streamBots(t, app, 'swiss', ['s1', 's2', 's3', 's4', 's5']);
  const created = await host.req('POST', '/events', {
    name: 'swiss 7', format: 'swiss', rounds: 5, concurrency: 3,
    players: [HOUSE_GREEDY, HOUSE_RANDOM, ...bots.map((b) => face(b.bot))], timeControl: UNLIMITED,
  });
  t.equal(created.status, 201, created.text);
  const ev = await waitEvent(app, (created.json as Json).eventId);
  t.equal(ev.state, 'finished', ev.note ?? '');
  t.equal(ev.pairs.length, 15, '3 pairs a round for 5 rounds');
  t.equal(ev.byes.length, 5, 'one bye a round');
  t.equal(new Set(ev.byes.map(key)).size, 5, 'nobody sits out twice');
  const meetings = ev.pairs.map((p: Json) => [key(p.players[0]), key(p.players[1])].sort().join('-'));
  t.equal(new Set(meetings).size, meetings.length, 'no two players met twice');
  for (let r = 1; r <= 5; r++) {
    const seated = ev.pairs.filter((p: Json) => p.round === r).flatMap((p: Json) => p.players.map(key));
    const bye = ev.byes.filter((b: Json) => b.round === r).map(key);
    t.equal(new Set([...seated, ...bye]).size, 7, `round ${r}: everyone plays once or sits out`);
  }
  const points = ev.standings.map((r: Json) => r.points);
  t.same(points, [...points].sort((a: number, b: number) => b - a), 'standings ranked by points');
});
