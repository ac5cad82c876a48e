// A player leaves a running event (the host withdraws it, or it withdraws itself): its pairs still
// to start are never played, those played count, a running one plays to the end and counts; a Swiss
// pairs it no more, the standings mark it withdrawn, and an SPRT left with one player ends, with a note.
import t from 'tap';
import { bootApp, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

const view = async (app: TestApp, id: string): Promise<Json> => (await app.req('GET', `/events/${id}`)).json as Json;
const code = (r: { json?: unknown }): unknown => (r.json as Json).code;

/** Bots that trust the host (in at once) and never move: their pairs run until they resign. */
async function quietBots(app: TestApp, host: Bot, names: string[]): Promise<Map<string, Bot>> {
  const bots = await Promise.all(names.map((n) => Bot.register(app, 'keep', n)));
  for (const bot of bots) await app.server.store.updateBot({ ...app.server.store.getBot(bot.id)!, capacity: 8 });
  for (const bot of bots) await trustHosts(bot, [host]);
  return new Map(bots.map((b) => [b.creds.name, b]));
}

/** Ends every pair running now: its first player resigns both games. */
async function endRunning(app: TestApp, id: string, bots: Map<string, Bot>): Promise<void> {
  const ev = await view(app, id);
  const running = ev.pairs.filter((p: Json) => !p.void && p.scores.some((s: unknown) => s === null));
  for (const p of running) for (const g of p.games) await bots.get(p.players[0].name)!.resign(g);
  // Those pairs have ended (the next ones may have started meanwhile).
  const ended = (e: Json) => running.every((p: Json) => e.pairs[p.index].scores.every((s: unknown) => s !== null));
  await waitEvent(app, id, ended);
}

t.test('the host withdraws a round-robin player while its pair runs', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'keep', 'host');
  const bots = await quietBots(app, host, ['a', 'b', 'c']);
  const outsider = await Bot.register(app, 'keep', 'outsider');
  const created = await host.req('POST', '/events', {
    name: 'three', format: 'roundRobin', players: ['a', 'b', 'c'].map((name) => ({ team: 'keep', name })), timeControl: UNLIMITED,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId;
  await app.server.tournaments.round();
  const [p0] = (await view(app, id)).pairs;
  const leaver = p0.players[0].name as string;
  const stays = ['a', 'b', 'c'].filter((n) => n !== leaver);

  t.equal(code(await outsider.req('POST', `/events/${id}/players/keep/${leaver}/withdraw`)), 'not_host', 'only the host withdraws a player');
  t.equal(code(await host.req('POST', `/events/${id}/players/keep/nobody/withdraw`)), 'not_invited', 'a bot not in the event');
  const r = await host.req('POST', `/events/${id}/players/keep/${leaver}/withdraw`);
  t.equal(r.status, 200, r.text);
  t.equal((r.json as Json).players.find((p: Json) => p.name === leaver).withdrawn, true, 'the player is shown withdrawn');
  t.equal((r.json as Json).pairsRunning, 1, 'its running pair plays on');
  const again = await host.req('POST', `/events/${id}/players/keep/${leaver}/withdraw`);
  t.equal(again.status, 409);
  t.equal(code(again), 'not_playing', 'a withdrawn player is not withdrawn twice');

  // Its running pair ends and counts; of its other encounter nothing is played.
  await endRunning(app, id, bots);
  for (let i = 0; i < 10; i++) {
    const ev = await view(app, id);
    if (ev.state === 'finished') break;
    await endRunning(app, id, bots);
  }
  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  t.equal(ev.pairs.length, 2, 'its pair played and the pair of the two others: its second encounter never started');
  t.same(ev.pairs[1].players.map((p: Json) => p.name).sort(), stays, 'the other pair is the two who stayed');
  const row = ev.standings.find((s: Json) => s.name === leaver);
  t.equal(row.withdrawn, true, 'the standings mark it');
  t.equal(row.games, 2, 'its pair played counts');
  t.ok(ev.standings.filter((s: Json) => s.name !== leaver).every((s: Json) => s.withdrawn === false));
  t.equal(code(await host.req('POST', `/events/${id}/players/keep/${stays[0]}/withdraw`)), 'event_over', 'nobody withdraws from an event over');
});

t.test('an SPRT player withdraws itself: the test ends with a note, what was played counts', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'keep', 'host');
  const bots = await quietBots(app, host, ['a', 'b']);
  const guest = await Bot.register(app, 'guests', 'g');
  const pending = await host.req('POST', '/events', {
    name: 'waits', format: 'match', players: [{ team: 'keep', name: 'a' }, { team: 'guests', name: 'g' }], timeControl: UNLIMITED,
  });
  t.equal(code(await bots.get('a')!.req('POST', `/events/${(pending.json as Json).eventId}/withdraw`)), 'event_not_running', 'a pending event is declined, not left');
  t.equal(code(await guest.req('POST', `/events/${(pending.json as Json).eventId}/withdraw`)), 'event_not_running', 'nor by an invited bot (it declines)');

  const created = await host.req('POST', '/events', {
    name: 'sprt', format: 'sprt', players: [{ team: 'keep', name: 'a' }, { team: 'keep', name: 'b' }], timeControl: UNLIMITED,
    sprt: { elo0: 0, elo1: 50, alpha: 0.05, beta: 0.05 }, maxPairs: 100,
  });
  const id = (created.json as Json).eventId;
  const stream = new EventStream(await app.stream(`/events/${id}/stream`));
  await app.server.tournaments.round();
  await endRunning(app, id, bots);
  await waitEvent(app, id, (e) => e.pairs.length === 2);
  t.equal(code(await host.req('POST', `/events/${id}/withdraw`)), 'not_invited', 'the self route is for players');
  const r = await bots.get('b')!.req('POST', `/events/${id}/withdraw`);
  t.equal(r.status, 200, r.text);
  t.equal((r.json as Json).state, 'running', 'its running pair still plays');
  await stream.until((l) => 'EventState' in l && l.EventState.players[1].withdrawn === true, 'the withdrawal on the stream');
  await endRunning(app, id, bots);
  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished', 'the test ends');
  t.match(ev.note, /withdrawals left 1 player/, 'with a note saying why');
  t.equal(ev.pairs.length, 2, 'no pair after the withdrawal');
  t.equal(ev.encounters[0].pairs, 2, 'both pairs played count');
  t.equal(ev.verdict, null);
  t.ok(ev.seed, 'the seed is published');
  await stream.until((l) => 'EventEnded' in l, 'the end on the stream');
});

t.test('a Swiss pairs a withdrawn player no more', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'keep', 'host');
  const names = ['a', 'b', 'c', 'd'];
  const bots = await quietBots(app, host, names);
  const created = await host.req('POST', '/events', {
    name: 'swiss', format: 'swiss', rounds: 3, players: names.map((name) => ({ team: 'keep', name })), timeControl: UNLIMITED, concurrency: 2,
  });
  const id = (created.json as Json).eventId;
  await waitEvent(app, id, (e) => e.pairs.length === 2);
  t.equal((await host.req('POST', `/events/${id}/players/keep/d/withdraw`)).status, 200);
  for (let i = 0; i < 10; i++) {
    if ((await view(app, id)).state === 'finished') break;
    await app.server.tournaments.round();
    await endRunning(app, id, bots);
  }
  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  const later = ev.pairs.filter((p: Json) => p.round > 1);
  t.ok(later.length > 0, 'later rounds were paired');
  t.notOk(later.some((p: Json) => p.players.some((q: Json) => q.name === 'd')), 'd is in no pair after round 1');
  t.notOk(ev.byes.some((b: Json) => b.name === 'd'), 'nor given a bye');
  t.equal(ev.standings.find((s: Json) => s.name === 'd').withdrawn, true);
});
