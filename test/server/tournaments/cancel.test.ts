// A host cancels an event while one of its pairs is still being played. The running pair plays on
// and counts; until its games have ended, nothing a client can read shows the event seed or that
// pair's server seed (either would tell every coming roll of its games): not the cancel answer,
// the event, the lists, the export, the games, nor the event stream. Once they have ended the
// event is `cancelled` and its seed published and verifiable as for any event.
import t from 'tap';
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyEvent } from '../../../src/cli/verify-tournament.js';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { exportOf, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';
import { until } from '../../helpers/poll.js';

/** Pair i's server seed, derived as docs/API.md says. */
function pairSeed(eventSeed: string, i: number): string {
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(i, 0);
  return createHmac('sha256', Buffer.from(eventSeed, 'hex')).update('dicechess-event-pair').update(tail).digest('hex');
}

t.test('a cancel while a pair runs reveals no seed of it until its games have ended', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'keep', 'host');
  // Bots that trust the host (in at once) and never move: their Unlimited games run until they resign.
  const [a, b] = await Promise.all(['a', 'b'].map((n) => Bot.register(app, 'keep', n)));
  for (const bot of [a, b]) await app.server.store.updateBot({ ...app.server.store.getBot(bot.id)!, capacity: 4 });
  for (const bot of [a, b]) await trustHosts(bot, [host]);
  const created = await host.req('POST', '/events', {
    name: 'cut short', format: 'match', players: [{ team: 'keep', name: 'a' }, { team: 'keep', name: 'b' }],
    timeControl: UNLIMITED, pairsPerEncounter: 2, concurrency: 2,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId;
  const stream = new EventStream(await app.stream(`/events/${id}/stream`));
  await app.server.tournaments.round();
  const [p0, p1] = ((await app.req('GET', `/events/${id}`)).json as Json).pairs;
  t.ok(p0 && p1, 'two pairs run');
  // Pair 0 ends (its first player resigns both games); pair 1 plays on.
  for (const g of p0.games) t.equal((await a.resign(g)).status, 202);
  await waitEvent(app, id, (ev) => ev.pairs[0].scores.every((s: unknown) => s !== null));
  await stream.until((l) => 'PairFinished' in l, 'pair 0 finished');

  const secret = app.server.store.getTournament(id)!.seed;
  const running = pairSeed(secret, 1);
  const cancelled = await host.req('POST', `/events/${id}/cancel`);
  t.equal(cancelled.status, 200, cancelled.text);
  t.equal((cancelled.json as Json).state, 'cancelling', 'the answer says the running pair plays on');
  t.equal((cancelled.json as Json).pairsRunning, 1);
  t.equal((cancelled.json as Json).seed, null);
  const again = await stream.until((l) => 'EventState' in l || 'EventEnded' in l, 'the cancel on the stream');
  t.equal(again.EventState?.state, 'cancelling', 'the stream says so too, and does not end');
  await app.server.tournaments.round();
  t.equal(((await app.req('GET', `/events/${id}`)).json as Json).pairs.length, 2, 'no pair starts after the cancel');

  // Everything a client can read while pair 1 runs (the web page reads GET /events/{id} and the stream).
  const late = new EventStream(await app.stream(`/events/${id}/stream`));
  const lateFirst = await late.next();
  t.equal(lateFirst?.EventState?.state, 'cancelling', 'a new follower gets the event, and no end');
  const seen: [string, string][] = [
    ['the cancel answer', cancelled.text],
    ['GET /events/{id}', (await app.req('GET', `/events/${id}`)).text],
    ['GET /events', (await app.req('GET', '/events')).text],
    ['GET /bot/events of the host', (await host.req('GET', '/bot/events')).text],
    ['GET /bot/events of a player', (await a.req('GET', '/bot/events')).text],
    ['the export', (await app.req('GET', `/events/${id}/games`)).text],
    ['the event stream', JSON.stringify(stream.seen)],
    ['a new follower of the stream', JSON.stringify(late.seen)],
  ];
  for (const g of [...p0.games, ...p1.games]) seen.push([`GET /games/${g}`, (await app.req('GET', `/games/${g}`)).text]);
  for (const [where, text] of seen) {
    t.notOk(text.includes(secret), `${where}: no event seed`);
    t.notOk(text.includes(running), `${where}: no seed of the running pair`);
  }
  for (const g of p1.games) t.equal(((await app.req('GET', `/games/${g}`)).json as Json).seed, null, `game ${g} of the running pair keeps its seed`);
  t.equal(((await app.req('GET', `/games/${p0.games[0]}`)).json as Json).seed, pairSeed(secret, 0), 'the ended pair shows its own seed, as any ended pair');
  t.equal((await exportOf(app, id)).length, 3, 'the export: the event and the two games of the ended pair');

  // Pair 1 ends: the event is over, its seed published.
  for (const g of p1.games) t.equal((await a.resign(g)).status, 202);
  const end = await stream.until((l) => 'EventEnded' in l, 'the end');
  t.same(end.EventEnded, { eventId: id, state: 'cancelled', verdict: null, seed: secret }, 'EventEnded comes once nothing runs, with the seed');
  t.ok(stream.seen.some((l) => l.PairFinished?.index === 1), 'after the running pair finished (and counted)');
  const lateEnd = await late.until((l) => 'EventEnded' in l, 'the end for the late follower');
  t.equal(lateEnd.EventEnded.seed, secret);
  const ev = await waitEvent(app, id, (e) => e.state === 'cancelled');
  t.equal(ev.seed, secret, 'GET /events/{id} shows the seed');
  t.equal(ev.pairsRunning, 0);
  t.equal(createHash('sha256').update(Buffer.from(ev.seed, 'hex')).digest('hex'), ev.commit, 'it matches the commitment');
  t.equal(ev.standings[0].games + ev.standings[1].games, 8, 'both pairs count');
  const games = (await exportOf(app, id)).slice(1).map((l) => l.Game);
  t.equal(games.length, 4, 'every game exported');
  for (const g of games) t.equal(g.serverSeed, pairSeed(ev.seed, g.pair), `pair ${g.pair}: its seed derives from the event seed`);
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-cancel-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'export.ndjson');
  writeFileSync(file, (await app.req('GET', `/events/${id}/games`)).text);
  const out: string[] = [];
  t.equal(await verifyEvent(file, { out: (l) => out.push(l), err: (l) => out.push(l), progress: () => {} }, 1), 0, out.join('\n'));
  late.close();
});

