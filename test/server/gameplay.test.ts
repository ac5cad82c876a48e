// Gameplay routes over real HTTP: seeds (valid, duplicate, late, malformed → Rejected, grace
// fallback), moves (200 with the TurnPlayed version, 409 with the exact verdict bodies, 202 when the
// verdict is late, 400 for bad bodies), resign (also after the end), 403/404, and GET /bot/games.
import t from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { bootApp } from '../helpers/app.js';
import { Bot, type Json } from '../helpers/bot.js';
import { diceOf } from '../helpers/dice.js';
import { kindOf } from '../helpers/event-stream.js';
import { directGame, endedState, seedGame, fullTree, gameState, pendingOrOver, seededGame } from '../helpers/games.js';
import { GatedStore } from '../helpers/gated-store.js';
import { randomPath, someNonLeaf, type Tree } from '../helpers/play.js';
import { prng as rng } from '../helpers/prng.js';

const NOT_YOUR_TURN = { applied: false, version: null, reason: 'not your turn' };
const ILLEGAL_TURN = { applied: false, version: null, reason: 'illegal turn' };
const GAME_OVER = { applied: false, version: null, reason: 'game is over' };
const SEED_REASON = 'seed must be 16..256 characters';
/** The opening roll waits for both seeds, so a test can choose the dice. */
const HOLD = { 'games.seedGraceMs': 600_000 };

t.test('seeds: 202 always; the first valid seed per seat is used; malformed ones surface as Rejected', async (t) => {
  const app = await bootApp(t, { overrides: { 'games.seedGraceMs': 60_000 } });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const watcher = await Bot.anon(app, 'watcher');
  const gameId = await white.playAgainst(black);
  const stream = await watcher.gameStream(gameId); // any authenticated caller may watch
  const snap = await stream.next();
  t.equal(snap?.Snapshot?.v, 0, 'nothing has happened yet');
  t.equal(snap?.Snapshot?.state.dicePending, false, 'no roll before the seeds (or the grace) are in');

  const malformed: [string, unknown][] = [
    ['too short', 'short-seed'],
    ['too long', 's'.repeat(257)],
    ['not a string', 1234567890123456789],
    ['null', null],
  ];
  let v = 0;
  for (const [what, seed] of malformed) {
    const r = await white.seed(gameId, seed);
    t.equal(r.status, 202, `a malformed seed (${what}) still answers 202`);
    t.same(r.json, {});
    const ev = await stream.next();
    t.same(ev, { Rejected: { v: ++v, seat: 'White', reason: SEED_REASON } }, `… and surfaces as Rejected (${what})`);
  }
  const noField = await white.req('POST', `/bot/game/${gameId}/seed`, { other: 'x' });
  t.equal(noField.status, 202, 'a body without `seed`');
  t.same(await stream.next(), { Rejected: { v: ++v, seat: 'White', reason: SEED_REASON } });
  const notJson = await app.req('POST', `/bot/game/${gameId}/seed`, { token: white.token, body: 'seed=abc', headers: { 'content-type': 'application/json' } });
  t.equal(notJson.status, 400, 'a body that is not JSON at all is 400');

  const W1 = 'white-seed-number-one-0001';
  const B1 = 'b'.repeat(256);
  t.equal((await white.seed(gameId, W1)).status, 202, 'a valid seed');
  t.equal((await white.seed(gameId, 'white-seed-number-two-0002')).status, 202, 'a duplicate seed is ignored with 202');
  t.equal((await black.seed(gameId, 'x'.repeat(16))).status, 202, 'black: 16 characters is the minimum…');
  const rolled = await stream.next();
  t.equal(kindOf(rolled!), 'DiceRolled', 'both seats seeded: the opening roll comes at once, without the grace');
  t.equal(rolled!.DiceRolled.v, v + 1);
  t.equal((await black.seed(gameId, B1)).status, 202, 'a late seed is ignored with 202');

  t.equal((await watcher.seed(gameId, 'watcher-seed-0000000')).status, 403, 'not seated');
  t.equal((await white.seed('no-such-game', W1)).status, 404, 'unknown game');
  t.equal((await app.req('POST', `/bot/game/${gameId}/seed`, { body: { seed: W1 } })).status, 401, 'no token');

  t.equal((await white.resign(gameId)).status, 202);
  const ended = await stream.until((e) => 'GameEnded' in e, 'GameEnded');
  t.same(ended.GameEnded.clientSeeds, { white: W1, black: 'x'.repeat(16) }, 'the first valid seed of each seat is revealed');
  const seed = ended.GameEnded.seed as string;
  t.same(rolled!.DiceRolled.dice, diceOf(seed, W1, 'x'.repeat(16), 0), 'and it is the one the opening roll used');
  t.equal((await white.seed(gameId, W1)).status, 202, 'a seed after the end: 202, ignored');
});

