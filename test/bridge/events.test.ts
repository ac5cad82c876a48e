// The bridge and events: `--accept-events-from` names the hosts that may enter the bot into their
// events unasked (the bot's own event-hosts setting, set at start); an event of such a host then
// starts at once and the bridge plays its games like any other.
import t from 'tap';
import { parseBridgeArgs } from '../../src/bridge/config.js';
import { bootApp } from '../helpers/app.js';
import { Bot, type Json } from '../helpers/bot.js';
import { ended, failures, GREEDY_ENGINE, startBridge } from '../helpers/bridge.js';
import { HOUSE_RANDOM, waitEvent } from '../helpers/tournaments.js';

t.test('the option, from flags or the config file', async (t) => {
  const flags = parseBridgeArgs(['--accept-events-from', 'hosts/boss', '--accept-events-from', 'hosts/other', '--accept-rated-events']);
  if (typeof flags === 'string') throw new Error(flags);
  t.same(flags.config.acceptEventsFrom, ['hosts/boss', 'hosts/other']);
  t.equal(flags.config.acceptRatedEvents, true);
  const none = parseBridgeArgs([]);
  if (typeof none === 'string') throw new Error(none);
  t.equal(none.config.acceptEventsFrom, null, 'by default the bridge leaves the setting as the server has it');
  const file = parseBridgeArgs(['--config', 'c.json'], () => JSON.stringify({ acceptEventsFrom: [] }));
  if (typeof file === 'string') throw new Error(file);
  t.same(file.config.acceptEventsFrom, [], 'an empty list (clears it)');
  t.match(parseBridgeArgs(['--accept-events-from', 'Boss']), /^config: acceptEventsFrom\.0: must be team\/name/);
});

t.test('a bridge that names a host plays that host’s event without being asked', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'boss');
  const b = await startBridge(t, app.base, ['--register', 'kit/eventful', '--accept-events-from', 'hosts/boss', '--games', '2'], GREEDY_ENGINE);
  t.same(app.server.store.getBot('bot:team:kit:eventful')?.eventHosts, { hosts: ['bot:team:hosts:boss'], rated: false }, 'the setting is made at start');
  const created = await host.req('POST', '/events', {
    name: 'kit match', format: 'match', players: [{ team: 'kit', name: 'eventful' }, HOUSE_RANDOM],
    timeControl: { Fischer: { initialSeconds: 120, incrementSeconds: 1 } },
  });
  t.equal((created.json as Json).state, 'running', created.text);
  await b.done();
  t.equal(ended(b.events).length, 2, 'the bridge played both games of the pair');
  t.same(failures(b.events), [], 'no engine failed');
  t.equal((await waitEvent(app, (created.json as Json).eventId)).state, 'finished');
});
