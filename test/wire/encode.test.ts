// Encoders: one line per event, problems with their titles, spectator-safe game lists.
import t from 'tap';
import {
  account, EMPTY_JSON, encode, eventLine, KEEPALIVE_LINE, myGame, problem, problemJson, publicGame, publicGameList,
} from '../../src/wire/encode.js';
import type { GameSummaryLike } from '../../src/wire/encode.js';
import { createConformance } from '../helpers/conformance.js';
import * as X from './examples.js';

t.test('eventLine: one JSON line per event', async (t) => {
  for (const e of [...X.gameEvents, ...X.accountEvents]) {
    const line = eventLine(e);
    t.ok(line.endsWith('\n'));
    t.equal(line.indexOf('\n'), line.length - 1, 'exactly one newline, at the end');
    t.same(JSON.parse(line), e);
  }
  t.equal(KEEPALIVE_LINE, '\n');
  t.equal(EMPTY_JSON, '{}');
  t.equal(encode({ a: 1 }), '{"a":1}');
});

t.test('problems', async (t) => {
  t.same(problem(409, 'identity_taken', 'this bot identity is already taken'), {
    type: 'about:blank', title: 'Conflict', status: 409, detail: 'this bot identity is already taken', code: 'identity_taken',
  });
  t.equal(problem(429, 'rate_limited', 'x').title, 'Too Many Requests');
  t.equal(problem(418, 'teapot', 'x').title, 'Error', 'an unlisted status still has a title');
  const c = createConformance();
  for (const status of [400, 401, 403, 413, 422, 429, 500, 503]) {
    c.check({ method: 'POST', pattern: '/bot/webhook', status, contentType: 'application/problem+json', body: problemJson(status, 'some_code', 'why') });
  }
  t.same(c.mismatches(), [], 'problem bodies conform');
});

const seat = (id: string, name: string | null) => ({
  id,
  face: name === null ? { kind: 'Human' as const, name: null } : { kind: 'Bot' as const, name },
  participant: { Guest: { id } },
});

function summary(version: number): GameSummaryLike {
  return {
    gameId: `g${version}`, white: seat('bot:team:acme:alice', 'acme alice'), black: seat('guest:g1', null),
    timeControl: X.FISCHER, activeSeat: 'Black', dicePending: false, clocks: { white: 10, black: 20 }, version,
    dfen: 'x w - - 0 1',
  };
}

t.test('public games: sorted, capped, nothing leaks', async (t) => {
  const live = Array.from({ length: 60 }, (_, i) => summary((i * 37) % 60));
  const list = publicGameList(live);
  t.equal(list.total, 60);
  t.equal(list.games.length, 50);
  t.same(list.games.map((g) => g.version), Array.from({ length: 50 }, (_, i) => 59 - i), 'version descending');
  const text = JSON.stringify(list);
  t.notOk(text.includes('bot:team:acme'), 'no raw bot id');
  t.notOk(text.includes('guest:g1'), 'no raw guest id');
  t.same(publicGame(summary(3)).players, { white: { kind: 'Bot', name: 'acme alice' }, black: { kind: 'Human', name: null } });

  const c = createConformance();
  c.check({ method: 'GET', pattern: '/games', status: 200, contentType: 'application/json', body: encode(list) });
  c.check({
    method: 'GET', pattern: '/bot/games', status: 200, contentType: 'application/json',
    body: encode({ games: [myGame(summary(4), 'Black')] }),
  });
  c.check({
    method: 'GET', pattern: '/bot/account', status: 200, contentType: 'application/json',
    body: account({ id: 'bot:team:acme:alice', tier: 'registered', team: 'acme', name: 'alice' }),
  });
  t.same(c.mismatches(), []);
});
