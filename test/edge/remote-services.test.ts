// The challenge and lobby routes take the service itself or, in a cluster, a stand-in that calls the
// node holding it: its answers come later (promises), and when no holder answered they are an
// `Unavailable` value, which the routes turn into 503 with Retry-After (lists included).
import t from 'tap';
import type { Principal } from '../../src/domain/types.js';
import type { EdgeDeps } from '../../src/edge/deps.js';
import { challengeHandlers } from '../../src/edge/handlers/challenges.js';
import { lobbyHandlers } from '../../src/edge/handlers/lobby.js';
import { serviceUnavailable, isUnavailable } from '../../src/services/remote-service.js';

const bot: Principal = { id: 'bot:team:t:b', tier: 'registered', team: 't', name: 'b' };
const later = <T>(v: T): Promise<T> => new Promise((r) => setTimeout(() => r(v), 5));
const down = () => Promise.resolve(serviceUnavailable('service challenges: no holder answered (no responders)'));
const unlimited = { take: () => ({ ok: true as const }) } as never;
const ctx = { ip: '127.0.0.1', addressKey: '127.0.0.1' } as never;
const call = <B, Q, P>(body: B, query: Q, params: P) => ({ ctx, principal: bot, body, query, params }) as never;

t.test('challenge routes await a service that answers later', async (t) => {
  const view = { id: 'c1', challenger: { Bot: { team: 't', name: 'b' } }, target: { Bot: { team: 't', name: 'x' } }, timeControl: { Unlimited: {} }, targetOnline: true };
  const challenges: EdgeDeps['challenges'] = {
    create: () => later({ ok: true as const, value: view }) as never,
    list: () => later({ in: [], out: [view] }) as never,
    accept: () => later({ ok: true as const, value: { gameId: 'g1' } }),
    decline: () => later({ ok: true as const, value: {} }),
  };
  const h = challengeHandlers({ challenges, limits: { challenges: unlimited } });
  const created = await h.createChallenge(call({ team: 't', name: 'x' }, {}, {}));
  t.equal(created?.status, 201);
  t.same(JSON.parse(String(created?.body)), view);
  const listed = await h.listChallenges(call(undefined, {}, {}));
  t.same(JSON.parse(String(listed?.body)), { in: [], out: [view] });
  t.equal((await h.acceptChallenge(call(undefined, {}, { id: 'c1' })))?.status, 201);
  t.equal((await h.declineChallenge(call(undefined, {}, { id: 'c1' })))?.status, 200);
});

t.test('with no holder, every challenge and lobby route answers 503 with Retry-After', async (t) => {
  const challenges: EdgeDeps['challenges'] = { create: down, list: down, accept: down, decline: down };
  const lobby: EdgeDeps['lobby'] = {
    createBotSeek: down, createGuestSeek: down, list: down, poll: down, cancel: down, acceptAsBot: down, acceptAsGuest: down,
  };
  const ch = challengeHandlers({ challenges, limits: { challenges: unlimited } });
  const lb = lobbyHandlers({ lobby, houseGames: {} as never, limits: { guests: unlimited, lobbyPolls: unlimited } });
  const replies = [
    await ch.createChallenge(call({ team: 't', name: 'x' }, {}, {})),
    await ch.listChallenges(call(undefined, {}, {})),
    await ch.acceptChallenge(call(undefined, {}, { id: 'c' })),
    await ch.declineChallenge(call(undefined, {}, { id: 'c' })),
    await lb.createSeek(call({}, {}, {})),
    await lb.acceptSeek(call(undefined, {}, { id: 's' })),
    await lb.listLobbySeeks(call(undefined, {}, {})),
    await lb.createGuestSeek(call({}, {}, {})),
    await lb.pollSeek(call(undefined, { secret: 'x' }, { id: 's' })),
    await lb.cancelSeek(call(undefined, { secret: 'x' }, { id: 's' })),
    await lb.guestAcceptSeek(call({ guestId: null }, {}, { id: 's' })),
  ];
  for (const r of replies) {
    t.equal(r?.status, 503);
    t.equal(r?.headers?.['retry-after'], '1');
    t.match(JSON.parse(String(r?.body)), { code: 'service_unavailable', status: 503 });
  }
});

t.test('isUnavailable tells the fallback from ordinary answers', async (t) => {
  t.ok(isUnavailable(serviceUnavailable('x')));
  t.notOk(isUnavailable({ in: [], out: [] }));
  t.notOk(isUnavailable({ seeks: [], next: null }));
  t.notOk(isUnavailable({ ok: true, value: 1 }));
  t.notOk(isUnavailable(null));
});
