// The registration limit a host can lift: any limit from a DICECHESS_LIMITS_* variable, and the
// loopback exemption for local set-ups (off by default; a client behind a trusted proxy is judged by
// the address the proxy names, so it is not exempt).
import t from 'tap';
import { loadConfig } from '../../src/server-config.js';
import { bootApp, type TestApp } from '../helpers/app.js';
import type { Json } from '../helpers/bot.js';

let made = 0;

/** Registers `count` fresh bots, returning the statuses. */
async function register(app: TestApp, count: number, headers: Record<string, string> = {}): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    out.push((await app.req('POST', '/bot/register', { body: { team: 'local', name: `bot-${made++}` }, headers })).status);
  }
  return out;
}

t.test('default: 5 an hour from loopback too, the 6th is 429', async (t) => {
  const app = await bootApp(t);
  t.same(await register(app, 6), [201, 201, 201, 201, 201, 429]);
});

t.test('DICECHESS_LIMITS_REGISTRATIONS_PER_HOUR raises the limit', async (t) => {
  const app = await bootApp(t, { env: { DICECHESS_LIMITS_REGISTRATIONS_PER_HOUR: '9' } });
  t.equal(app.config.limits.registrationsPerHour, 9);
  const statuses = await register(app, 10);
  t.same(statuses, [...Array(9).fill(201), 429]);
});

t.test('the loopback exemption: every local registration passes; a client named by a trusted proxy is still counted', async (t) => {
  const app = await bootApp(t, {
    env: { DICECHESS_LIMITS_REGISTRATIONS_EXEMPT_LOOPBACK: 'true', DICECHESS_TRUSTED_PROXIES: '127.0.0.1' },
  });
  t.equal(app.config.limits.registrationsExemptLoopback, true);
  t.same(await register(app, 8), Array(8).fill(201), 'loopback: not counted');
  const remote = await register(app, 6, { 'x-forwarded-for': '203.0.113.7' });
  t.same(remote, [201, 201, 201, 201, 201, 429], 'a remote client behind the proxy keeps its limit');
});

t.test('a DICECHESS_LIMITS_* variable that names no limit is a config error, not ignored', async (t) => {
  const bad = loadConfig({ env: { DICECHESS_LIMITS_REGISTRATIONS_PER_HOURS: '9' } });
  t.equal(bad.ok, false);
  t.match((bad as { error: string }).error, /DICECHESS_LIMITS_REGISTRATIONS_PER_HOURS/);
  const group = loadConfig({ env: { DICECHESS_LIMITS_LIVE_GAMES_PER_IDENTITY: '3' } });
  t.equal(group.ok, false, 'a group of limits is not a limit');
  const nested = loadConfig({ env: { DICECHESS_LIMITS_LIVE_GAMES_PER_IDENTITY__REGISTERED: '3', DICECHESS_LIMITS_MAX_BODY_BYTES: '1024' } });
  t.ok(nested.ok);
  const v = (nested as { value: Json }).value;
  t.equal(v.limits.liveGamesPerIdentity.registered, 3, 'a double underscore goes one level down');
  t.equal(v.limits.maxBodyBytes, 1024);
  const wrong = loadConfig({ env: { DICECHESS_LIMITS_REGISTRATIONS_PER_HOUR: 'many' } });
  t.equal(wrong.ok, false, 'values are validated as the config file’s are');
  t.match((wrong as { error: string }).error, /limits\.registrationsPerHour/);
});
