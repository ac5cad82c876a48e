// Every delivery outcome provoked over real HTTP and counted, per bot in GET /bot/webhook and in
// /metrics: applied, declined (empty moves), refused (an illegal turn: the same verdict and Rejected
// event as POST /bot/game/{id}/move), malformed, HTTP error, timeout (the server's clock, a 3 s cap),
// unreachable, and refused by the URL policy at connect time. A roll whose answer played nothing is
// never delivered again: the clock runs on and the game is lost on time. Webhook bots send no seed,
// so the reveal shows their external id as the fallback client seed.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { bootApp, type TestApp } from '../helpers/app.js';
import { randomTurns } from '../helpers/webhook-player.js';
import { startReceiver, type Answer, type Delivery, type Receiver } from '../helpers/webhook-receiver.js';
import { Bot, type Json } from '../helpers/bot.js';
import type { EventStream } from '../helpers/event-stream.js';
import { until } from '../helpers/poll.js';
import { prng as rng } from '../helpers/prng.js';

const GRACE_MS = 1_000;
const CAP_S = 3;
const TC = { Fischer: { initialSeconds: 60, incrementSeconds: 0 } };

let flips = 0;
/** DNS for flip.test: loopback for the handshake, then 0.0.0.0, which no policy ever connects to. */
const resolver = async (host: string): Promise<string[]> => {
  if (host === 'flip.test') return flips++ === 0 ? ['127.0.0.1'] : ['0.0.0.0'];
  throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
};

async function hooked(t: Test, app: TestApp, name: string, url?: (rx: Receiver) => string): Promise<{ bot: Bot; rx: Receiver }> {
  const bot = await Bot.register(app, 'outcomes', name);
  const rx = await startReceiver(t);
  const r = await bot.req('POST', '/bot/webhook', { url: url ? url(rx) : rx.url });
  if (r.status !== 201) throw new Error(`registration: ${r.status} ${r.text}`);
  rx.setSecret((r.json as { secret: string }).secret);
  return { bot, rx };
}

const stats = async (bot: Bot): Promise<Json> => ((await bot.req('GET', '/bot/webhook')).json as Json).stats;

/** Challenges house/random, opens the game stream before the opening roll, then lets it roll. */
async function startGame(app: TestApp, clock: ManualClock, bot: Bot): Promise<{ gameId: string; stream: EventStream }> {
  const acct = await bot.accountStream();
  const c = await bot.challenge({ team: 'house', name: 'random' }, TC);
  if (c.status !== 201) throw new Error(`challenge: ${c.status} ${c.text}`);
  const gameId = (await acct.next())!.GameStart.gameId as string;
  acct.close();
  const stream = await bot.gameStream(gameId);
  await stream.next(); // Snapshot, before any roll
  clock.advance(GRACE_MS); // the house seeded at once; the webhook bot never does
  return { gameId, stream };
}

/** Waits until the bot's stats reach `want` for `outcome`. */
const counted = (bot: Bot, outcome: string, want: number) =>
  until(async () => ((await stats(bot))[outcome] === want ? true : undefined), `${outcome} = ${want}`, 2_000);

/** Runs the bot's clock out: the game ends by Timeout, White (the webhook bot) losing. */
async function loseOnTime(t: Test, clock: ManualClock, stream: EventStream, botId: string): Promise<void> {
  clock.advance(61_000);
  const end = await stream.until((e) => e.GameEnded !== undefined, 'GameEnded');
  t.equal(end.GameEnded.over.termination, 'Timeout', 'lost on time: nothing was played');
  t.same(end.GameEnded.over.result, { Win: { side: 'Black' } });
  t.equal(end.GameEnded.clientSeeds.white, botId, 'no client seed: the external id is the fallback');
}

