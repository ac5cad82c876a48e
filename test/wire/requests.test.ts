// Request schemas: good shapes pass, bad ones fail with a detail naming the field.
import t from 'tap';
import {
  classifySeed, CreateChallengeRequest, GuestAcceptRequest, isReservedTeam, MoveRequest, parseBody, parseJsonBody, parseQuery,
  RegisterRequest, SecretQuery, AnonQuery, SEED_REJECT_REASON, SeedRequest, SeekRequest, WebhookRequest,
  GuestSeekRequest,
} from '../../src/wire/schemas.js';

/** The detail of a failed parse; a parse that succeeded yields a marker no assertion expects. */
function detailOf(schema: Parameters<typeof parseBody>[0], body: unknown): string {
  const r = parseBody(schema, body);
  return r.ok ? `<accepted ${JSON.stringify(r.value)}>` : r.detail;
}

t.test('register: slugs', async (t) => {
  const r = parseBody(RegisterRequest, { team: 'acme', name: 'alice-v1', extra: { deep: true } });
  t.same(r, { ok: true, value: { team: 'acme', name: 'alice-v1' } }, 'unknown fields are dropped');
  t.ok(parseBody(RegisterRequest, { team: '0', name: 'a'.repeat(32) }).ok, '1 and 32 characters pass');

  t.match(detailOf(RegisterRequest, { team: 'a'.repeat(33), name: 'x' }), /^team: must be a slug/);
  t.match(detailOf(RegisterRequest, { team: 'Acme', name: 'x' }), /^team: must be a slug/);
  t.match(detailOf(RegisterRequest, { team: '-acme', name: 'x' }), /^team: must be a slug/);
  t.match(detailOf(RegisterRequest, { team: 'ac me', name: 'x' }), /^team: must be a slug/);
  t.match(detailOf(RegisterRequest, { team: '', name: 'x' }), /^team: must be a slug/);
  t.match(detailOf(RegisterRequest, { team: 'acme', name: 'al_ice' }), /^name: must be a slug/);
  t.match(detailOf(RegisterRequest, { team: 7, name: 'x' }), /^team: must be a slug/);
  t.equal(detailOf(RegisterRequest, { team: 'acme' }), 'name: is required');
  t.equal(detailOf(RegisterRequest, null), 'body: must be an object');
  t.equal(detailOf(RegisterRequest, [1, 2]), 'body: must be an object');
  t.equal(detailOf(RegisterRequest, 'acme'), 'body: must be an object');
});

t.test('register: reserved teams are the handler’s call', async (t) => {
  t.ok(parseBody(RegisterRequest, { team: 'anon', name: 'x' }).ok, 'the schema lets it through');
  t.ok(isReservedTeam('anon'));
  t.ok(isReservedTeam('house'));
  t.notOk(isReservedTeam('anon2'));
  t.notOk(isReservedTeam('houses'));
});

