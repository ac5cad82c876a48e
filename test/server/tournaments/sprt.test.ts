// An SPRT of house/greedy against house/random stops on H1 as soon as its LLR crosses the upper bound,
// and the event stream tells the whole story: the event, each pair, the end with the verdict.
import t from 'tap';
import { bootApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { EventStream } from '../../helpers/event-stream.js';
import { HOUSE_GREEDY, HOUSE_RANDOM, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

t.test('an SPRT stops at the pair that crosses a bound', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'lab', 'tester');
  const sprt = { elo0: 0, elo1: 100, alpha: 0.05, beta: 0.05 };
  const bad = await host.req('POST', '/events', { name: 'x', format: 'sprt', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED });
  t.equal(bad.status, 400, 'an sprt without its settings is refused');
  const created = await host.req('POST', '/events', {
    name: 'greedy > random?', format: 'sprt', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED, sprt, maxPairs: 200,
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId;
  const stream = new EventStream(await app.stream(`/events/${id}/stream`), 120_000);
  const lines = await stream.rest();
  const ev = await waitEvent(app, id);
  // Greedy is much stronger than random, so H1 is the usual verdict; but the dice are fresh on every
  // run and an SPRT accepts the wrong hypothesis with probability up to β by design, so either
  // verdict is a correct stop. What must hold is that the event stopped at the first pair whose LLR
  // crossed the bound of the verdict it gives.
  t.ok(ev.verdict === 'H1' || ev.verdict === 'H0', `a verdict (${ev.verdict})`);
  t.equal(ev.state, 'finished');
  t.equal(ev.pairs.length, ev.verdictAfter, 'no pair started after the verdict (concurrency 1)');
  t.ok(ev.pairs.length < 200, `stopped early, after ${ev.pairs.length} pairs`);
  const [lower, upper] = ev.encounters[0].bounds;
  t.ok(Math.abs(upper - Math.log(19)) < 1e-12 && Math.abs(lower + Math.log(19)) < 1e-12, 'bounds ln(β/(1−α)), ln((1−β)/α)');
  const history: number[] = ev.llrHistory;
  t.equal(history.length, ev.pairs.length);
  const last = history[history.length - 1];
  t.ok(ev.verdict === 'H1' ? last >= upper : last <= lower, `the last LLR (${last}) is past the verdict's bound`);
  t.ok(history.slice(0, -1).every((llr) => llr < upper && llr > lower), 'no earlier LLR was past a bound');
  t.equal(ev.encounters[0].llr, history[history.length - 1]);

  t.ok('EventState' in lines[0], 'the stream opens with the event');
  t.equal(lines.filter((l) => 'PairFinished' in l).length, ev.pairs.length, 'one line per finished pair');
  const end = lines[lines.length - 1];
  t.match(end, { EventEnded: { eventId: id, state: 'finished', verdict: ev.verdict, seed: ev.seed } }, 'it ends with the verdict and the seed');
});