t.test('a move before the opening roll is not your turn, for either seat', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await white.playAgainst(black);
  const stream = await white.gameStream(gameId);
  t.equal((await stream.next())?.Snapshot?.v, 0);
  for (const [bot, seat] of [[white, 'White'], [black, 'Black']] as const) {
    const r = await bot.move(gameId, ['e2e4']);
    t.equal(r.status, 409, `${seat} before any roll`);
    t.same(r.json, NOT_YOUR_TURN);
    t.same((await stream.next())?.Rejected, { v: seat === 'White' ? 1 : 2, seat, reason: 'not your turn' });
  }
  t.equal((await gameState(app, gameId)).dicePending, false, 'still waiting for seeds');
});

t.test('seed grace: with one seed the roll waits for the grace; the silent seat falls back to its id', async (t) => {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock, overrides: { 'games.seedGraceMs': 3000 } });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await white.playAgainst(black);
  const stream = await white.gameStream(gameId);
  t.equal((await stream.next())?.Snapshot?.state.dicePending, false);
  await white.seed(gameId, 'only-white-seeded-000');
  clock.advance(2999);
  t.equal((await gameState(app, gameId)).dicePending, false, 'no roll before the grace is over');
  clock.advance(1);
  const rolled = await stream.next();
  t.equal(kindOf(rolled!), 'DiceRolled', 'the grace is over: the opening roll');
  await white.resign(gameId);
  const ended = (await stream.until((e) => 'GameEnded' in e)).GameEnded;
  t.same(ended.clientSeeds, { white: 'only-white-seeded-000', black: black.id }, 'the external id stands in for the missing seed');
  t.same(rolled!.DiceRolled.dice, diceOf(ended.seed, 'only-white-seeded-000', black.id, 0));
});

t.test('moves: 200 with the TurnPlayed version, 409 with the exact verdict bodies, Rejected events, 400/403/404', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const other = await Bot.anon(app, 'other');
  const { gameId } = await seededGame(app, white, black);
  const stream = await other.gameStream(gameId);
  const random = rng(7);
  let state = await pendingOrOver(app, gameId);
  t.equal(state.activeSeat, 'White', 'White moves first');
  let v = state.version;
  await stream.until((e) => (e.Snapshot?.v ?? e.DiceRolled?.v ?? -1) >= v, 'the pending roll on the stream');

  const notYours = await black.move(gameId, ['e7e5']);
  t.equal(notYours.status, 409, 'Black moves while White is to move');
  t.same(notYours.json, NOT_YOUR_TURN, 'exact verdict body');
  t.same(await stream.next(), { Rejected: { v: ++v, seat: 'Black', reason: 'not your turn' } });

  const tree = (await fullTree(app, gameId)).legalMoves as Tree;
  const illegal: [string, unknown[]][] = [
    ['a proper prefix or an over-long path', someNonLeaf(tree)],
    ['garbage', ['zz']],
    ['upper-case squares', randomPath(tree, random).map((m) => m.toUpperCase())],
    ['no moves on a real roll', []],
    ['too many moves', ['a2a3', 'a3a4', 'b2b3', 'b3b4']],
  ];
  for (const [what, moves] of illegal) {
    const r = await white.move(gameId, moves);
    t.equal(r.status, 409, what);
    t.same(r.json, ILLEGAL_TURN, `${what}: exact verdict body`);
    const ev = await stream.next();
    t.equal(ev?.Rejected?.v, ++v, `${what}: Rejected takes the next version`);
    t.equal(ev?.Rejected?.seat, 'White');
    t.match(ev?.Rejected?.reason, /^illegal turn: /, `${what}: reason names the moves (${ev?.Rejected?.reason})`);
    if (what === 'garbage') t.equal(ev?.Rejected?.reason, 'illegal turn: zz', 'the reason is the submitted moves');
  }

  const path = randomPath(tree, random);
  const ok = await white.move(gameId, path);
  t.equal(ok.status, 200);
  t.same(ok.json, { applied: true, version: v + 1, reason: null }, 'applied; version is that of the TurnPlayed');
  const played = await stream.next();
  t.equal(played?.TurnPlayed?.v, v + 1, 'the TurnPlayed version equals the verdict version');
  t.same(played?.TurnPlayed?.moves, path);
  t.equal(played?.TurnPlayed?.seat, 'White');
  const again = await white.move(gameId, path);
  t.equal(again.status, 200, 'White sends the same turn again, right after it: the original verdict (a retry)');
  t.same(again.json, ok.json);
  const otherTurn = await white.move(gameId, ['h2h3', 'h3h4', 'a2a3']);
  t.equal(otherTurn.status, 409, 'White again with other moves, right after its turn');
  t.same(otherTurn.json, NOT_YOUR_TURN);

  const badBodies: [unknown, string][] = [
    [{ moves: 'e2e4' }, 'moves'],
    [{ moves: [1, 2] }, 'moves'],
    [{}, 'moves'],
    [{ moves: ['e2e4e5e6e7'] }, 'moves'],
  ];
  for (const [body, field] of badBodies) {
    const r = await white.req('POST', `/bot/game/${gameId}/move`, body);
    t.equal(r.status, 400, `400 for ${JSON.stringify(body)}`);
    t.match((r.json as Json).detail, field, `detail names ${field}: ${(r.json as Json).detail}`);
  }
  t.equal((await white.req('POST', `/bot/game/${gameId}/move`)).status, 400, 'no body at all');
  const notYoursGame = await other.move(gameId, path);
  t.equal(notYoursGame.status, 403, 'not seated');
  t.equal((notYoursGame.json as Json).code, 'not_seated');
  t.equal((await white.move('no-such-game', path)).status, 404, 'unknown game');

  state = await gameState(app, gameId);
  t.equal(state.activeSeat, 'Black', 'only the applied turn changed the game');
});