t.test('time controls: every variant and its ranges', async (t) => {
  const tc = (timeControl: unknown) => parseBody(SeekRequest, { timeControl });
  t.same(tc({ Unlimited: {} }), { ok: true, value: { timeControl: { Unlimited: {} } } });
  t.same(tc({ Unlimited: { junk: 1 } }), { ok: true, value: { timeControl: { Unlimited: {} } } }, 'Unlimited payload fields dropped');
  t.same(tc({ Fischer: { initialSeconds: 60, incrementSeconds: 0, junk: 1 } }), {
    ok: true,
    value: { timeControl: { Fischer: { initialSeconds: 60, incrementSeconds: 0 } } },
  });
  t.ok(tc({ SuddenDeath: { initialSeconds: 1 } }).ok);
  t.ok(tc({ SuddenDeath: { initialSeconds: 86_400 } }).ok);
  t.ok(tc({ Fischer: { initialSeconds: 86_400, incrementSeconds: 600 } }).ok);
  t.ok(tc({ PerMove: { secondsPerMove: 1 } }).ok);
  t.ok(tc({ PerMove: { secondsPerMove: 86_400 } }).ok);
  t.same(parseBody(SeekRequest, {}), { ok: true, value: {} }, 'omitted is fine');

  const d = (timeControl: unknown) => detailOf(SeekRequest, { timeControl });
  t.equal(
    d({ Fischer: { initialSeconds: 60, incrementSeconds: 601 } }),
    'timeControl.Fischer.incrementSeconds: must be an integer 0..600',
  );
  t.equal(d({ Fischer: { initialSeconds: 60, incrementSeconds: -1 } }), 'timeControl.Fischer.incrementSeconds: must be an integer 0..600');
  t.equal(d({ Fischer: { initialSeconds: 0, incrementSeconds: 1 } }), 'timeControl.Fischer.initialSeconds: must be an integer 1..86400');
  t.equal(d({ Fischer: { initialSeconds: 1.5, incrementSeconds: 1 } }), 'timeControl.Fischer.initialSeconds: must be an integer 1..86400');
  t.equal(d({ Fischer: { initialSeconds: '60', incrementSeconds: 1 } }), 'timeControl.Fischer.initialSeconds: must be an integer 1..86400');
  t.equal(d({ Fischer: { initialSeconds: 60 } }), 'timeControl.Fischer.incrementSeconds: is required');
  t.equal(d({ SuddenDeath: { initialSeconds: 86_401 } }), 'timeControl.SuddenDeath.initialSeconds: must be an integer 1..86400');
  t.equal(d({ PerMove: { secondsPerMove: 0 } }), 'timeControl.PerMove.secondsPerMove: must be an integer 1..86400');
  t.equal(d({ PerMove: { secondsPerMove: 2.5 } }), 'timeControl.PerMove.secondsPerMove: must be an integer 1..86400');
  t.equal(d({ Fischer: 'fast' }), 'timeControl.Fischer: must be an object');
  t.equal(d({ Unlimited: null }), 'timeControl.Unlimited: must be an object');

  const shape = /^timeControl: must be a single-key object: Unlimited, SuddenDeath, Fischer or PerMove$/;
  t.match(d({ Blitz: { initialSeconds: 60 } }), shape, 'unknown variant');
  t.match(d({}), shape, 'no variant');
  t.match(d({ Unlimited: {}, PerMove: { secondsPerMove: 5 } }), shape, 'two variants');
  t.equal(d({ Unlimited: {}, note: 'x' }), 'timeControl: unknown key "note"', 'a stray key beside the variant');
  t.match(d('Unlimited'), shape, 'a bare string');
  t.match(d(null), shape);
});

t.test('challenge request', async (t) => {
  t.same(parseBody(CreateChallengeRequest, { team: 'house', name: 'random' }), {
    ok: true,
    value: { team: 'house', name: 'random' },
  });
  t.equal(detailOf(CreateChallengeRequest, { name: 'x' }), 'team: is required');
  t.equal(detailOf(CreateChallengeRequest, { team: 'x', name: 3 }), 'name: must be a string');
  t.equal(detailOf(CreateChallengeRequest, { team: '', name: 'x' }), 'team: must be at least 1 character');
  t.equal(
    detailOf(CreateChallengeRequest, { team: 'a', name: 'b', timeControl: { PerMove: { secondsPerMove: 0 } } }),
    'timeControl.PerMove.secondsPerMove: must be an integer 1..86400',
  );
});

t.test('guest requests', async (t) => {
  t.same(parseBody(GuestSeekRequest, {}), { ok: true, value: {} });
  t.same(parseBody(GuestAcceptRequest, {}), { ok: true, value: {} });
  t.same(parseBody(GuestAcceptRequest, { guestId: 'g1' }), { ok: true, value: { guestId: 'g1' } });
  t.equal(detailOf(GuestAcceptRequest, { guestId: 5 }), 'guestId: must be a string');
});

t.test('seed: 16..256 characters, classified rather than refused', async (t) => {
  t.ok(parseBody(SeedRequest, { seed: 's'.repeat(16) }).ok);
  t.ok(parseBody(SeedRequest, { seed: 's'.repeat(256) }).ok);
  t.equal(detailOf(SeedRequest, { seed: 's'.repeat(15) }), 'seed: must be at least 16 characters');
  t.equal(detailOf(SeedRequest, { seed: 's'.repeat(257) }), 'seed: must be at most 256 characters');

  t.same(classifySeed({ seed: 'a-long-enough-seed' }), { ok: true, seed: 'a-long-enough-seed' });
  for (const bad of [{ seed: 'short' }, { seed: 12345678901234567890 }, {}, null, 'x'.repeat(30)]) {
    const c = classifySeed(bad);
    t.equal(c.ok, false, `${JSON.stringify(bad)} is malformed`);
    if (!c.ok) {
      t.equal(c.reason, SEED_REJECT_REASON);
      t.equal(c.reason, 'seed must be 16..256 characters', 'the documented Rejected reason');
    }
  }
});

