// Webhook deliveries across a server restart on the same LMDB directory. A roll whose delivery was cut
// off by the shutdown is delivered once after the resume, and the game plays on to its end; a roll
// whose delivery had finished (here: declined) is not delivered again, so no roll is ever sent twice
// except the one the restart interrupted.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { bootApp, diskDir, type TestApp } from '../helpers/app.js';
import { deliveryProblems, randomTurns, registerWebhook } from '../helpers/webhook-player.js';
import { startReceiver, type Delivery, type Receiver } from '../helpers/webhook-receiver.js';
import { Bot, type Json } from '../helpers/bot.js';
import { until } from '../helpers/poll.js';
import { prng as rng } from '../helpers/prng.js';

const LOCAL = { 'webhooks.enabled': true, 'webhooks.allowInsecureLocalTargets': true };
const TC = { Fischer: { initialSeconds: 3600, incrementSeconds: 0 } };

const yourTurns = (rx: Receiver): Delivery[] => rx.deliveries.filter((d) => d.json.type === 'yourTurn');
const key = (d: Delivery): string => `${d.json.gameId}@${d.json.state.version}`;

async function startGame(app: TestApp, rx: Receiver): Promise<{ bot: Bot; gameId: string }> {
  const bot = await Bot.register(app, 'restart', 'hooked');
  await registerWebhook(bot, rx);
  const acct = await bot.accountStream();
  if ((await bot.challenge({ team: 'house', name: 'random' }, TC)).status !== 201) throw new Error('challenge');
  const gameId = (await acct.next())!.GameStart.gameId as string;
  acct.close();
  return { bot, gameId };
}

/**
 * The first server: the bot's first delivery is played, every later one answered by `then`. From the
 * start position no king can be taken in one turn, so a second White roll always comes.
 */
async function firstRun(t: Test, seed: number, then: Receiver['onTurn']) {
  const open = diskDir(t);
  const rx = await startReceiver(t);
  const app1 = await bootApp(t, { store: await open(), overrides: LOCAL });
  const play = randomTurns(app1.base, rng(seed));
  let answered = 0;
  rx.onTurn = (d) => (answered++ < 1 ? play(d) : then(d));
  const { bot: bot1, gameId } = await startGame(app1, rx);
  return { open, rx, app1, bot1, gameId };
}

t.test('a delivery cut off by a restart is delivered once after the resume', async (t) => {
  const { open, rx, app1, bot1, gameId } = await firstRun(t, 31, () => 'hang');
  // Checked and awaited in one step each time round: no delivery can slip between the two.
  while (yourTurns(rx).length < 2) await rx.nextTurn();
  const cut = key(yourTurns(rx)[1]);
  await app1.server.close();

  const app2 = await bootApp(t, { store: await open(), overrides: LOCAL });
  rx.onTurn = randomTurns(app2.base, rng(32));
  const bot = new Bot(app2, bot1.creds);
  t.equal((await bot.req('GET', '/bot/webhook')).status, 200, 'the webhook survived the restart');
  const stream = await bot.gameStream(gameId);
  const end = await stream.until((e) => e.GameEnded !== undefined, 'the end of the resumed game');
  t.ok(end.GameEnded.over, 'the resumed game played to its end');
  const turns = yourTurns(rx);
  t.equal(key(turns[2]), cut, 'the first delivery after the resume is the roll that was cut off');
  const counts = new Map<string, number>();
  for (const d of turns) counts.set(key(d), (counts.get(key(d)) ?? 0) + 1);
  t.same([...counts].filter(([, n]) => n > 1), [[cut, 2]], 'only the cut-off roll went out twice: once cut, once after');
  t.same(rx.badSignatures, [], 'all signed');
  const stats = ((await bot.req('GET', '/bot/webhook')).json as Json).stats;
  t.equal(stats.applied, turns.length - 2, 'after the restart every delivery was applied');
  t.equal(app2.server.store.webhookDelivered(gameId), undefined, 'the ended game keeps no delivery marker');
});

t.test('a roll whose delivery finished before the restart is not delivered again', async (t) => {
  const { open, rx, app1, bot1, gameId } = await firstRun(t, 33, () => ({ status: 200, json: { moves: [] } }));
  await until(async () => (((await bot1.req('GET', '/bot/webhook')).json as Json).stats.declined === 1 ? true : undefined), 'the declined answer', 2_000);
  const ply = app1.server.games.get(gameId)!.record().ply;
  t.equal(app1.server.store.webhookDelivered(gameId), ply, 'the finished delivery is recorded with its roll');
  await app1.server.close();

  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app2 = await bootApp(t, { clock, store: await open(), overrides: LOCAL });
  const bot = new Bot(app2, bot1.creds);
  t.equal(app2.server.store.webhookDelivered(gameId), ply, 'the record survived the restart');
  t.equal(app2.server.games.get(gameId)!.record().ply, ply, 'the same roll is pending');
  t.equal(app2.server.webhooks?.deliverer.pending(), 0, 'the resume started no delivery');
  const before = yourTurns(rx).length;
  const stream = await bot.gameStream(gameId);
  await stream.next();
  clock.advance(3_600_000);
  const end = await stream.until((e) => e.GameEnded !== undefined, 'the timeout');
  t.equal(end.GameEnded.over.termination, 'Timeout', 'the bot lost on time, as it would have without the restart');
  t.equal(yourTurns(rx).length, before, 'the roll was never delivered again');
  t.same(deliveryProblems(rx.deliveries, () => 'White'), [], 'one delivery per roll, all signed');
});