t.test('every outcome is counted', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, {
    clock,
    webhookResolver: resolver,
    overrides: { 'webhooks.enabled': true, 'webhooks.allowInsecureLocalTargets': true, 'webhooks.answerCapSeconds': CAP_S, 'games.seedGraceMs': GRACE_MS },
  });
  const { bot, rx } = await hooked(t, app, 'main');
  const turns = (): Delivery[] => rx.deliveries.filter((d) => d.json.type === 'yourTurn');

  // applied, then declined: the first answer plays, the second sends no moves.
  const play = randomTurns(app.base, rng(21));
  let n = 0;
  rx.onTurn = (d) => (n++ === 0 ? play(d) : { status: 200, json: { moves: [] } });
  let g = await startGame(app, clock, bot);
  await counted(bot, 'declined', 1);
  t.equal((await stats(bot)).applied, 1, 'applied');
  // The clock has not moved since the roll: the delivered state is byte for byte the public one.
  const pendingState = (await app.req('GET', `/games/${g.gameId}`)).json;
  t.same(turns().at(-1)!.json.state, pendingState, 'state is exactly the GET /games/{id} body');
  const declinedAt = turns().length;
  await loseOnTime(t, clock, g.stream, bot.id);
  t.equal(turns().length, declinedAt, 'the declined roll was not delivered again');

  const modes: [string, (d: Delivery) => Answer][] = [
    ['refused', () => ({ status: 200, json: { moves: ['a1a1'] } })],
    ['malformed', () => ({ status: 200, text: '{"moves": "e2e4"}' })],
    ['httpError', () => ({ status: 503, json: { moves: [] } })],
  ];
  for (const [outcome, answer] of modes) {
    rx.onTurn = answer;
    g = await startGame(app, clock, bot);
    await counted(bot, outcome, 1);
    if (outcome === 'refused') {
      const rejected = await g.stream.until((e) => e.Rejected !== undefined, 'Rejected');
      t.equal(rejected.Rejected.seat, 'White');
      t.match(rejected.Rejected.reason, /^illegal turn/, 'the same Rejected event as the move route');
    }
    const before = turns().length;
    await loseOnTime(t, clock, g.stream, bot.id);
    t.equal(turns().length, before, `${outcome}: one delivery for the roll`);
  }

  // timeout: the answer never comes; the cap runs out on the server's clock.
  rx.onTurn = () => 'hang';
  const waiting = rx.nextTurn();
  g = await startGame(app, clock, bot);
  await waiting;
  clock.advance(CAP_S * 1000);
  await counted(bot, 'timeout', 1);
  t.equal((await stats(bot)).latencyMsMax, CAP_S * 1000, 'the timeout waited exactly the cap');
  await loseOnTime(t, clock, g.stream, bot.id);

  // unreachable: the endpoint is gone.
  const gone = await hooked(t, app, 'gone');
  await gone.rx.close();
  g = await startGame(app, clock, gone.bot);
  await counted(gone.bot, 'unreachable', 1);
  await loseOnTime(t, clock, g.stream, gone.bot.id);

  // policyBlocked: the host now resolves to 0.0.0.0; the re-check at connect time refuses it.
  const flip = await hooked(t, app, 'flip', (r) => `http://flip.test:${r.port}/hook`);
  clock.advance(61_000); // past the client's re-check interval
  g = await startGame(app, clock, flip.bot);
  await counted(flip.bot, 'policyBlocked', 1);
  t.equal(flip.rx.deliveries.filter((d) => d.json.type === 'yourTurn').length, 0, 'nothing reached the receiver');
  await loseOnTime(t, clock, g.stream, flip.bot.id);

  const main = await stats(bot);
  t.same(
    [main.applied, main.declined, main.refused, main.malformed, main.httpError, main.timeout, main.unreachable, main.policyBlocked, main.deliveries],
    [1, 1, 1, 1, 1, 1, 0, 0, 6],
    'the main bot’s counts',
  );
  t.same(rx.badSignatures, [], 'every delivery was signed');
  const metrics = (await app.req('GET', '/metrics')).text;
  for (const [outcome, count] of [['applied', 1], ['declined', 1], ['refused', 1], ['malformed', 1], ['httpError', 1], ['timeout', 1], ['unreachable', 1], ['policyBlocked', 1]] as const) {
    t.match(metrics, new RegExp(`dicechess_webhook_deliveries_total\\{outcome="${outcome}"\\} ${count}\\b`), `/metrics counts ${outcome}`);
  }
  t.match(metrics, /dicechess_webhook_delivery_seconds_count 8\b/, 'and their round trips');
});

t.test('DELETE stops deliveries from the next turn; the game goes on', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock, overrides: { 'webhooks.enabled': true, 'webhooks.allowInsecureLocalTargets': true, 'games.seedGraceMs': GRACE_MS } });
  const { bot, rx } = await hooked(t, app, 'quitter');
  rx.onTurn = () => ({ status: 200, json: { moves: [] } });
  const g = await startGame(app, clock, bot);
  await counted(bot, 'declined', 1);
  t.equal((await bot.req('DELETE', '/bot/webhook')).status, 204);
  // The bot now plays from its stream: it must still be able to move, and nothing more is delivered.
  const tree = ((await app.req('GET', `/games/${g.gameId}/moves`)).json as Json).legalMoves;
  const path: string[] = [];
  for (let node = tree; Object.keys(node).length; node = node[path.at(-1)!]) path.push(Object.keys(node)[0]);
  t.equal((await bot.move(g.gameId, path)).status, 200, 'the game is still the bot’s to play');
  const next = await g.stream.until((e) => e.DiceRolled?.seat === 'White' || e.GameEnded !== undefined, 'the next White roll');
  t.ok(next, 'the game went on');
  t.equal(app.server.webhooks?.deliverer.pending(), 0, 'no delivery started for the next roll');
  t.equal(rx.deliveries.filter((d) => d.json.type === 'yourTurn').length, 1, 'only the one before the removal');
});
