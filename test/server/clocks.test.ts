// Clocks over real HTTP with the injected clock: SuddenDeath, Fischer (increment after a completed
// non-pass turn), PerMove (a fresh budget each turn), Unlimited (clocks null, the 120 s cap), free
// forced passes, no clock before the opening roll, and Timeout at exactly the bank. `clocks` in
// DiceRolled are the banks at the roll; in every state read they are live.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import type { TimeControl } from '../../src/domain/types.js';
import { bootApp, type TestApp } from '../helpers/app.js';
import type { Teardown } from '../helpers/http.js';
import { Bot, type Json } from '../helpers/bot.js';
import { movableAtStart } from '../helpers/dice.js';
import { EventStream, type Ev } from '../helpers/event-stream.js';
import { fullTree, gameState, seedGame } from '../helpers/games.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { prng as rng } from '../helpers/prng.js';

const HOLD = { 'games.seedGraceMs': 600_000 };

interface Table {
  app: TestApp;
  clock: ManualClock;
  white: Bot;
  black: Bot;
  gameId: string;
  stream: EventStream;
}

/** A challenge game on `tc` whose rolls 0..n-1 satisfy `want`, watched from White's game stream. */
async function table(t: Teardown, tc: TimeControl, want: (d: number[], ply: number) => boolean, plies: number): Promise<Table> {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock, overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await white.playAgainst(black, tc);
  const stream = await white.gameStream(gameId);
  await stream.next(); // Snapshot
  // Game creation starts no clock: time spent before the opening roll is nobody's.
  clock.advance(10_000);
  await seedGame(app, gameId, white, black, want, plies);
  return { app, clock, white, black, gameId, stream };
}

const nextRoll = (s: EventStream): Promise<Ev> => s.until((e) => 'DiceRolled' in e, 'DiceRolled').then((e) => e.DiceRolled);

/** Plays a random legal turn for the seat whose roll is pending. */
async function play(tb: Table, who: Bot, seed = 1): Promise<Json> {
  const m = await fullTree(tb.app, tb.gameId);
  const r = await who.move(tb.gameId, randomPath(m.legalMoves as Tree, rng(seed)));
  if (r.status !== 200) throw new Error(`move: ${r.status} ${r.text}`);
  return r.json;
}

const liveClocks = async (tb: Table): Promise<Json> => (await gameState(tb.app, tb.gameId)).clocks;

t.test('SuddenDeath: banks at the roll in DiceRolled, live values in every read, Timeout at exactly zero', async (t) => {
  const tb = await table(t, { SuddenDeath: { initialSeconds: 60 } }, movableAtStart, 3);
  const r0 = await nextRoll(tb.stream);
  t.same(r0.clocks, { white: 60_000, black: 60_000 }, 'the opening roll: full banks (creation started no clock)');
  tb.clock.advance(1500);
  t.same(await liveClocks(tb), { white: 58_500, black: 60_000 }, 'GET /games/{id}: the mover’s elapsed time subtracted');
  t.same((await tb.white.myGames())[0].clocks, { white: 58_500, black: 60_000 }, 'GET /bot/games: live');
  t.same(((await tb.app.req('GET', '/games')).json as Json).games[0].clocks, { white: 58_500, black: 60_000 }, 'GET /games: live');
  const late = await tb.black.gameStream(tb.gameId);
  t.same((await late.next())!.Snapshot.state.clocks, { white: 58_500, black: 60_000 }, 'Snapshot state: live');
  late.close();
  await play(tb, tb.white);

  const r1 = await nextRoll(tb.stream);
  t.equal(r1.seat, 'Black');
  t.same(r1.clocks, { white: 58_500, black: 60_000 }, 'Black’s roll: White’s bank lost exactly the 1.5 s it thought');
  tb.clock.advance(1000);
  t.equal((await tb.black.move(tb.gameId, ['h9h9'])).status, 409);
  tb.clock.advance(1000);
  t.same(await liveClocks(tb), { white: 58_500, black: 58_000 }, 'only the mover’s clock runs, through a refused move');
  await play(tb, tb.black);

  const r2 = await nextRoll(tb.stream);
  t.same(r2.clocks, { white: 58_500, black: 58_000 }, 'no increment in SuddenDeath');
  tb.clock.advance(58_499);
  t.same(await liveClocks(tb), { white: 1, black: 58_000 });
  t.ok('Active' in (await gameState(tb.app, tb.gameId)).status, 'one millisecond left: still on');
  tb.clock.advance(1);
  const ended = (await tb.stream.until((e) => 'GameEnded' in e)).GameEnded;
  t.same(ended.over, { result: { Win: { side: 'Black' } }, termination: 'Timeout' }, 'White’s flag fell');
  const final = await gameState(tb.app, tb.gameId);
  t.same(final.clocks, { white: 0, black: 58_000 }, 'the final clocks');
  const m = await tb.white.move(tb.gameId, ['e2e4']);
  t.same(m.json, { applied: false, version: null, reason: 'game is over' }, 'too late');
});

