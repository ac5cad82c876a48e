// Replies as values: the RFC 9457 problem shape and the headers the contract makes mandatory.
import t from 'tap';
import { json, noContent, problem, tooManyRequests, unauthorized } from '../../src/edge/toolkit.js';

t.test('problem: shape and content type', async (t) => {
  const p = problem('identity_taken', 'this bot identity is already taken');
  t.equal(p.status, 409);
  t.equal(p.contentType, 'application/problem+json');
  t.equal(p.body, '{"type":"about:blank","title":"Conflict","status":409,"detail":"this bot identity is already taken","code":"identity_taken"}');
  t.equal(p.headers, undefined);
  t.match(JSON.parse(problem('method_not_allowed', 'no').body ?? ''), { title: 'Method Not Allowed' });
});

t.test("problem: the status is the code's, and without a detail the catalogue's default is sent", async (t) => {
  t.equal(problem('unknown_game').status, 404);
  t.match(JSON.parse(problem('unknown_game').body ?? ''), { status: 404, detail: 'no game with this id', code: 'unknown_game' });
  t.match(JSON.parse(problem('unknown_game', 'gone').body ?? ''), { detail: 'gone' });
});

t.test('401 always carries the Bearer challenge', async (t) => {
  t.same(problem('missing_token', 'no token').headers, { 'www-authenticate': 'Bearer realm="dicechess"' });
  t.same(unauthorized('invalid_token').headers, { 'www-authenticate': 'Bearer realm="dicechess"' });
  t.match(JSON.parse(unauthorized('invalid_token').body ?? ''), { status: 401, code: 'invalid_token' });
  t.same(problem('invalid_token', 'x', { 'WWW-Authenticate': 'Bearer error="invalid_token"' }).headers, {
    'www-authenticate': 'Bearer error="invalid_token"',
  });
});

t.test('429 always carries Retry-After in whole seconds, at least 1', async (t) => {
  t.same(problem('game_busy', 'slow down').headers, { 'retry-after': '1' });
  t.same(tooManyRequests('game_busy', 0.2).headers, { 'retry-after': '1' });
  t.same(tooManyRequests('game_busy', 1.01).headers, { 'retry-after': '2' });
  t.same(tooManyRequests('game_busy', 3600).headers, { 'retry-after': '3600' });
  t.same(problem('game_busy', 'y', { 'Retry-After': 'soon', 'x-other': 'kept' }).headers, { 'retry-after': '1', 'x-other': 'kept' });
});

t.test('json and noContent', async (t) => {
  t.same(json(200, { a: [1, 'b'] }), { status: 200, body: '{"a":[1,"b"]}', contentType: 'application/json', headers: undefined });
  t.equal(json(200, '{"prebuilt":true}').body, '{"prebuilt":true}', 'strings are already-serialised JSON');
  t.equal(json(200, null).body, 'null');
  t.throws(() => json(200, undefined), TypeError, 'an empty body would break clients');
  t.same(noContent({ allow: 'GET' }), { status: 204, body: undefined, contentType: undefined, headers: { allow: 'GET' } });
});
