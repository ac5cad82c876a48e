// The rate limits and caps themselves (docs/API.md "Errors and limits",
// "Identity", "Challenges", "Seeks and the lobby"): how many requests pass, what the first refused
// one looks like (429 problem, Retry-After in whole seconds counting down to the moment a slot
// frees), what does not use the budget, that X-Forwarded-For only counts behind a trusted proxy,
// and that the budget comes back as the window slides.
import t from 'tap';
import type { Test } from 'tap';
import { anonBot, bootApp, type TestApp } from '../../helpers/app.js';
import type { ManualClock } from '../../../src/domain/clock.js';
import type { HttpResult } from '../../helpers/http.js';
import { violations } from '../../helpers/robustness.js';

/** A 429 that keeps the contract, with the given Retry-After. */
function limited(t: Test, r: HttpResult, retryAfter: number, code: string, what: string): void {
  t.equal(r.status, 429, `${what}: 429`);
  t.same(violations({ method: 'POST', path: '/', headers: {} }, { status: r.status, headers: r.headers, text: r.text, streamed: false }), [], `${what}: a clean 429 problem`);
  t.equal(r.headers['retry-after'], String(retryAfter), `${what}: Retry-After ${retryAfter}`);
  t.match(r.json, { code }, `${what}: code ${code}`);
}

const mint = (app: TestApp, headers: Record<string, string> = {}) => app.req('POST', '/bot/anon', { headers });

t.test('anonymous mints: 30 per hour per address, sliding', async (t) => {
  const app = await bootApp(t);
  const clock = app.clock as ManualClock;
  for (let i = 0; i < 10; i++) t.equal((await mint(app)).status, 201);
  clock.advance(1800_000);
  for (let i = 0; i < 20; i++) t.equal((await mint(app)).status, 201);
  limited(t, await mint(app), 1800, 'too_many_mints', 'the 31st mint in the hour');
  limited(t, await mint(app, { 'x-forwarded-for': '198.51.100.7' }), 1800, 'too_many_mints', 'X-Forwarded-For from an untrusted peer changes nothing');
  clock.advance(1799_000);
  limited(t, await mint(app), 1, 'too_many_mints', 'one second before the first ten leave the window');
  clock.advance(1000);
  for (let i = 0; i < 10; i++) t.equal((await mint(app)).status, 201, 'the first ten slots are free again');
  limited(t, await mint(app), 1800, 'too_many_mints', 'and then the budget is spent again');
});

t.test('behind a trusted proxy, each forwarded client has its own budget', async (t) => {
  const app = await bootApp(t, { overrides: { 'http.trustedProxies': ['127.0.0.1'], 'limits.anonMintsPerHour': 2 } });
  const a = { 'x-forwarded-for': '203.0.113.1' };
  const b = { 'x-forwarded-for': '203.0.113.2' };
  t.equal((await mint(app, a)).status, 201);
  t.equal((await mint(app, a)).status, 201);
  limited(t, await mint(app, a), 3600, 'too_many_mints', 'client A’s third');
  t.equal((await mint(app, b)).status, 201, 'client B is not affected');
  t.equal((await mint(app, { 'x-forwarded-for': '198.51.100.9, 203.0.113.1' })).status, 429, 'the right-most untrusted hop counts, not a spoofed left one');
});

t.test('registrations: 5 per hour per address, refused attempts do not count', async (t) => {
  const app = await bootApp(t);
  const clock = app.clock as ManualClock;
  const reg = (team: string, name: string) => app.req('POST', '/bot/register', { body: { team, name } });
  t.equal((await reg('limits', 'one')).status, 201);
  for (let i = 0; i < 6; i++) {
    t.equal((await reg('limits', 'one')).status, 409, 'taken: refused');
    t.equal((await reg('house', `x${i}`)).status, 400, 'reserved team: refused');
    t.equal((await reg('anon', `x${i}`)).status, 400, 'reserved team: refused');
    t.equal((await reg('Bad Slug', 'x')).status, 400, 'invalid slug: refused');
  }
  for (const name of ['two', 'three', 'four', 'five']) t.equal((await reg('limits', name)).status, 201, `${name}: the refusals used none of the budget`);
  limited(t, await reg('limits', 'six'), 3600, 'too_many_registrations', 'the sixth registration');
  clock.advance(3600_000);
  t.equal((await reg('limits', 'six')).status, 201, 'an hour later');
});

