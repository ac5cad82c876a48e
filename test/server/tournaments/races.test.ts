// Answers to an invitation and the host's start are changes of one record, queued on it: a decline
// that comes at the same moment as the last acceptance or as the host's start can never leave an
// event running with a player missing (before, the count of acceptances was read outside that
// queue: a match could start with one player, and each scheduler pass then threw).
//
// Deterministic: the event's writes are held at the store (GatedEventStore) while the first call
// is being stored, the second call is let reach its handler (its token lookup, then one turn of
// the event loop), and only then is the write let through.
import t, { type Test } from 'tap';
import type { Logger } from '../../../src/domain/log.js';
import { bootApp, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { GatedEventStore } from '../../helpers/gated-store.js';
import type { HttpResult } from '../../helpers/http.js';
import { UNLIMITED } from '../../helpers/tournaments.js';

/** A logger that keeps what went wrong. */
function recording(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, info() {}, warn() {}, error: (fields, msg) => void errors.push(`${msg ?? ''} ${JSON.stringify(fields)}`) };
}

async function setup(t: Test) {
  const store = new GatedEventStore();
  const log = recording();
  const app = await bootApp(t, { store, log, overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'hosts', 'rhea');
  const mine = await Bot.register(app, 'hosts', 'mine');
  const [x, y] = await Promise.all(['x', 'y'].map((n) => Bot.register(app, 'guests', n)));
  return { store, log, app, host, mine, x, y };
}

const face = (b: Bot) => ({ team: b.creds.team, name: b.creds.name });

/**
 * `first` is sent and held while its event write is stored; `second` is sent and let reach its
 * handler; then the write goes on. Both answers.
 */
async function race(store: GatedEventStore, first: () => Promise<HttpResult>, second: () => Promise<HttpResult>): Promise<[HttpResult, HttpResult]> {
  store.hold();
  const a = first();
  await store.blocked();
  const reached = store.nextLookup();
  const b = second();
  await reached;
  await new Promise((r) => setImmediate(r));
  store.release();
  return Promise.all([a, b]);
}

const view = async (app: TestApp, id: string): Promise<Json> => (await app.req('GET', `/events/${id}`)).json;

t.test('the last acceptance and a decline at once: the match never runs with one player', async (t) => {
  const { store, log, app, host, x, y } = await setup(t);
  const created = await host.req('POST', '/events', { name: 'race', format: 'match', players: [face(x), face(y)], timeControl: UNLIMITED });
  const id = (created.json as Json).eventId;
  t.equal((await x.req('POST', `/events/${id}/accept`)).status, 200);
  // y's acceptance completes the list; x takes its own back at the same moment.
  const [accepted, declined] = await race(store, () => y.req('POST', `/events/${id}/accept`), () => x.req('POST', `/events/${id}/decline`));
  t.equal(accepted.status, 200, 'the acceptance came first');
  t.equal((accepted.json as Json).state, 'running', 'and started the match with both players');
  t.equal(declined.status, 409, 'the decline comes after the start: refused');
  t.equal((declined.json as Json).code, 'event_started');
  await app.server.tournaments.round();
  await app.server.tournaments.round();
  const ev = await view(app, id);
  t.equal(ev.state, 'running');
  t.same(ev.players.map((p: Json) => p.invitation), ['accepted', 'accepted'], 'both players take part');
  t.equal(ev.pairs.length, 1, 'its pair started between the two');
  t.same(log.errors, [], 'nothing went wrong in the scheduler');
});

t.test('the host starts while a player declines: no event starts without the players it needs', async (t) => {
  const { store, log, app, host, mine, x, y } = await setup(t);
  const created = await host.req('POST', '/events', {
    name: 'race', format: 'gauntlet', players: [face(mine), face(x), face(y)], timeControl: UNLIMITED,
  });
  const id = (created.json as Json).eventId;
  t.equal((await x.req('POST', `/events/${id}/accept`)).status, 200);
  // Two have accepted (mine, x): the host may start. x declines at that moment.
  const [declined, started] = await race(store, () => x.req('POST', `/events/${id}/decline`), () => host.req('POST', `/events/${id}/start`));
  t.equal(declined.status, 200, 'the decline came first');
  t.equal(started.status, 409, 'so the start finds one player: refused');
  t.equal((started.json as Json).code, 'too_few_players');
  await app.server.tournaments.round();
  const ev = await view(app, id);
  t.equal(ev.state, 'pending', 'the event waits for players');
  t.same(ev.pairs, []);
  t.same(log.errors, [], 'nothing went wrong');
});
