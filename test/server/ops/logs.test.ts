// What the server logs, read from a captured pino stream: one access line per request at info with
// its method, route pattern, status, duration, client address and (when authenticated) identity; and
// the debug lines (registrations, refusals by a limit, ladder pairings, game starts and ends) only
// when the level is debug.
import t from 'tap';
import type { DestinationStream } from 'pino';
import { createLogger } from '../../../src/log.js';
import { loadConfig } from '../../../src/server-config.js';
import { bootApp } from '../../helpers/app.js';
import { Bot } from '../../helpers/bot.js';
import { until } from '../../helpers/poll.js';

type Line = Record<string, unknown> & { level: number; msg?: string };

/** A destination that keeps every line pino writes, parsed. */
function capture(): DestinationStream & { lines: Line[] } {
  const lines: Line[] = [];
  return { lines, write: (s: string) => void lines.push(JSON.parse(s) as Line) };
}

const DEBUG = 20;
const INFO = 30;

t.test('at info: one access line per request, after its response, with the caller when authenticated', async (t) => {
  const out = capture();
  const app = await bootApp(t, { log: createLogger('info', out) });
  const alice = await Bot.anon(app, 'alice');
  const before = out.lines.length;
  t.equal((await alice.req('GET', '/bot/account')).status, 200);
  const line = await until(() => out.lines.slice(before).find((l) => l.msg === 'request' && l.route === '/bot/account'), 'the access line');
  t.equal(line.level, INFO);
  t.equal(line.method, 'GET');
  t.equal(line.status, 200);
  t.equal(line.ip, '127.0.0.1');
  t.equal(line.identity, alice.id, 'the authenticated identity');
  t.ok(typeof line.ms === 'number' && line.ms >= 0, `a duration in ms: ${line.ms}`);

  t.equal((await app.req('GET', `/games/nosuchgame1234567`)).status, 404);
  const anon = await until(() => out.lines.find((l) => l.msg === 'request' && l.route === '/games/:id'), 'the public read line');
  t.equal(anon.status, 404);
  t.notOk('identity' in anon, 'no identity on a public read');

  t.equal((await app.req('GET', '/no/such/path')).status, 404);
  t.ok(await until(() => out.lines.find((l) => l.msg === 'request' && l.route === '/*' && l.status === 404), 'the catch-all line'));

  t.equal(out.lines.filter((l) => l.level === DEBUG).length, 0, 'no debug line at info');
  t.notOk(out.lines.some((l) => l.msg === 'anonymous identity minted'), 'nor the mint');
});

t.test('at debug: registrations, refusals by a limit, ladder pairings, game starts and ends', async (t) => {
  const out = capture();
  const app = await bootApp(t, { log: createLogger('debug', out), overrides: { 'limits.registrationsPerHour': 2 } });
  const seen = (msg: string) => out.lines.filter((l) => l.msg === msg && l.level === DEBUG);

  const alpha = await Bot.register(app, 'ladder', 'alpha');
  const beta = await Bot.register(app, 'ladder', 'beta');
  t.same(seen('bot registered').map((l) => l.id).sort(), [alpha.id, beta.id].sort(), 'each registration');
  const refused = await app.req('POST', '/bot/register', { body: { team: 'ladder', name: 'gamma' } });
  t.equal(refused.status, 429);
  const limit = await until(() => seen('refused by a limit')[0], 'the refusal line');
  t.equal(limit.code, 'too_many_registrations');
  t.equal(limit.route, 'POST /bot/register');

  for (const b of [alpha, beta]) t.equal((await b.req('POST', '/bot/ladder/join')).status, 200);
  t.equal(await app.server.scheduler.round(), 1, 'the ladder pairs the two');
  const pairing = seen('ladder pairing');
  t.equal(pairing.length, 1, 'one pairing line');
  t.same([pairing[0].white, pairing[0].black].sort(), [alpha.id, beta.id].sort());
  // Capacity 1 each: the ladder plays one single game between them.
  const started = await until(() => (seen('game started').length > 0 ? seen('game started') : undefined), 'the game start');
  const gameId = started[0].gameId as string;
  const seat = started[0].white === alpha.id ? alpha : beta;
  t.equal((await seat.resign(gameId)).status, 202);
  const ended = await until(() => seen('game ended').find((l) => l.gameId === gameId), 'the end line');
  t.equal(ended.termination, 'Resign');
  t.ok(typeof ended.result === 'string', `and the result: ${ended.result}`);
  t.ok(out.lines.some((l) => l.msg === 'request' && l.level === INFO), 'the access lines too');
});

t.test('debug is a level the configuration takes, from the environment or a file', async (t) => {
  const c = loadConfig({ env: { DICECHESS_LOG_LEVEL: 'debug' } });
  t.equal(c.ok && c.value.logLevel, 'debug');
  t.ok(createLogger('debug').debug, 'a debug logger has debug lines');
  t.notOk(createLogger('info').debug, 'an info one has none, so nothing is built for them');
});
