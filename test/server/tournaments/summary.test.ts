// Interval summaries on the event stream (`summaryEvery`) over HTTP: a match of 4 pairs with
// summaryEvery 2 streams exactly two EventSummary lines, after pairs 2 and 4, with the counts then;
// a round-robin's summaries carry its ratings; the setting is bounded.
import t, { type Test } from 'tap';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream, type Ev } from '../../helpers/event-stream.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, ResigningBot, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

/** The event's stream from before its start to its end (the guest accepts once the stream is open). */
async function streamed(t: Test, players: Json[], extra: Json): Promise<{ lines: Ev[]; id: string }> {
  const app = await bootApp(t, { overrides: { 'limits.registrationsPerHour': 100 } });
  const host = await Bot.register(app, 'hosts', 'sam');
  // Invited and not answering on its own: the event waits for it, so no pair finishes unseen.
  const guest = await new ResigningBot(await Bot.register(app, 'guests', 'gus'), 'none').start();
  t.teardown(() => guest.close());
  const created = await host.req('POST', '/events', {
    name: 'summaries', players: [...players, { team: 'guests', name: 'gus' }], timeControl: UNLIMITED, ...extra,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId as string;
  t.equal((created.json as Json).summaryEvery, extra.summaryEvery, 'the view says the setting');
  const stream = new EventStream(await app.stream(`/events/${id}/stream`), 60_000);
  t.equal((await guest.bot.req('POST', `/events/${id}/accept`)).status, 200);
  const lines: Ev[] = [];
  for (let ev = await stream.next(); ev !== undefined; ev = await stream.next()) lines.push(ev);
  t.equal((await waitEvent(app, id)).state, 'finished');
  return { lines, id };
}

t.test('a match of 4 pairs with summaryEvery 2 streams two summaries, after pairs 2 and 4', async (t) => {
  const { lines, id } = await streamed(t, [HOUSE_GREEDY], { format: 'match', pairsPerEncounter: 4, summaryEvery: 2 });
  const summaries = lines.filter((l) => l.EventSummary).map((l) => l.EventSummary);
  t.equal(summaries.length, 2, 'exactly two');
  t.same(summaries.map((s) => s.pairsFinished), [2, 4]);
  for (const s of summaries) {
    t.equal(s.eventId, id);
    t.same(s.standings.map((r: Json) => r.games), [2 * s.pairsFinished, 2 * s.pairsFinished], 'every player’s games then');
    t.equal(s.standings.reduce((a: number, r: Json) => a + r.points, 0), 2 * s.pairsFinished, 'two points a pair');
    t.equal(s.encounter.pairs, s.pairsFinished, 'the encounter’s pairs then');
    t.ok(s.encounter.eloInterval[0] <= s.encounter.elo && s.encounter.elo <= s.encounter.eloInterval[1]);
    t.equal(s.ratings, null, 'no ratings for a match');
    t.equal(s.llr, null, 'not an SPRT');
  }
  // Each summary follows the PairFinished line that completed its count.
  const order = lines.map((l) => Object.keys(l)[0]);
  const finishedBefore = (i: number) => order.slice(0, i).filter((k) => k === 'PairFinished').length;
  t.same(order.flatMap((k, i) => (k === 'EventSummary' ? [finishedBefore(i)] : [])), [2, 4]);
  t.equal(order[order.length - 1], 'EventEnded');
});

t.test('a round-robin’s summaries carry its ratings', async (t) => {
  const { lines } = await streamed(t, [HOUSE_GREEDY, HOUSE_RANDOM], { format: 'roundRobin', summaryEvery: 3 });
  const summaries = lines.filter((l) => l.EventSummary).map((l) => l.EventSummary);
  t.equal(summaries.length, 1, 'three pairs: one summary');
  t.equal(summaries[0].ratings.length, 3, 'every player rated');
  t.ok(summaries[0].ratings.every((r: Json) => r.low < r.elo && r.elo < r.high));
  t.equal(summaries[0].encounter, null);
});

t.test('summaryEvery is 1..1000', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'sid');
  for (const summaryEvery of [0, 1001, 2.5]) {
    const r = await host.req('POST', '/events', { name: 'x', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED, summaryEvery });
    t.equal(r.status, 400, `${summaryEvery}: ${r.text}`);
  }
  const none = await host.req('POST', '/events', { name: 'x', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED });
  t.equal((none.json as Json).summaryEvery, null, 'absent: none');
});
