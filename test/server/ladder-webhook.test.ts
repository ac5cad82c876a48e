// A webhook bot on the ladder is fully passive: after registering its webhook, setting its capacity
// and joining, it never makes another request. More than a minute later (so a recent request no
// longer makes it reachable) a scheduler round pairs it, because its webhook is verified, and its
// deliveries alone play both games of the mirror pair to the end; the batch then rates them. A
// polling bot that went quiet in the same minute is not paired. And a webhook is no way to reach a
// bot on a server whose webhooks are turned off: nothing would deliver its turns.
import t, { type Test } from 'tap';
import type { ManualClock } from '../../src/domain/clock.js';
import { bootApp, diskDir, diskStore, type TestApp } from '../helpers/app.js';
import { deliveryProblems, webhookBot } from '../helpers/webhook-player.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { Bot, type Json } from '../helpers/bot.js';
import { prng as rng } from '../helpers/prng.js';

const OVERRIDES = {
  'webhooks.enabled': true,
  'webhooks.allowInsecureLocalTargets': true,
  // Rounds and batches are run by the test, not by the clock's timers.
  'ladder.pairIntervalMs': 86_400_000,
  'ladder.ratingBatchMs': 86_400_000,
};

/** A registered bot on the ladder with capacity 2 and a verified webhook answering random turns. */
async function passiveBot(t: Test, app: TestApp, name: string, seed: number): Promise<{ bot: Bot; rx: Receiver }> {
  const { bot, rx } = await webhookBot(t, app, 'hooked', name, seed);
  if ((await bot.req('POST', '/bot/capacity', { capacity: 2 })).status !== 200) throw new Error('capacity');
  if ((await bot.req('POST', '/bot/ladder/join')).status !== 200) throw new Error('join');
  return { bot, rx };
}

/** Polls the public snapshot (no bot credentials) until the game has ended; a bounded wait. */
async function ended(app: TestApp, gameId: string): Promise<Json> {
  for (let i = 0; i < 6_000; i++) {
    const s = (await app.req('GET', `/games/${gameId}`)).json as Json;
    if ('Ended' in s.status) return s;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${gameId} did not end`);
}

t.test('webhook bots on the ladder are paired and play a whole mirror pair by deliveries alone', async (t) => {
  const app = await bootApp(t, { store: await diskStore(t), overrides: OVERRIDES, random: rng(5) });
  const clock = app.clock as ManualClock;
  const a = await passiveBot(t, app, 'oak', 31);
  const b = await passiveBot(t, app, 'elm', 32);
  // A polling bot on the ladder that stops polling: after a minute it cannot be reached.
  const quiet = await Bot.register(app, 'hooked', 'quiet');
  t.equal((await quiet.req('POST', '/bot/capacity', { capacity: 2 })).status, 200);
  t.equal((await quiet.req('POST', '/bot/ladder/join')).status, 200);

  const requestsBefore = [a.rx, b.rx].map((rx) => rx.deliveries.length);
  t.same(requestsBefore, [1, 1], 'only the handshakes so far');
  clock.advance(61_000);
  t.equal(await app.server.scheduler.round(), 1, 'one mirror pair');

  const live = ((await app.req('GET', '/games')).json as Json).games as Json[];
  t.equal(live.length, 2, 'two live games');
  const names = (g: Json) => [g.players.white.name, g.players.black.name];
  t.same(live.map(names).map((n) => [...n].sort()), [['hooked elm', 'hooked oak'], ['hooked elm', 'hooked oak']], 'both games between the webhook bots');
  t.same(new Set(live.map((g) => g.players.white.name)).size, 2, 'colours swapped');
  t.ok(live.every((g) => g.rated === true), 'rated');
  t.ok(live.every((g) => JSON.stringify(g.timeControl) === JSON.stringify({ Fischer: { initialSeconds: 300, incrementSeconds: 3 } })), 'Fischer 300+3');

  const results = [];
  for (const g of live) results.push(await ended(app, g.gameId));
  for (const [i, s] of results.entries()) {
    t.not(s.status.Ended.over.termination, 'Timeout', `game ${i} did not end on time`);
    t.not(s.status.Ended.over.termination, 'Aborted', `game ${i} was not aborted`);
  }
  const seats = new Map(live.map((g) => [g.gameId, g.players]));
  for (const { bot, rx } of [a, b]) {
    const me = `hooked ${bot.creds.name}`;
    t.same(rx.badSignatures, [], `${me}: every delivery signed`);
    const seatOf = (id: string) => (seats.get(id).white.name === me ? 'White' : 'Black');
    t.same(deliveryProblems(rx.deliveries, seatOf), [], `${me}: one delivery per roll, for its own seat`);
    const games = new Set(rx.deliveries.filter((d) => d.json.type === 'yourTurn').map((d) => d.json.gameId));
    t.same([...games].sort(), live.map((g) => g.gameId).sort(), `${me}: deliveries in both games`);
    // Every turn of the bot in both games came from its deliveries: it made no request itself.
    for (const g of live) {
      const hist = ((await app.req('GET', `/games/${g.gameId}/history`)).json as Json).history as Json[];
      const seat = seatOf(g.gameId);
      const played = hist.filter((h) => h.seat === seat && h.moves.length > 0).map((h) => h.moves);
      const answered = rx.deliveries.filter((d) => d.json.type === 'yourTurn' && d.json.gameId === g.gameId).length;
      t.ok(played.length > 0 && played.length === answered, `${me} ${seat}: ${played.length} turns played, one per delivery`);
    }
  }

  const outcome = await app.server.ratings.runBatch();
  t.same([outcome.games, outcome.bots], [2, 2], 'the batch rates both games for both bots');
  for (const { bot } of [a, b]) {
    const p = (await app.req('GET', `/bots/hooked/${bot.creds.name}`)).json as Json;
    t.equal(p.games, 2, `${bot.creds.name}: two rated games`);
    t.ok(p.recent.every((r: Json) => r.rated), 'both rated');
    t.equal(p.ratingHistory.length, 1, 'one history point');
  }
  const q = (await app.req('GET', '/bots/hooked/quiet')).json as Json;
  t.equal(q.games, 0, 'the quiet polling bot was not paired');
});

t.test('with webhooks turned off, a bot whose only way in is its webhook is not paired', async (t) => {
  const open = diskDir(t);
  // The first run verifies both webhooks; the bots join and go quiet.
  const first = await bootApp(t, { store: await open(), overrides: OVERRIDES });
  await passiveBot(t, first, 'ash', 41);
  await passiveBot(t, first, 'yew', 42);
  await first.server.close();

  // The next run has webhooks off: the records still carry the verified webhooks.
  const off = { ...OVERRIDES, 'webhooks.enabled': false };
  const second = await bootApp(t, { store: await open(), overrides: off });
  (second.clock as ManualClock).advance(61_000);
  t.equal(second.server.store.listBots().filter((b) => b.onLadder && b.webhook?.verifiedAt).length, 2, 'both verified webhooks are still on record');
  t.equal(await second.server.scheduler.round(), 0, 'no pair: nothing would deliver their turns, and they would lose on time');
  t.equal(((await second.req('GET', '/games')).json as Json).total, 0, 'no game started');
});