t.test('Fischer: the increment comes after a completed turn, never after a forced pass (which is free)', async (t) => {
  // Rolls: White can move, Black (still boxed in) cannot (no pawn or knight die), White again.
  const want = (d: number[], ply: number) => (ply === 1 ? !movableAtStart(d) : movableAtStart(d));
  const tb = await table(t, { Fischer: { initialSeconds: 10, incrementSeconds: 2 } }, want, 3);
  const r0 = await nextRoll(tb.stream);
  t.same(r0.clocks, { white: 10_000, black: 10_000 });
  tb.clock.advance(3000);
  const verdict = await play(tb, tb.white);
  const turn = (await tb.stream.until((e) => 'TurnPlayed' in e)).TurnPlayed;
  t.equal(turn.v, verdict.version);

  const pass = await nextRoll(tb.stream);
  t.equal(pass.seat, 'Black');
  t.same(pass.legalMoves, {}, 'a forced pass');
  t.same(pass.clocks, { white: 9000, black: 10_000 }, 'White: 10 s − 3 s + 2 s increment');
  const passed = (await tb.stream.next())!.TurnPlayed;
  t.same({ seat: passed.seat, moves: passed.moves, v: passed.v }, { seat: 'Black', moves: [], v: pass.v + 1 }, 'the server plays the pass at once');

  const r2 = await nextRoll(tb.stream);
  t.equal(r2.seat, 'White');
  t.same(r2.clocks, { white: 9000, black: 10_000 }, 'the pass cost Black nothing and earned no increment');
  tb.clock.advance(500);
  t.same(await liveClocks(tb), { white: 8500, black: 10_000 });
  await play(tb, tb.white, 2);
  t.same(await liveClocks(tb).then((c) => c.white), 10_500, 'White: 9 s − 0.5 s + 2 s');
});

t.test('PerMove: a fresh budget every turn; running out is a Timeout', async (t) => {
  const tb = await table(t, { PerMove: { secondsPerMove: 5 } }, movableAtStart, 3);
  const r0 = await nextRoll(tb.stream);
  t.same(r0.clocks, { white: 5000, black: 5000 });
  tb.clock.advance(4000);
  t.same(await liveClocks(tb), { white: 1000, black: 5000 });
  await play(tb, tb.white);
  const r1 = await nextRoll(tb.stream);
  t.same(r1.clocks, { white: 5000, black: 5000 }, 'the unused second does not carry over; Black starts fresh');
  tb.clock.advance(4999);
  t.same(await liveClocks(tb), { white: 5000, black: 1 });
  tb.clock.advance(1);
  const ended = (await tb.stream.until((e) => 'GameEnded' in e)).GameEnded;
  t.same(ended.over, { result: { Win: { side: 'White' } }, termination: 'Timeout' });
});

t.test('Unlimited: clocks null everywhere; a turn not played within 120 s ends the game by Timeout', async (t) => {
  const tb = await table(t, { Unlimited: {} }, movableAtStart, 3);
  const r0 = await nextRoll(tb.stream);
  t.equal(r0.clocks, null, 'DiceRolled: null');
  t.equal(await liveClocks(tb), null, 'state: null');
  t.equal((await tb.white.myGames())[0].clocks, null, 'GET /bot/games: null');
  t.equal(((await tb.app.req('GET', '/games')).json as Json).games[0].clocks, null, 'GET /games: null');
  tb.clock.advance(110_000);
  await play(tb, tb.white);
  const r1 = await nextRoll(tb.stream);
  t.equal(r1.clocks, null);
  tb.clock.advance(119_999);
  t.ok('Active' in (await gameState(tb.app, tb.gameId)).status, 'the cap counts per pending turn: White’s 110 s do not count against Black');
  tb.clock.advance(1);
  const ended = (await tb.stream.until((e) => 'GameEnded' in e)).GameEnded;
  t.same(ended.over, { result: { Win: { side: 'White' } }, termination: 'Timeout' }, 'Black abandoned the game');
  t.equal((await gameState(tb.app, tb.gameId)).clocks, null);
});