t.test('resign: 202 {}, GameEnded Resign for the other side; also 202 after the end; moves then 409 game is over', async (t) => {
  const app = await bootApp(t);
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const other = await Bot.anon(app, 'other');
  const gameId = await white.playAgainst(black);
  const stream = await white.gameStream(gameId);
  await pendingOrOver(app, gameId);
  t.equal((await other.resign(gameId)).status, 403, 'a bot that is not seated cannot resign');
  t.equal((await black.resign('no-such-game')).status, 404, 'unknown game');
  const r = await black.resign(gameId);
  t.equal(r.status, 202);
  t.same(r.json, {});
  const ended = await stream.until((e) => 'GameEnded' in e, 'GameEnded');
  t.same(ended.GameEnded.over, { result: { Win: { side: 'White' } }, termination: 'Resign' }, 'Black resigned: White wins');
  t.equal(await stream.next(), undefined, 'the stream closes after GameEnded');
  const after = await white.resign(gameId);
  t.equal(after.status, 202, 'resigning an ended game is still 202');
  t.same(after.json, {});
  const state = await gameState(app, gameId);
  t.same(state.status, { Ended: { over: { result: { Win: { side: 'White' } }, termination: 'Resign' } } }, 'the result did not change');
  t.equal(state.version, ended.GameEnded.v, 'nothing happened after the end');
  for (const who of [white, black]) {
    const m = await who.move(gameId, ['e2e4']);
    t.equal(m.status, 409, 'a move after the end');
    t.same(m.json, GAME_OVER, 'exact verdict body');
  }
  t.equal((await other.move(gameId, ['e2e4'])).status, 403, 'still 403 for a bot that is not seated');
});

t.test('GET /bot/games lists exactly the live games the caller is seated in, with its seat', async (t) => {
  const app = await bootApp(t);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const carol = await Bot.anon(app, 'carol');
  t.same(await alice.myGames(), [], 'none at first');
  const g1 = await alice.playAgainst(bob, { SuddenDeath: { initialSeconds: 60 } }); // alice White
  const g2 = await bob.playAgainst(alice); // alice Black
  const g3 = await bob.playAgainst(carol); // not alice's
  await Promise.all([g1, g2, g3].map((g) => pendingOrOver(app, g)));
  const mine = await alice.myGames();
  t.same(mine.map((g) => [g.gameId, g.seat]).sort(), [[g1, 'White'], [g2, 'Black']].sort());
  for (const g of mine) {
    const s = await gameState(app, g.gameId);
    t.same(
      { activeSeat: g.activeSeat, dicePending: g.dicePending, timeControl: g.timeControl, version: g.version },
      { activeSeat: s.activeSeat, dicePending: s.dicePending, timeControl: s.timeControl, version: s.version },
      'entry agrees with the public snapshot',
    );
    if (g.gameId === g1) t.same(g.clocks, { white: 60_000, black: 60_000 }, 'timed game: clocks');
    else t.equal(g.clocks, null, 'Unlimited: clocks null');
  }
  t.same((await carol.myGames()).map((g) => [g.gameId, g.seat]), [[g3, 'Black']]);
  await alice.resign(g1);
  await endedState(app, g1);
  t.same((await alice.myGames()).map((g) => g.gameId), [g2], 'an ended game is no longer listed');
  t.same((await bob.myGames()).map((g) => g.gameId).sort(), [g2, g3].sort());
});

