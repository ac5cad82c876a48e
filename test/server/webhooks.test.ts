// The webhook routes over real HTTP: registration with the handshake against a real receiver on
// 127.0.0.1 (insecure-local mode), replacement, inspection without the secret, removal, and every
// error the contract lists: 403 anonymous/static, 422 policy and handshake, 429, 404 no_webhook, 503.
import t from 'tap';
import { loadConfig, testConfig } from '../../src/server-config.js';
import { startServer } from '../../src/main.js';
import { ManualClock } from '../../src/domain/clock.js';
import { bootApp, anonBot, type TestApp } from '../helpers/app.js';
import { expectedSignature, startReceiver } from '../helpers/webhook-receiver.js';
import { webhookPayloadProblems } from '../helpers/conformance.js';
import { Bot, type Json } from '../helpers/bot.js';

const LOCAL = { 'webhooks.enabled': true, 'webhooks.allowInsecureLocalTargets': true };
const STATIC_TOKEN = 'static-house-token-0123456789';
const problemOf = (r: { json: unknown }): Json => r.json as Json;

async function registered(app: TestApp, name: string): Promise<Bot> {
  return Bot.register(app, 'hooks', name);
}

t.test('register, inspect, replace, remove', async (t) => {
  const app = await bootApp(t, { overrides: LOCAL });
  const rx = await startReceiver(t);
  const bot = await registered(app, 'alpha');
  const r = await bot.req('POST', '/bot/webhook', { url: rx.url });
  t.equal(r.status, 201, r.text);
  const { url, secret } = r.json as { url: string; secret: string };
  t.equal(url, rx.url);
  t.match(secret, /^[0-9a-f]{64}$/, 'a 64-hex secret');

  t.equal(rx.deliveries.length, 1, 'one handshake');
  const hs = rx.deliveries[0];
  t.same(Object.keys(hs.json).sort(), ['nonce', 'type']);
  t.equal(hs.json.type, 'verification');
  t.same(webhookPayloadProblems('verification', hs.json), [], 'the handshake body matches the document');
  const ts = String(hs.headers['x-game-timestamp']);
  t.equal(Number(ts), Math.floor(app.clock.now() / 1000), 'timestamp in Unix seconds of the server clock');
  t.equal(hs.headers['x-game-signature'], expectedSignature(secret, ts, hs.body), 'the handshake is signed with the new secret');
  t.equal(hs.headers['x-dicechess-signature'], hs.headers['x-game-signature'], 'repeated under the earlier header name');
  t.equal(hs.headers['x-dicechess-timestamp'], ts);

  const info = await bot.req('GET', '/bot/webhook');
  t.equal(info.status, 200);
  const body = info.json as Json;
  t.equal(body.url, rx.url);
  t.equal(body.verifiedAt, new Date(app.clock.now()).toISOString());
  t.notOk('secret' in body, 'the secret is never returned again');
  t.equal(body.stats.deliveries, 0);
  t.equal(app.server.store.getBot(bot.id)?.webhook?.verifiedAt, body.verifiedAt, 'verifiedAt is kept on the bot record');

  const other = await startReceiver(t, { path: '/other' });
  const again = await bot.req('POST', '/bot/webhook', { url: other.url });
  t.equal(again.status, 201);
  t.not((again.json as Json).secret, secret, 'registering again replaces the secret');
  t.equal(((await bot.req('GET', '/bot/webhook')).json as Json).url, other.url, 'and the URL');

  t.equal((await bot.req('DELETE', '/bot/webhook')).status, 204);
  const gone = await bot.req('GET', '/bot/webhook');
  t.equal(gone.status, 404);
  t.equal(problemOf(gone).code, 'no_webhook');
  const twice = await bot.req('DELETE', '/bot/webhook');
  t.equal(twice.status, 404);
  t.equal(problemOf(twice).code, 'no_webhook');
  t.equal(app.server.store.getBot(bot.id)?.webhook, null, 'removed from the bot record');
});

t.test('403 for anonymous and static callers', async (t) => {
  const app = await bootApp(t, { overrides: { ...LOCAL, houseBots: `house|tester|${STATIC_TOKEN}` } });
  const rx = await startReceiver(t);
  const anon = await anonBot(app, 'anon-hook');
  for (const token of [anon.token, STATIC_TOKEN]) {
    for (const [method, body] of [['POST', { url: rx.url }], ['GET', undefined], ['DELETE', undefined]] as const) {
      const r = await app.req(method, '/bot/webhook', { token, body });
      t.equal(r.status, 403, `${method} by ${token === STATIC_TOKEN ? 'static' : 'anonymous'}`);
      t.equal(problemOf(r).code, 'registered_only');
    }
  }
  t.equal(rx.deliveries.length, 0, 'no handshake was attempted');
});

