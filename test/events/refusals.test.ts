// Refused moves in event games count in the standings, for the player who sent them: a bot of the
// host's team sends moves the server refuses (409) before resigning each of its games.
import t from 'tap';
import { bootApp } from '../helpers/app.js';
import { Bot, type Json } from '../helpers/bot.js';
import { EventView } from '../../src/wire/event-schemas.js';
import { HOUSE_RANDOM, ResigningBot, UNLIMITED, waitEvent } from './helpers.js';

t.test('each refused move of an event game counts for the bot that sent it', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'rita');
  const mate = await new ResigningBot(await Bot.register(app, 'hosts', 'rex'), 'accept', 2).start();
  t.teardown(() => mate.close());
  const created = await host.req('POST', '/events', {
    name: 'refusals', format: 'match', players: [{ team: 'hosts', name: 'rex' }, HOUSE_RANDOM], timeControl: UNLIMITED,
    pairsPerEncounter: 2,
  });
  t.equal(created.status, 201, created.text);
  const ev = await waitEvent(app, (created.json as Json).eventId);
  t.equal(ev.state, 'finished');
  t.same(mate.refused, [409, 409, 409, 409, 409, 409, 409, 409], 'two moves refused in each of the four games');
  const row = (name: string) => ev.standings.find((s: Json) => s.name === name);
  t.equal(row('rex').refusedMoves, 8, 'every refusal counts for the bot that sent it');
  t.equal(row('random').refusedMoves, 0, 'none for its opponent');
  t.equal(row('rex').timeLosses, 0);
  t.ok(EventView.safeParse(ev).success, 'the view matches its wire schema');
});
