// A host pauses a running event: no new pair starts, the pair running plays on and counts, the
// state says `paused` (the event, the lists, the stream) and stays so across a restart; a resume
// starts pairs again, and a paused event can be cancelled (its seed still waits for its running pair).
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { bootApp, diskDir, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

const view = async (app: TestApp, id: string): Promise<Json> => (await app.req('GET', `/events/${id}`)).json as Json;

t.test('a paused event starts no pair until it resumes; the running pair plays on and counts', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'keep', 'host');
  // Bots that trust the host (in at once) and never move: a pair runs until they resign.
  const [a, b, other] = await Promise.all(['a', 'b', 'other'].map((n) => Bot.register(app, 'keep', n)));
  for (const bot of [a, b]) await app.server.store.updateBot({ ...app.server.store.getBot(bot.id)!, capacity: 4 });
  for (const bot of [a, b]) await trustHosts(bot, [host]);
  const created = await host.req('POST', '/events', {
    name: 'stop and go', format: 'match', players: [{ team: 'keep', name: 'a' }, { team: 'keep', name: 'b' }],
    timeControl: UNLIMITED, pairsPerEncounter: 3,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId;
  const stream = new EventStream(await app.stream(`/events/${id}/stream`));
  await app.server.tournaments.round();
  const [p0] = (await view(app, id)).pairs;
  t.ok(p0, 'pair 0 runs');

  t.equal(((await other.req('POST', `/events/${id}/pause`)).json as Json).code, 'not_host', 'only the host pauses');
  t.equal((await host.req('POST', '/events/nope/pause')).status, 404);
  t.equal(((await host.req('POST', `/events/${id}/resume`)).json as Json).code, 'event_not_paused', 'a running event does not resume');
  const paused = await host.req('POST', `/events/${id}/pause`);
  t.equal(paused.status, 200, paused.text);
  t.equal((paused.json as Json).state, 'paused');
  t.equal((paused.json as Json).pairsRunning, 1, 'its running pair plays on');
  const line = await stream.until((l) => 'EventState' in l && l.EventState.state === 'paused', 'the pause on the stream');
  t.ok(line, 'the stream announces the pause');
  const again = await host.req('POST', `/events/${id}/pause`);
  t.equal(again.status, 409);
  t.equal((again.json as Json).code, 'event_not_running', 'a paused event does not pause again');
  t.equal(((await app.req('GET', '/events')).json as Json).events.find((e: Json) => e.eventId === id).state, 'paused', 'the list says paused');

  // The running pair ends and counts; nothing new starts however often the scheduler looks.
  for (const g of p0.games) t.equal((await a.resign(g)).status, 202);
  await stream.until((l) => 'PairFinished' in l, 'pair 0 finished');
  for (let i = 0; i < 3; i++) await app.server.tournaments.round();
  const still = await view(app, id);
  t.equal(still.state, 'paused');
  t.equal(still.pairs.length, 1, 'no pair starts while paused');
  t.equal(still.standings[0].games + still.standings[1].games, 4, 'the pair played while pausing counts');
  t.equal(still.seed, null, 'no seed: the event is not over');

  t.equal(((await other.req('POST', `/events/${id}/resume`)).json as Json).code, 'not_host', 'only the host resumes');
  const resumed = await host.req('POST', `/events/${id}/resume`);
  t.equal(resumed.status, 200, resumed.text);
  t.equal((resumed.json as Json).state, 'running');
  await stream.until((l) => 'PairStarted' in l && l.PairStarted.index === 1, 'pair 1 starts after the resume');

  // Paused again with pair 1 running, then cancelled: cancelling until the pair ends, then the seed.
  t.equal((await host.req('POST', `/events/${id}/pause`)).status, 200);
  const cancelled = await host.req('POST', `/events/${id}/cancel`);
  t.equal(cancelled.status, 200, cancelled.text);
  t.equal((cancelled.json as Json).state, 'cancelling', 'a paused event with a pair running is cancelling');
  t.equal((cancelled.json as Json).seed, null, 'its seed waits for the running pair');
  t.equal(((await host.req('POST', `/events/${id}/resume`)).json as Json).code, 'event_over', 'a cancelling event does not resume');
  const p1 = (await view(app, id)).pairs[1];
  for (const g of p1.games) t.equal((await a.resign(g)).status, 202);
  const end = await stream.until((l) => 'EventEnded' in l, 'the end');
  t.equal(end.EventEnded.state, 'cancelled');
  t.equal(end.EventEnded.seed, app.server.store.getTournament(id)!.seed, 'the seed once nothing runs');
  t.equal((await view(app, id)).pairs.length, 2, 'the third pair never started');
});

t.test('a pause survives a restart; the resumed event plays its remaining pairs', async (t) => {
  const store = diskDir(t);
  let now = 1_700_000_000_000;
  const boot = async (): Promise<TestApp> => bootApp(t, { store: await store(), clock: new ManualClock(now, { runDueTimers: true }) });
  let app = await boot();
  const host = await Bot.register(app, 'hosts', 'rita');
  const created = await host.req('POST', '/events', {
    name: 'overnight', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED, pairsPerEncounter: 4,
  });
  const id = (created.json as Json).eventId;
  await waitEvent(app, id, (ev) => ev.pairs.length >= 1);
  t.equal((await host.req('POST', `/events/${id}/pause`)).status, 200);
  const before = await waitEvent(app, id, (ev) => ev.pairsRunning === 0);
  t.equal(before.state, 'paused');
  t.ok(before.pairs.length < 4, 'pairs are left to play');
  now = app.clock.now() + 60_000;
  await app.server.close();

  app = await boot();
  const rita = new Bot(app, host.creds);
  for (let i = 0; i < 3; i++) await app.server.tournaments.round();
  const after = await view(app, id);
  t.equal(after.state, 'paused', 'still paused after the restart');
  t.equal(after.pairs.length, before.pairs.length, 'and no pair started');
  t.equal((await rita.req('POST', `/events/${id}/resume`)).status, 200);
  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  t.same(ev.pairs.map((p: Json) => p.index), [0, 1, 2, 3], 'every pair played once');
});
