// Consent over HTTP: a bot enters an event only by its own word. A stranger who registers a name in
// its team is only an inviter like any other; a bot's event-hosts setting (its own, set with its own
// token) lets the hosts it names enter it unasked, rated events only when it says so; the setting is
// bounded, checked, and shown to the bot alone.
import t from 'tap';
import { bootApp, diskStore } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import type { EventStream } from '../../helpers/event-stream.js';
import { HOUSE_RANDOM, trustHosts, UNLIMITED } from '../../helpers/tournaments.js';

const face = (b: Bot) => ({ team: b.creds.team, name: b.creds.name });
const SETTINGS = { 'limits.registrationsPerHour': 100, 'events.openPerHost': 10 };
const invitationOf = (s: EventStream) => s.until((e) => 'EventInvitation' in e, 'an EventInvitation').then((e) => e.EventInvitation);

t.test('a stranger who registers a name in a bot’s team cannot enter that bot into an event', async (t) => {
  const app = await bootApp(t);
  const alpha = await Bot.register(app, 'acme', 'alpha');
  const stream = await alpha.accountStream();
  t.teardown(() => stream.close());
  const mallory = await Bot.register(app, 'acme', 'mallory');
  // The confirmed attack: a rated match at one second sudden death.
  const created = await mallory.req('POST', '/events', {
    name: 'ambush', format: 'match', players: [face(alpha), HOUSE_RANDOM], timeControl: { SuddenDeath: { initialSeconds: 1 } },
    pairsPerEncounter: 2, rated: true,
  });
  t.equal(created.status, 201, created.text);
  const ev = created.json as Json;
  t.equal(ev.state, 'pending', 'the event waits for alpha');
  t.same(ev.players.map((p: Json) => p.invitation), ['invited', 'accepted'], 'alpha is only invited; the house bot plays whoever asks');
  t.same(await invitationOf(stream), {
    eventId: ev.eventId, name: 'ambush', format: 'match', host: face(mallory), rated: true, invitation: 'invited', timeControl: { SuddenDeath: { initialSeconds: 1 } }, timeOdds: false,
  }, 'alpha is asked, and told the event is rated');
  const mine = (await alpha.req('GET', '/bot/events')).json as Json;
  t.match(mine.events[0], { eventId: ev.eventId, invitation: 'invited', hosting: false, rated: true }, 'its listing says rated too');

  await app.server.tournaments.round();
  t.equal(((await app.req('GET', `/events/${ev.eventId}`)).json as Json).pairs.length, 0, 'no pair starts');
  t.same(await alpha.myGames(), [], 'alpha sits in no game');
  const start = await mallory.req('POST', `/events/${ev.eventId}/start`);
  t.equal(start.status, 409, 'the host cannot start it without alpha');
  t.equal((start.json as Json).code, 'too_few_players');
  t.equal((await alpha.req('POST', `/events/${ev.eventId}/decline`)).status, 200, 'alpha says no');
  t.equal(((await app.req('GET', `/events/${ev.eventId}`)).json as Json).state, 'pending');
});

t.test('the setting enters a bot into the named host’s unrated events; rated ones need its explicit word', async (t) => {
  const app = await bootApp(t, { overrides: SETTINGS });
  const boss = await Bot.register(app, 'hosts', 'boss');
  const other = await Bot.register(app, 'hosts', 'other');
  const alpha = await Bot.register(app, 'acme', 'alpha');
  const stream = await alpha.accountStream();
  t.teardown(() => stream.close());
  await trustHosts(alpha, [boss]);
  const host = async (who: Bot, rated: boolean): Promise<Json> => {
    const r = await who.req('POST', '/events', { name: rated ? 'rated' : 'friendly', format: 'match', players: [face(alpha), HOUSE_RANDOM], timeControl: UNLIMITED, rated });
    t.equal(r.status, 201, r.text);
    return r.json;
  };

  const friendly = await host(boss, false);
  t.equal(friendly.state, 'running', 'an unrated event of a named host starts at once');
  t.equal(friendly.players[0].invitation, 'accepted');
  t.match(await invitationOf(stream), { eventId: friendly.eventId, rated: false, invitation: 'accepted' }, 'alpha is told, as any invited bot is');

  const rated = await host(boss, true);
  t.equal(rated.state, 'pending', 'a rated event is not covered by a setting without `rated`');
  t.match(await invitationOf(stream), { eventId: rated.eventId, rated: true, invitation: 'invited' });
  const stranger = await host(other, false);
  t.equal(stranger.state, 'pending', 'a host the setting does not name only invites');
  t.match(await invitationOf(stream), { eventId: stranger.eventId, invitation: 'invited' });

  const accepted = await alpha.req('POST', `/events/${rated.eventId}/accept`);
  t.equal(accepted.status, 200, 'the rated one starts on alpha’s explicit acceptance');
  t.equal((accepted.json as Json).state, 'running');

  await trustHosts(alpha, [boss], true);
  const ratedToo = await host(boss, true);
  t.equal(ratedToo.state, 'running', 'with `rated: true` the setting covers the host’s rated events');
  t.match(await invitationOf(stream), { eventId: ratedToo.eventId, rated: true, invitation: 'accepted' });

  const own = await boss.req('POST', '/events', { name: 'mine', format: 'match', players: [face(boss), HOUSE_RANDOM], timeControl: UNLIMITED, rated: true });
  t.equal((own.json as Json).state, 'running', 'the host itself plays by asking');
});

