// Time odds over HTTP: a player of an event may bring its own time control. Each game of a pair gives
// each player its own control, on either colour (GET /games/{id} and its history); the event view and the export show
// them; a bad per-player control, Unlimited against a timed control and a rated event with odds are
// 400 problems; an event without odds shows exactly the fields it showed before odds existed.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyEvent } from '../../../src/cli/verify-tournament.js';
import { ManualClock } from '../../../src/domain/clock.js';
import { bootApp, diskDir, type TestApp } from '../../helpers/app.js';
import { Bot, type Json } from '../../helpers/bot.js';
import { until } from '../../helpers/poll.js';
import { EventStream } from '../../helpers/event-stream.js';
import { exportOf, HOUSE_GREEDY, HOUSE_RANDOM, trustHosts, UNLIMITED, waitEvent } from '../../helpers/tournaments.js';

const fischer = (initialSeconds: number) => ({ Fischer: { initialSeconds, incrementSeconds: 0 } });
const SIXTY = fischer(60);
const TEN = fischer(10);
const EVENT_TC = fischer(30);

function refused(t: Test, r: Awaited<ReturnType<TestApp['req']>>, code: string, what: string): void {
  t.equal(r.status, 400, `${what}: ${r.text}`);
  t.equal(r.headers['content-type'], 'application/problem+json', `${what}: a problem body`);
  t.equal((r.json as Json).code, code, `${what}: ${code}`);
}