t.test('422: the URL policy (no connection is made) says which rule', async (t) => {
  const resolver = async (host: string): Promise<string[]> => {
    if (host === 'mixed.test') return ['93.184.216.34', '10.0.0.1'];
    if (host === 'meta.test') return ['169.254.169.254'];
    throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
  };
  const app = await bootApp(t, { webhookResolver: resolver, overrides: { 'webhooks.enabled': true } });
  const bot = await registered(app, 'strict');
  const cases: [string, RegExp][] = [
    ['http://93.184.216.34/hook', /https/],
    ['https://127.0.0.1/hook', /loopback/],
    ['https://mixed.test/hook', /10\.0\.0\.1.*private/],
    ['https://meta.test/hook', /169\.254\.169\.254.*link-local/],
  ];
  for (const [url, detail] of cases) {
    const r = await bot.req('POST', '/bot/webhook', { url });
    t.equal(r.status, 422, url);
    t.equal(problemOf(r).code, 'webhook_url_refused');
    t.match(problemOf(r).detail, detail, `${url}: ${problemOf(r).detail}`);
  }
  const nx = await bot.req('POST', '/bot/webhook', { url: 'https://nowhere.test/hook' });
  t.equal(nx.status, 422, 'a host that does not resolve');
  t.match(problemOf(nx).detail, /does not resolve/);
  t.equal((await bot.req('GET', '/bot/webhook')).status, 404, 'nothing was stored');
});

t.test('422: the handshake says what it got', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock, overrides: { ...LOCAL, 'webhooks.answerCapSeconds': 2, 'limits.webhookRegistrationsPerHour': 10 } });
  const rx = await startReceiver(t);
  const bot = await registered(app, 'shaky');
  const tries: [string, () => void, RegExp][] = [
    ['HTTP 500', () => (rx.onVerification = () => ({ status: 500, json: {} })), /HTTP 500/],
    ['a redirect (not followed)', () => (rx.onVerification = () => ({ status: 307, json: {}, headers: { location: rx.url } })), /HTTP 307/],
    ['another nonce', () => (rx.onVerification = () => ({ status: 200, json: { nonce: 'n-other' } })), /nonce/],
    ['not JSON', () => (rx.onVerification = () => ({ status: 200, text: 'ok' })), /not JSON/],
    ['over 64 KiB', () => (rx.onVerification = (d) => ({ status: 200, text: JSON.stringify({ nonce: d.json.nonce, pad: 'x'.repeat(70_000) }) })), /64 KiB/],
  ];
  for (const [what, arrange, detail] of tries) {
    arrange();
    const r = await bot.req('POST', '/bot/webhook', { url: rx.url });
    t.equal(r.status, 422, what);
    t.equal(problemOf(r).code, 'webhook_handshake_failed');
    t.match(problemOf(r).detail, detail, `${what}: ${problemOf(r).detail}`);
  }
  // No answer: the handshake waits the answer cap on the server's clock, then gives up.
  let arrived: () => void = () => {};
  const handshake = new Promise<void>((r) => (arrived = r));
  rx.onVerification = () => {
    arrived();
    return 'hang';
  };
  const pending = bot.req('POST', '/bot/webhook', { url: rx.url });
  await handshake;
  clock.advance(2_000);
  const late = await pending;
  t.equal(late.status, 422, 'no answer within the cap');
  t.match(problemOf(late).detail, /no answer within 2 s/);
  await rx.close();
  const dead = await bot.req('POST', '/bot/webhook', { url: rx.url });
  t.equal(dead.status, 422, 'nothing listening');
  t.match(problemOf(dead).detail, /could not connect/);
  t.equal((await bot.req('GET', '/bot/webhook')).status, 404, 'nothing was stored');
});

t.test('429: at most 5 registrations per hour per address, failed ones included', async (t) => {
  const app = await bootApp(t, { overrides: LOCAL });
  const rx = await startReceiver(t);
  const bot = await registered(app, 'eager');
  rx.onVerification = () => ({ status: 500, json: {} });
  for (let i = 0; i < 3; i++) t.equal((await bot.req('POST', '/bot/webhook', { url: rx.url })).status, 422);
  rx.onVerification = (d) => ({ status: 200, json: { nonce: d.json.nonce } });
  for (let i = 0; i < 2; i++) t.equal((await bot.req('POST', '/bot/webhook', { url: rx.url })).status, 201);
  const sixth = await bot.req('POST', '/bot/webhook', { url: rx.url });
  t.equal(sixth.status, 429);
  t.equal(problemOf(sixth).code, 'too_many_webhook_registrations');
  t.ok(Number(sixth.headers['retry-after']) >= 1, 'Retry-After');
  t.equal(rx.deliveries.length, 5, 'the sixth made no call');
});