t.test('pending challenges: 10 per challenger; Retry-After counts down to the oldest one’s expiry', async (t) => {
  const app = await bootApp(t);
  const clock = app.clock as ManualClock;
  const a = await anonBot(app, 'challenger');
  const targets = await Promise.all(Array.from({ length: 11 }, (_, i) => anonBot(app, `target-${i}`)));
  const events = await app.stream('/bot/stream/event', a.token);
  t.teardown(() => events.destroy());
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await app.req('POST', '/bot/challenge', { token: a.token, body: { team: 'anon', name: targets[i].name } });
    t.equal(r.status, 201);
    ids.push((r.json as { id: string }).id);
    clock.advance(1000);
  }
  const eleventh = () => app.req('POST', '/bot/challenge', { token: a.token, body: { team: 'anon', name: targets[10].name } });
  limited(t, await eleventh(), 290, 'too_many_challenges', 'the 11th pending challenge');
  clock.advance(100_000);
  limited(t, await eleventh(), 190, 'too_many_challenges', '100 s later');
  t.equal((await app.req('POST', `/bot/challenge/${ids[3]}/decline`, { token: a.token })).status, 200, 'the challenger cancels one');
  t.equal((await eleventh()).status, 201, 'which frees a place');
  limited(t, await eleventh(), 190, 'too_many_challenges', 'and the cap is reached again');
  // Expiry after 5 minutes: the challenger's stream hears ChallengeDeclined, the places come back.
  clock.advance(300_000);
  const declined = new Set<string>();
  const want = ids.filter((_, i) => i !== 3);
  for (let i = 0; i < 30 && !want.every((id) => declined.has(id)); i++) {
    let timer: NodeJS.Timeout | undefined;
    const line = await Promise.race([events.next(), new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), 5000)))]);
    clearTimeout(timer);
    if (line === undefined) break;
    if (line === '') continue;
    const ev = JSON.parse(line) as { ChallengeDeclined?: { id: string } };
    if (ev.ChallengeDeclined) declined.add(ev.ChallengeDeclined.id);
  }
  for (const id of want) t.ok(declined.has(id), `expired challenge ${id} reported as declined`);
  t.equal((await eleventh()).status, 201, 'after expiry the challenger may challenge again');
});

t.test('guest lobby actions: a budget per address for seeks and accepts together', async (t) => {
  // Open guest seeks per address have a cap of their own (test/server/robustness/shared-caps.test.ts): lifted here.
  const app = await bootApp(t, { overrides: { 'lobby.maxOpenGuestSeeksPerAddress': 1000 } });
  const clock = app.clock as ManualClock;
  const bot = await anonBot(app, 'lobby-owner');
  for (let i = 0; i < 4; i++) {
    const bad = await app.req('POST', '/lobby/seeks', { body: { timeControl: 'blitz' } });
    t.equal(bad.status, 400, 'a malformed offer is refused before it counts');
  }
  let created = 0;
  let first: HttpResult | undefined;
  for (let i = 0; i < 200 && !first; i++) {
    const r = await app.req('POST', '/lobby/seeks');
    if (r.status === 201) created++;
    else first = r;
  }
  t.equal(created, 120, '120 guest seeks an hour from one address');
  limited(t, first!, 3600, 'too_many_guest_requests', 'the next guest seek');
  const seek = await app.req('POST', '/bot/seeks', { token: bot.token });
  const accept = await app.req('POST', `/lobby/seeks/${(seek.json as { seekId: string }).seekId}/accept`);
  limited(t, accept, 3600, 'too_many_guest_requests', 'a guest accept shares the budget');
  t.equal((await app.req('GET', '/lobby/seeks')).status, 200, 'reading the lobby does not spend the guest budget');
  clock.advance(3600_000);
  const fresh = await app.req('POST', '/bot/seeks', { token: bot.token });
  t.equal((await app.req('POST', `/lobby/seeks/${(fresh.json as { seekId: string }).seekId}/accept`)).status, 201, 'an hour later the guest may act again');
});
