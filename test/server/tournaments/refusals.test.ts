// Refused moves in event games count in the standings, for the player who sent them: an invited bot
// sends moves the server refuses (409) before resigning each of its games. The event stream, watched
// from before the start, carries only lines its wire schema (and so the AsyncAPI document) describes.
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { EventLine, EventView } from '../../../src/wire/tournament-schemas.js';
import { HOUSE_RANDOM, ResigningBot, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

t.test('each refused move of an event game counts for the bot that sent it; the stream matches its schema', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'rita');
  const guest = await new ResigningBot(await Bot.register(app, 'guests', 'rex'), 'none', 2).start();
  t.teardown(() => guest.close());
  const created = await host.req('POST', '/events', {
    name: 'refusals', format: 'match', players: [{ team: 'guests', name: 'rex' }, HOUSE_RANDOM], timeControl: UNLIMITED,
    pairsPerEncounter: 2,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId;
  const stream = new EventStream(await app.stream(`/events/${id}/stream`), 60_000);
  t.teardown(() => stream.reader.destroy());
  t.equal((await guest.bot.req('POST', `/events/${id}/accept`)).status, 200);
  const lines: Json[] = [];
  for (let l = await stream.next(); l !== undefined; l = await stream.next()) lines.push(l);
  t.same(lines.map((l) => Object.keys(l)[0]).filter((k, i, all) => all.indexOf(k) === i), ['EventState', 'PairStarted', 'PairFinished', 'EventEnded']);
  for (const l of lines) t.ok(EventLine.safeParse(l).success, `${Object.keys(l)[0]} matches the wire schema: ${JSON.stringify(EventLine.safeParse(l).error?.issues)}`);

  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  t.same(guest.refused, [409, 409, 409, 409, 409, 409, 409, 409], 'two moves refused in each of the four games');
  const row = (name: string) => ev.standings.find((s: Json) => s.name === name);
  t.equal(row('rex').refusedMoves, 8, 'every refusal counts for the bot that sent it');
  t.equal(row('random').refusedMoves, 0, 'none for its opponent');
  t.equal(row('rex').timeLosses, 0);
  t.ok(EventView.safeParse(ev).success, 'the view matches its wire schema');
});