t.test('a match with odds: each player keeps its own clock in both games of the pair', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'odette');
  const created = await host.req('POST', '/events', {
    name: 'odds', format: 'match', timeControl: EVENT_TC, pairsPerEncounter: 2,
    players: [{ ...HOUSE_GREEDY, timeControl: SIXTY }, { ...HOUSE_RANDOM, timeControl: TEN }],
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId as string;
  t.same((created.json as Json).players.map((p: Json) => p.timeControl), [SIXTY, TEN], 'the view shows each player’s control');
  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  t.same(ev.timeControl, EVENT_TC, 'the event keeps its own');
  t.same(ev.players.map((p: Json) => p.timeControl), [SIXTY, TEN]);
  for (const pair of ev.pairs) {
    const [first, second] = await Promise.all(pair.games.map(async (g: string) => (await app.req('GET', `/games/${g}`)).json as Json));
    // The test server's clock never moves and Fischer 0 adds nothing: the banks are still the initial ones.
    t.same(first.timeControls, { white: SIXTY, black: TEN }, `pair ${pair.index}, game 1: greedy White on 60 s`);
    t.same(first.timeControl, SIXTY, 'timeControl: White’s');
    t.same(first.clocks, { white: 60_000, black: 10_000 });
    t.same(second.timeControls, { white: TEN, black: SIXTY }, `pair ${pair.index}, game 2: random White, still on 10 s`);
    t.same(second.timeControl, TEN);
    t.same(second.clocks, { white: 10_000, black: 60_000 });
    t.same(((await app.req('GET', `/games/${pair.games[1]}/history`)).json as Json).timeControls, { white: TEN, black: SIXTY }, 'the transcript says it too');
  }
  const lines = await exportOf(app, id);
  t.same(lines[0].Event.players.map((p: Json) => p.timeControl), [SIXTY, TEN], 'the export’s event line');
  for (const { Game: g } of lines.slice(1)) {
    t.same(g.timeControls, g.game === 0 ? { white: SIXTY, black: TEN } : { white: TEN, black: SIXTY }, `export pair ${g.pair} game ${g.game}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-odds-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'odds.ndjson');
  writeFileSync(file, (await app.req('GET', `/events/${id}/games`)).text);
  const out: string[] = [];
  t.equal(await verifyEvent(file, { out: (l) => out.push(l), err: (l) => out.push(l), progress: () => {} }, 1), 0, out.join('\n'));
});

t.test('refused: a per-player control out of bounds, Unlimited against a clock, a rated event with odds', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'rufus');
  const match = (players: Json[], more: Json = {}) =>
    host.req('POST', '/events', { name: 'm', format: 'match', timeControl: EVENT_TC, players, ...more });
  refused(t, await match([{ ...HOUSE_GREEDY, timeControl: fischer(0) }, HOUSE_RANDOM]), 'invalid_body', 'initial 0 s');
  refused(t, await match([{ ...HOUSE_GREEDY, timeControl: { Fischer: { initialSeconds: 60, incrementSeconds: 601 } } }, HOUSE_RANDOM]), 'invalid_body', 'increment over 600 s');
  refused(t, await match([{ ...HOUSE_GREEDY, timeControl: { Blitz: {} } }, HOUSE_RANDOM]), 'invalid_body', 'no such control');
  refused(t, await match([{ ...HOUSE_GREEDY, timeControl: UNLIMITED }, HOUSE_RANDOM]), 'invalid_event', 'Unlimited against the event’s clock');
  refused(t, await match([{ ...HOUSE_GREEDY, timeControl: TEN }, HOUSE_RANDOM], { timeControl: UNLIMITED }), 'invalid_event', 'a clock in an Unlimited event');
  const rated = await match([{ ...HOUSE_GREEDY, timeControl: TEN }, HOUSE_RANDOM], { rated: true });
  refused(t, rated, 'rated_odds', 'rated with odds');
  t.match((rated.json as Json).detail, /cannot be rated/);
  t.equal(((await app.req('GET', '/events')).json as Json).events.length, 0, 'nothing was made');
  // The event's own control named again is no odds: a rated event may list it.
  const same = await match([{ ...HOUSE_GREEDY, timeControl: EVENT_TC }, HOUSE_RANDOM], { rated: true });
  t.equal(same.status, 201, same.text);
  t.notOk('timeControl' in (same.json as Json).players[0], 'stored as any player on the event’s control');
});

t.test('an event without odds shows exactly what it showed before odds existed', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'plain');
  const created = await host.req('POST', '/events', { name: 'plain', format: 'match', players: [HOUSE_GREEDY, HOUSE_RANDOM], timeControl: EVENT_TC });
  t.equal(created.status, 201, created.text);
  const ev = await waitEvent(app, (created.json as Json).eventId);
  // The keys of the view as the previous version made them (src/services/tournaments/view.ts).
  t.same(Object.keys(ev), [
    'eventId', 'name', 'format', 'state', 'host', 'players', 'timeControl', 'pairsPerEncounter', 'rounds', 'sprt', 'maxPairs',
    'concurrency', 'summaryEvery', 'rated', 'dice', 'commit', 'seed', 'pairsRunning', 'createdAt', 'startedAt', 'finishedAt', 'verdict',
    'verdictAfter', 'note', 'standings', 'encounters', 'ratings', 'llrHistory', 'pairs', 'byes',
  ]);
  for (const p of ev.players) t.same(Object.keys(p), ['team', 'name', 'invitation', 'withdrawn', 'seed', 'seedRating'], `${p.name}: no new key`);
  for (const g of ev.pairs[0].games) {
    const state = (await app.req('GET', `/games/${g}`)).json as Json;
    t.same(Object.keys(state), ['version', 'dfen', 'activeSeat', 'dicePending', 'status', 'timeControl', 'clocks', 'commit', 'seed', 'clientSeeds', 'legalMoves', 'players'], `game ${g}: the state as before`);
    t.notOk('timeControls' in ((await app.req('GET', `/games/${g}/history`)).json as Json), 'nor in its transcript');
  }
  for (const { Game: g } of (await exportOf(app, ev.eventId)).slice(1)) t.notOk('timeControls' in g, `export game ${g.game}: no timeControls`);
});

// Two bots that never move, on LMDB across a restart: in each game of the pair the side to move
// first runs its own clock, so the one with 10 s flags at 10 s whichever colour it has, and the one
// with 60 s only at 60 s. Which game that is depends on the pair's first roll (a forced pass hands the
// first clock to Black), and both games of a pair have that roll, so exactly one game flags first.
t.test('odds across a restart: the bot with 10 s flags first, the one with 60 s at 60 s', async (t) => {
  const store = diskDir(t);
  let now = 1_700_000_000_000;
  const boot = async (): Promise<TestApp> => bootApp(t, { store: await store(), clock: new ManualClock(now, { runDueTimers: true }) });
  let app = await boot();
  const host = await Bot.register(app, 'odds', 'host');
  const bots = await Promise.all(['slow', 'fast'].map((n) => Bot.register(app, 'odds', n)));
  const created = await host.req('POST', '/events', {
    name: 'handicap', format: 'match', timeControl: SIXTY,
    players: [{ team: 'odds', name: 'slow' }, { team: 'odds', name: 'fast', timeControl: TEN }],
  });
  t.equal(created.status, 201, created.text);
  const id = (created.json as Json).eventId as string;
  // An event with odds is answered by each bot itself (a standing trust in the host does not cover it).
  for (const b of bots) t.equal((await b.req('POST', `/events/${id}/accept`)).status, 200, `${b.creds.name} accepts`);
  t.same((created.json as Json).players.map((p: Json) => p.timeControl ?? null), [null, TEN], 'only the player with odds shows a control');
  await app.server.tournaments.round();
  const { games } = (await waitEvent(app, id, (e) => e.pairs.length === 1)).pairs[0];
  now = app.clock.now() + 1_000;
  await app.server.close();

  now += 60_000;
  app = await boot(); // the time the server was down is not charged
  const state = async (g: string) => (await app.req('GET', `/games/${g}`)).json as Json;
  t.same((await state(games[0])).timeControls, { white: SIXTY, black: TEN }, 'kept across the restart');
  t.same((await state(games[1])).timeControls, { white: TEN, black: SIXTY });
  const clock = app.clock as ManualClock;
  clock.advance(9_999);
  await app.server.tournaments.round();
  t.ok((await Promise.all(games.map(state))).every((s) => 'Active' in s.status), 'both still run at 9.999 s');
  clock.advance(1);
  await until(async () => (await Promise.all(games.map(state))).some((s) => 'Ended' in s.status) || undefined, 'a game to end on time');
  const ended = (await Promise.all(games.map(state))).map((s) => ('Ended' in s.status ? s.status.Ended.over : null));
  t.equal(ended.filter((o) => o !== null).length, 1, 'one game ended at 10 s');
  const fastSeat = ended[0] !== null ? 'Black' : 'White'; // fast is Black in game 1, White in game 2
  t.same(ended.find((o) => o !== null), { result: { Win: { side: fastSeat === 'White' ? 'Black' : 'White' } }, termination: 'Timeout' }, 'the bot with 10 s lost it on time');
  clock.advance(50_000);
  const ev = await waitEvent(app, id);
  t.equal(ev.state, 'finished');
  t.same(ev.standings.map((s: Json) => [s.name, s.timeLosses]).sort(), [['fast', 1], ['slow', 1]], 'the other game went on until 60 s');
});

t.test('a bot that trusts the host is still asked about an event with odds, and hears its own control', async (t) => {
  const app = await bootApp(t);
  const host = await Bot.register(app, 'hosts', 'handicapper');
  const trusting = await Bot.register(app, 'acme', 'trusting');
  await trustHosts(trusting, [host]);
  const stream = new EventStream(await app.stream('/bot/stream/event', trusting.token), 600_000);
  t.teardown(() => stream.close());
  const me = { team: 'acme', name: 'trusting' };
  // Without odds, the setting enters it at once (as before); with odds, it answers itself.
  const plain = await host.req('POST', '/events', { name: 'plain', format: 'match', players: [me, HOUSE_RANDOM], timeControl: EVENT_TC, pairsPerEncounter: 1 });
  t.equal(plain.status, 201, plain.text);
  const odds = await host.req('POST', '/events', { name: 'odds', format: 'match', players: [{ ...me, timeControl: TEN }, { ...HOUSE_GREEDY, timeControl: SIXTY }], timeControl: EVENT_TC, pairsPerEncounter: 1 });
  t.equal(odds.status, 201, odds.text);
  t.equal((odds.json as Json).state, 'pending', 'the odds event waits for its answer');
  t.equal((odds.json as Json).players[0].invitation, 'invited');
  const invitations: Json[] = [];
  while (invitations.length < 2) {
    const ev = await stream.next();
    if (ev === undefined) break;
    if (ev.EventInvitation) invitations.push(ev.EventInvitation);
  }
  t.match(invitations[0], { name: 'plain', invitation: 'accepted', timeControl: EVENT_TC, timeOdds: false }, 'entered by its setting; its control is the event’s');
  t.match(invitations[1], { name: 'odds', invitation: 'invited', timeControl: TEN, timeOdds: true }, 'asked, with its own control and the odds said');
});