t.test('the setting is bounded, checked, kept with the bot and shown to the bot alone', async (t) => {
  const app = await bootApp(t, { store: await diskStore(t), overrides: SETTINGS });
  const alpha = await Bot.register(app, 'acme', 'alpha');
  const boss = await Bot.register(app, 'hosts', 'boss');
  const anon = await Bot.anon(app, 'drifter');
  const put = (who: Bot, body: unknown) => who.req('PUT', '/bot/account/event-hosts', body);
  const refused = async (who: Bot, body: unknown, status: number, code: string, what: string) => {
    const r = await put(who, body);
    t.equal(r.status, status, `${what}: ${r.text}`);
    t.equal(r.headers['content-type'], 'application/problem+json', `${what}: a problem body`);
    t.equal((r.json as Json).code, code, `${what}: ${code}`);
  };
  const fifty = Array.from({ length: 50 }, (_, i) => ({ team: 'many', name: `h${i}` }));
  await refused(alpha, { hosts: [...fifty, face(boss)] }, 400, 'invalid_body', 'more than 50 hosts');
  await refused(alpha, { hosts: face(boss) }, 400, 'invalid_body', 'not a list');
  await refused(alpha, { hosts: [face(boss)], rated: 'yes' }, 400, 'invalid_body', 'rated not a boolean');
  await refused(alpha, { hosts: [face(boss), face(boss)] }, 400, 'invalid_event_hosts', 'a host twice');
  await refused(alpha, { hosts: [{ team: 'nobody', name: 'here' }] }, 400, 'invalid_event_hosts', 'a host nobody registered');
  await refused(alpha, { hosts: [HOUSE_RANDOM] }, 400, 'invalid_event_hosts', 'a house bot (it hosts nothing)');
  await refused(anon, { hosts: [face(boss)] }, 403, 'registered_only', 'an anonymous bot');
  const account = async (who: Bot) => ((await who.req('GET', '/bot/account')).json as Json);
  t.same((await account(alpha)).eventHosts, { hosts: [], rated: false }, 'a record without the setting reads as none; the refusals changed nothing');
  t.notOk('eventHosts' in (await account(anon)), 'an anonymous bot has no setting');

  for (const h of fifty) await Bot.register(app, h.team, h.name);
  const set = await put(alpha, { hosts: fifty, rated: true });
  t.equal(set.status, 200, set.text);
  t.same(set.json, { hosts: fifty, rated: true }, 'fifty hosts: the bound itself is taken');
  t.same((await account(alpha)).eventHosts, { hosts: fifty, rated: true }, 'GET /bot/account shows it to the bot');
  t.same(app.server.store.getBot(alpha.id)!.eventHosts?.hosts.length, 50, 'kept on the bot record');
  t.same((await account(boss)).eventHosts, { hosts: [], rated: false }, 'another bot sees its own, not alpha’s');
  const profile = await app.req('GET', '/bots/acme/alpha');
  t.equal(profile.status, 200);
  t.notOk(profile.text.includes('many'), 'the public profile does not show it');

  const cleared = await put(alpha, { hosts: [] });
  t.same(cleared.json, { hosts: [], rated: false }, 'an empty list clears it');
  t.equal(app.server.store.getBot(alpha.id)!.eventHosts, undefined, 'and leaves the record as if never set');
});
