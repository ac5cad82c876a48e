// An SPRT of house/greedy against house/random stops on H1 as soon as its LLR crosses the upper bound,
// and the event stream tells the whole story: the event, each pair, the end with the verdict. The
// model of its Elo bounds: normalised unless asked otherwise, and logistic for an SPRT stored before
// there was a choice.
import t from 'tap';
import type { TournamentRecord } from '../../../src/domain/tournaments.js';
import { SCHEMA_VERSION } from '../../../src/domain/records.js';
import { commitOf, newServerSeed, seedToHex } from '../../../src/fair/index.js';
import { llrOf } from '../../../src/services/tournaments/stats.js';
import { MemoryStore } from '../../../src/store/memory.js';
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
  t.equal(ev.sprt.model, 'normalized', 'no model asked: normalised Elo');
  t.equal(ev.encounters[0].eloBiased, true, 'stopped at a bound: the Elo estimate says it is biased');
  t.match(ev.encounters[0].biasNote, /naive estimates after a sequential stop, biased/, 'and says it in words');

  t.ok('EventState' in lines[0], 'the stream opens with the event');
  t.equal(lines.filter((l) => 'PairFinished' in l).length, ev.pairs.length, 'one line per finished pair');
  const end = lines[lines.length - 1];
  t.match(end, { EventEnded: { eventId: id, state: 'finished', verdict: ev.verdict, seed: ev.seed } }, 'it ends with the verdict and the seed');
});

t.test('the model of the bounds: chosen at creation, shown on the event', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'lab', 'models');
  const make = (sprt: Json) =>
    host.req('POST', '/events', { name: 'm', format: 'sprt', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: UNLIMITED, sprt, maxPairs: 1 });
  const base = { elo0: 0, elo1: 50, alpha: 0.05, beta: 0.05 };
  const logistic = await make({ ...base, model: 'logistic' });
  t.equal(logistic.status, 201, logistic.text);
  t.equal((logistic.json as Json).sprt.model, 'logistic');
  t.equal((await make({ ...base, model: 'bayesian' })).status, 400, 'an unknown model is refused');
  const ev = await waitEvent(app, (logistic.json as Json).eventId);
  t.equal(ev.encounters[0].eloBiased, false, 'stopped at maxPairs, not at a bound: no sequential bias');
  t.notOk('biasNote' in ev.encounters[0], 'and no note');
});

t.test('an SPRT stored before models existed reads as logistic', async (t) => {
  const store = new MemoryStore();
  const seed = newServerSeed();
  const player = (name: string) => ({ id: `bot:team:house:${name}`, team: 'house', name, accepted: true });
  const scores: [0 | 0.5 | 1, 0 | 0.5 | 1][] = [[1, 1], [1, 0.5], [0.5, 0.5], [1, 1]];
  const old: TournamentRecord = {
    schema: SCHEMA_VERSION, id: 'OldSprt', name: 'old', format: 'sprt', host: 'bot:team:lab:h',
    players: [player('greedy'), player('random')], timeControl: { Unlimited: {} }, pairsPerEncounter: 1, rounds: 0,
    sprt: { elo0: 0, elo1: 100, alpha: 0.05, beta: 0.05 }, maxPairs: 4, concurrency: 1, rated: false, state: 'finished',
    createdAt: 0, startedAt: 0, finishedAt: 1, commit: commitOf(seed), seed: seedToHex(seed), queue: [], byes: [],
    pairs: scores.map((sc, i) => ({ index: i, round: 0, a: 0, b: 1, games: [`g${i}w`, `g${i}b`], scores: sc, timeLosses: [], finishedSeq: i + 1 })),
    verdict: null, verdictAfter: null, note: null,
  };
  await store.putTournament(old);
  const app = await bootApp(t, { store });
  const r = await app.req('GET', '/events/OldSprt');
  t.equal(r.status, 200, r.text);
  const ev = r.json as Json;
  t.match(ev.sprt, { elo0: 0, elo1: 100, alpha: 0.05, beta: 0.05, model: 'logistic', method: 'glr' }, 'the settings show the logistic model');
  t.equal(ev.encounters[0].llr, llrOf([0, 0, 1, 1, 2], 0, 100, 'logistic'), 'and its LLR is the logistic one');
  t.equal(ev.encounters[0].eloBiased, false);
});
