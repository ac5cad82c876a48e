// Making events is budgeted: per host and per address each sliding hour, and the invitations one bot
// may receive each hour from all hosts together. Each refusal is a 429 problem with a Retry-After in
// whole seconds, and a refused event invites nobody. Creations sent at once cannot pass the cap on
// open events together (on LMDB, where a write resolves only once committed).
import t, { type Test } from 'tap';
import type { ManualClock } from '../../../src/domain/clock.js';
import { bootApp, diskStore, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, ResigningBot, UNLIMITED } from '../../helpers/tournaments.js';

const HOUR = 3_600_000;
const MATCH = { name: 'm', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED };
/** Refused by the event service (not by the request's schema): an unknown player. */
const UNKNOWN_PLAYER = { ...MATCH, players: [HOUSE_GREEDY, { team: 'nobody', name: 'here' }] };

function tooMany(t: Test, r: Awaited<ReturnType<TestApp['req']>>, code: string, what: string): void {
  t.equal(r.status, 429, `${what}: ${r.text}`);
  t.equal(r.headers['content-type'], 'application/problem+json', `${what}: a problem body`);
  t.equal((r.json as Json).code, code, `${what}: ${code}`);
  t.match(r.headers['retry-after'], /^[1-9]\d*$/, `${what}: Retry-After in whole seconds, at least 1`);
}

/** Creates an event and cancels it at once, so that the open-events cap never gets in the way. */
async function createAndCancel(t: Test, host: Bot, body: Json = MATCH): Promise<void> {
  const r = await host.req('POST', '/events', body);
  t.equal(r.status, 201, r.text);
  const state = (r.json as Json).state;
  if (state === 'pending' || state === 'running') t.equal((await host.req('POST', `/events/${(r.json as Json).eventId}/cancel`)).status, 200);
}

t.test('a host creates at most its hourly budget of events; refused creations do not count', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100, 'events.createsPerHostPerHour': 3 } });
  const host = await Bot.register(app, 'hosts', 'rita');
  const other = await Bot.register(app, 'hosts', 'olga');
  t.equal((await host.req('POST', '/events', UNKNOWN_PLAYER)).status, 400, 'a refused event');
  for (let i = 0; i < 3; i++) await createAndCancel(t, host);
  tooMany(t, await host.req('POST', '/events', MATCH), 'too_many_events_created', 'the fourth event of the hour');
  await createAndCancel(t, other);
  t.pass('another host still may');
  (app.clock as ManualClock).advance(HOUR);
  await createAndCancel(t, host);
  t.pass('an hour later the host may again');
});

t.test('creations asked for from one address are budgeted, refused ones included', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100, 'events.createsPerAddressPerHour': 4 } });
  const hosts = await Promise.all(['a', 'b', 'c'].map((n) => Bot.register(app, 'hosts', n)));
  t.equal((await hosts[0].req('POST', '/events', UNKNOWN_PLAYER)).status, 400, 'a refused creation');
  await createAndCancel(t, hosts[0]);
  await createAndCancel(t, hosts[1]);
  await createAndCancel(t, hosts[2]);
  tooMany(t, await hosts[2].req('POST', '/events', MATCH), 'too_many_event_requests', 'the fifth creation from this address');
});

t.test('a bot receives at most its hourly budget of invitations, whoever hosts', async (t) => {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100, 'events.invitationsPerBotPerHour': 2 } });
  const [rita, olga] = await Promise.all(['rita', 'olga'].map((n) => Bot.register(app, 'hosts', n)));
  const target = await new ResigningBot(await Bot.register(app, 'guests', 'rex'), 'none').start();
  const bystander = await new ResigningBot(await Bot.register(app, 'guests', 'ben'), 'none').start();
  t.teardown(() => {
    target.close();
    bystander.close();
  });
  const inviting = (...bots: ResigningBot[]) => ({
    ...MATCH, format: 'gauntlet', players: [HOUSE_GREEDY, ...bots.map((b) => ({ team: 'guests', name: b.bot.creds.name }))],
  });
  await createAndCancel(t, rita, inviting(target));
  await createAndCancel(t, olga, inviting(target));
  const before = (await app.req('GET', '/events')).json as Json;
  tooMany(t, await rita.req('POST', '/events', inviting(bystander, target)), 'too_many_invitations', 'a third invitation this hour');
  tooMany(t, await olga.req('POST', '/events', inviting(target)), 'too_many_invitations', 'from another host too');
  t.same((await app.req('GET', '/events')).json, before, 'the refused events were not made');
  await createAndCancel(t, rita, inviting(bystander));
  await app.server.tournaments.round();
  t.equal(target.invitations.length, 2, 'the target got two invitations');
  t.equal(bystander.invitations.length, 1, 'the bystander was invited once: not by the refused event');
  (app.clock as ManualClock).advance(HOUR);
  await createAndCancel(t, olga, inviting(target));
});

t.test('creations sent at once: exactly the open-events cap of them are made', async (t) => {
  const OPEN = 4;
  const app = await bootApp(t, { store: await diskStore(t), overrides: { 'limits.registrationsPerHour': 100, 'events.openPerHost': OPEN } });
  const host = await Bot.register(app, 'hosts', 'rita');
  await Bot.register(app, 'guests', 'rex');
  // Rex never answers: every event made stays pending, so each holds its place.
  const body = { ...MATCH, players: [HOUSE_GREEDY, { team: 'guests', name: 'rex' }] };
  const all = await Promise.all(Array.from({ length: 12 }, () => host.req('POST', '/events', body)));
  t.equal(all.filter((r) => r.status === 201).length, OPEN, 'as many as the cap');
  for (const r of all.filter((x) => x.status !== 201)) tooMany(t, r, 'too_many_events', 'one over the cap');
  const mine = (await host.req('GET', '/bot/events')).json as Json;
  t.equal(mine.events.length, OPEN, 'and only those exist');
});
