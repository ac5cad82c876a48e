// A webhook bot in an event: invited, it accepts with one request, then plays both games of its pair
// against house/random by webhook deliveries alone; the event records both results.
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { webhookBot } from '../../helpers/webhook-player.js';
import { HOUSE_RANDOM, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

t.test('a webhook bot plays an event pair by deliveries', async (t) => {
  const app = await bootApp(t, { overrides: { 'webhooks.enabled': true, 'webhooks.allowInsecureLocalTargets': true } });
  const host = await Bot.register(app, 'hosts', 'wes');
  const { bot, rx } = await webhookBot(t, app, 'hooked', 'ivy', 44);
  const created = await host.req('POST', '/events', {
    name: 'hooked match', format: 'match', players: [{ team: 'hooked', name: 'ivy' }, HOUSE_RANDOM], timeControl: UNLIMITED,
  });
  const id = (created.json as Json).eventId;
  t.equal((created.json as Json).state, 'pending', 'waits for the invited bot');
  const mine = (await bot.req('GET', '/bot/events')).json as Json;
  t.match(mine.events[0], { eventId: id, invitation: 'invited' }, 'the invitation is listed');
  const accepted = await bot.req('POST', `/events/${id}/accept`);
  t.equal(accepted.status, 200, accepted.text);
  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  const [pair] = ev.pairs;
  t.ok(pair.scores.every((s: number | null) => s !== null), 'both games have a result');
  const played = new Set(rx.deliveries.filter((d) => d.json.type === 'yourTurn').map((d) => d.json.gameId));
  t.same([...played].sort(), [...pair.games].sort(), 'deliveries came for both games of the pair');
});