t.test('moves: bounded array of short strings', async (t) => {
  t.same(parseBody(MoveRequest, { moves: [] }), { ok: true, value: { moves: [] } }, 'a forced pass submits nothing');
  t.same(parseBody(MoveRequest, { moves: ['e2e4', 'e7e8q'], v: 3 }), { ok: true, value: { moves: ['e2e4', 'e7e8q'] } });
  t.ok(parseBody(MoveRequest, { moves: Array(16).fill('e2e4') }).ok, '16 entries pass');
  t.equal(detailOf(MoveRequest, { moves: Array(17).fill('e2e4') }), 'moves: must have at most 16 entries');
  t.equal(detailOf(MoveRequest, { moves: ['e2e4', 'e2e4e2e4e'] }), 'moves[1]: must be at most 8 characters');
  t.equal(detailOf(MoveRequest, { moves: ['e2e4', 5] }), 'moves[1]: must be a string');
  t.equal(detailOf(MoveRequest, { moves: 'e2e4' }), 'moves: must be an array');
  t.equal(detailOf(MoveRequest, {}), 'moves: is required');
  const hostile = parseBody(MoveRequest, { moves: Array(100_000).fill('x'.repeat(1000)) });
  t.equal(hostile.ok, false, 'a huge array is refused');
});

t.test('webhook url', async (t) => {
  t.ok(parseBody(WebhookRequest, { url: 'https://bots.example.com/hook' }).ok);
  t.ok(parseBody(WebhookRequest, { url: 'http://127.0.0.1/hook' }).ok, 'policy (https, public) is a 422 later');
  t.equal(detailOf(WebhookRequest, { url: 'not a url' }), 'url: must be an absolute URL');
  t.equal(detailOf(WebhookRequest, { url: 42 }), 'url: must be an absolute URL');
  t.equal(detailOf(WebhookRequest, {}), 'url: is required');
  t.equal(detailOf(WebhookRequest, { url: `https://x.example/${'a'.repeat(3000)}` }), 'url: must be at most 2048 characters');
});

t.test('queries', async (t) => {
  t.same(parseQuery(SecretQuery, 'secret=abc'), { ok: true, value: { secret: 'abc' } });
  t.same(parseQuery(SecretQuery, 'secret=abc&secret=def'), { ok: true, value: { secret: 'abc' } }, 'first value wins');
  t.same(parseQuery(SecretQuery, new URLSearchParams('secret=s&x=1')), { ok: true, value: { secret: 's' } });
  t.same(parseQuery(SecretQuery, { secret: 'r' }), { ok: true, value: { secret: 'r' } });
  const missing = parseQuery(SecretQuery, '');
  t.same(missing, { ok: false, detail: 'secret: is required', path: 'secret' });
  t.same(parseQuery(SecretQuery, 'secret='), { ok: false, detail: 'secret: is required', path: 'secret' });

  const proto = parseQuery(SecretQuery, '__proto__=x&constructor=y&secret=s');
  t.same(proto, { ok: true, value: { secret: 's' } }, 'odd keys are plain keys');
  t.equal(({} as Record<string, unknown>).x, undefined, 'no prototype was touched');

  t.same(parseQuery(AnonQuery, 'name=My%20Bot'), { ok: true, value: { name: 'My Bot' } });
  t.same(parseQuery(AnonQuery, ''), { ok: true, value: {} });
});

t.test('details stay short whatever the input', async (t) => {
  const key = 'k'.repeat(10_000);
  const d = detailOf(SeekRequest, { timeControl: { [key]: {} } });
  t.ok(d.length <= 201, `detail is ${d.length} characters`);
  t.match(d, /^timeControl: /);
  const r = parseBody(SeekRequest, { timeControl: { Fischer: {} } });
  t.same(r.ok ? null : r.path, 'timeControl.Fischer.initialSeconds', 'the failure carries the path too');
});

t.test('raw bodies', async (t) => {
  t.same(parseJsonBody(MoveRequest, '{"moves":["e2e4"]}'), { ok: true, value: { moves: ['e2e4'] } });
  t.same(parseJsonBody(MoveRequest, Buffer.from('{"moves":[]}')), { ok: true, value: { moves: [] } });
  t.same(parseJsonBody(MoveRequest, '{"moves":'), { ok: false, detail: 'body: is not valid JSON', path: '' });
  t.same(parseJsonBody(MoveRequest, ''), { ok: false, detail: 'body: is required', path: '' });
  t.same(parseJsonBody(MoveRequest, undefined), { ok: false, detail: 'body: is required', path: '' });
  t.same(parseJsonBody(SeekRequest, '', false), { ok: true, value: {} }, 'a body-less seek is {}');
  t.same(parseJsonBody(SeekRequest, '  \n', false), { ok: true, value: {} });
  t.same(parseJsonBody(MoveRequest, '{"__proto__":{"moves":["x"]}}').ok, false, '__proto__ is just an unknown key');
});