t.test('a cancel with no pair running ends the event at once, seed and all', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'keep', 'host');
  const [a, guest] = await Promise.all([Bot.register(app, 'keep', 'a'), Bot.register(app, 'guests', 'g')]);
  // Pending: the guest has not answered.
  const pending = await host.req('POST', '/events', {
    name: 'unanswered', format: 'match', players: [{ team: 'keep', name: 'a' }, { team: 'guests', name: 'g' }], timeControl: UNLIMITED,
  });
  const p = await host.req('POST', `/events/${(pending.json as Json).eventId}/cancel`);
  t.equal((p.json as Json).state, 'cancelled', 'a pending event is cancelled at once');
  t.equal((p.json as Json).seed, app.server.store.getTournament((pending.json as Json).eventId)!.seed, 'with its seed');
  // Running, but its pair cannot start: a's two seats are taken by games of its own.
  for (let i = 0; i < 2; i++) t.equal((await a.challenge({ team: 'house', name: 'random' })).status, 201);
  await until(async () => (((await a.req('GET', '/bot/games')).json as Json).games.length === 2 ? true : undefined), 'its two games');
  const running = await host.req('POST', '/events', {
    name: 'seatless', format: 'match', players: [{ team: 'keep', name: 'a' }, { team: 'house', name: 'greedy' }], timeControl: UNLIMITED,
  });
  const id = (running.json as Json).eventId;
  await app.server.tournaments.round();
  t.equal(((await app.req('GET', `/events/${id}`)).json as Json).pairs.length, 0, 'no pair runs');
  const r = await host.req('POST', `/events/${id}/cancel`);
  t.equal((r.json as Json).state, 'cancelled', 'cancelled at once');
  t.equal((r.json as Json).seed, app.server.store.getTournament(id)!.seed, 'with its seed');
  void guest;
});