t.test('webhooks.enabled false: every webhook route 503, before authentication', async (t) => {
  const app = await bootApp(t, { overrides: { 'webhooks.enabled': false } });
  for (const [method, body] of [['POST', { url: 'https://example.org/hook' }], ['GET', undefined], ['DELETE', undefined]] as const) {
    const r = await app.req(method, '/bot/webhook', { body });
    t.equal(r.status, 503, `${method} without a token`);
    t.equal(problemOf(r).code, 'webhooks_disabled');
  }
  t.equal(app.server.webhooks, null, 'no deliverer runs');
});

t.test('webhooks are on by default; 400 for a bad body', async (t) => {
  t.equal(testConfig().webhooks.enabled, true, 'the shipped configuration turns them on');
  t.equal(testConfig().webhooks.allowInsecureLocalTargets, false, 'with the strict URL policy');
  const env = loadConfig({ env: { DICECHESS_WEBHOOKS_ALLOW_INSECURE_LOCAL_TARGETS: 'true' } });
  t.equal(env.ok && env.value.webhooks.allowInsecureLocalTargets, true, 'the environment variable lifts it');
  const app = await bootApp(t, { overrides: { 'webhooks.enabled': true } });
  const bot = await registered(app, 'bad-body');
  const r = await bot.req('POST', '/bot/webhook', { url: 'not a url' });
  t.equal(r.status, 400);
  t.equal((await app.req('GET', '/bot/webhook')).status, 401, 'enabled: authentication is required');
});

t.test('the OpenAPI document describes the routes, their statuses and the deliveries', async (t) => {
  const app = await bootApp(t, { overrides: { 'webhooks.enabled': true } });
  const doc = (await app.req('GET', '/openapi.json')).json as Json;
  const item = doc.paths['/bot/webhook'];
  const statuses = (op: Json): string[] => Object.keys(op.responses);
  for (const s of ['201', '403', '422', '429', '503']) t.ok(statuses(item.post).includes(s), `POST declares ${s}`);
  for (const s of ['200', '403', '404', '503']) t.ok(statuses(item.get).includes(s), `GET declares ${s}`);
  for (const s of ['204', '403', '404', '503']) t.ok(statuses(item.delete).includes(s), `DELETE declares ${s}`);
  t.match(JSON.stringify(item.get.responses['404']), /no_webhook/);
  const schemas = doc.components.schemas;
  t.same(Object.keys(schemas.WebhookStats.properties).sort(), [
    'applied', 'declined', 'deliveries', 'httpError', 'latencyMsMax', 'latencyMsP50', 'latencyMsP90', 'latencyMsP99',
    'malformed', 'policyBlocked', 'refused', 'timeout', 'unreachable',
  ].sort(), 'stats: every outcome and the latency percentiles');
  t.notOk('secret' in schemas.WebhookInfo.properties, 'GET never shows the secret');
  for (const kind of ['verification', 'yourTurn']) {
    const post = doc.webhooks[kind].post;
    t.same(post.parameters.map((p: Json) => p.name), ['X-Game-Timestamp', 'X-Game-Signature', 'X-DiceChess-Timestamp', 'X-DiceChess-Signature'], `${kind}: the signature headers`);
    t.ok(post.requestBody.content['application/json'].schema.$ref, `${kind}: its body schema`);
  }
  t.match(doc.webhooks.yourTurn.post.description, /GET \/games\/\{id\}/, 'yourTurn: state is the game state');
});

t.test('insecure-local mode is announced with a warning at start', async (t) => {
  const warnings: string[] = [];
  const log = { info: () => {}, debug: () => {}, error: () => {}, warn: (_o: unknown, m?: string) => void warnings.push(m ?? '') };
  for (const insecure of [false, true]) {
    const config = testConfig({ host: '127.0.0.1', port: 0, memory: true, 'webhooks.allowInsecureLocalTargets': insecure });
    const started = await startServer(config, { log });
    if (!started.ok) throw new Error(started.error);
    await started.value.close();
    t.equal(warnings.filter((w) => /insecure local targets/.test(w)).length, insecure ? 1 : 0, `insecure ${insecure}`);
  }
});