t.test('move 202: when the verdict takes longer than the wait, 202 {} and the stream tells', async (t) => {
  const store = new GatedStore();
  const app = await bootApp(t, { store, overrides: HOLD });
  const clock = app.clock as ManualClock;
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const { gameId, state } = await seededGame(app, white, black);
  const stream = await black.gameStream(gameId);
  t.equal((await stream.next())?.Snapshot?.v, state.version);
  const path = randomPath((await fullTree(app, gameId)).legalMoves, rng(3));

  store.hold(); // the actor's next write waits: no verdict can come
  const pending = white.move(gameId, path);
  await store.blocked();
  clock.advance(2999);
  clock.advance(1); // games.verdictWaitMs = 3000
  const r = await pending;
  t.equal(r.status, 202, 'no verdict within the wait');
  t.same(r.json, {});
  store.release();
  const played = await stream.next();
  t.same(played, { TurnPlayed: { v: state.version + 1, seat: 'White', moves: path, fenAfter: played?.TurnPlayed?.fenAfter } }, 'the turn was applied after all');
  t.equal((await pendingOrOver(app, gameId)).activeSeat, 'Black');
});

t.test('a flooded game answers move requests with a status the contract declares', async (t) => {
  // The actor's mailbox is bounded; a request that finds it full gets 'busy'. Whatever the edge
  // answers then must be a status the OpenAPI document declares for the route (checked at teardown).
  const store = new GatedStore();
  const app = await bootApp(t, { store, overrides: { ...HOLD, 'games.mailboxSize': 2 } });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const { gameId } = await seededGame(app, white, black);
  const path = randomPath((await fullTree(app, gameId)).legalMoves, rng(5));
  store.hold();
  const first = white.move(gameId, path);
  await store.blocked();
  // Two more at once: the mailbox holds two, so whichever reaches the game last is turned away (on
  // separate connections, and with several edge threads, either may arrive first).
  const later = [white.move(gameId, path), white.move(gameId, path)];
  const turnedAway = await Promise.race(later.map((p, i) => p.then(() => i)));
  const third = await later[turnedAway];
  t.not(third.status, 200, 'the request that found the mailbox full cannot have been applied');
  t.ok([202, 409, 429].includes(third.status), `answered ${third.status}`);
  store.release();
  const f = await first;
  t.equal(f.status, 200, 'the first move is applied');
  const s2 = await later[1 - turnedAway];
  t.equal(s2.status, 200, 'the other, the same moves, is a retry of the applied one: the same verdict');
  t.same(s2.json, f.json);
});

t.test('promotions need their suffix; a pawn capturing the king on the last rank has none', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await directGame(app, white, black, { startFen: '4k3/3P4/8/8/8/8/8/K7 w - - 0 1' });
  // Three pawn dice: one promotes, the other two have no pawn left, so every promotion spends the
  // most dice possible (with a piece die to spare only the promotion that can use it would be legal).
  await seedGame(app, gameId, white, black, (d) => d.every((x) => x === 1));
  const state = await pendingOrOver(app, gameId);
  const tree = state.legalMoves as Tree;
  t.same(tree.d7e8, {}, 'd7e8 takes the king: a complete turn, no suffix');
  t.ok(['d7d8q', 'd7d8r', 'd7d8b', 'd7d8n'].every((m) => m in tree), 'four promotions');
  t.notOk('d7d8' in tree || 'd7e8q' in tree, 'no bare promotion, no suffixed king capture');
  for (const bad of [['d7d8'], ['d7e8q']]) {
    const r = await white.move(gameId, bad);
    t.same(r.json, ILLEGAL_TURN, `${bad} is an illegal turn`);
  }
  const r = await white.move(gameId, ['d7e8']);
  t.same(r.json, { applied: true, version: state.version + 3, reason: null }, 'two Rejected events, then the turn');
  const ended = await endedState(app, gameId);
  t.same(ended.status, { Ended: { over: { result: { Win: { side: 'White' } }, termination: 'KingCaptured' } } });
});
