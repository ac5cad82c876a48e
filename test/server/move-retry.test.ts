// A retried move over real HTTP (through the shard protocol, as every whole-service test runs): with
// `version`, a retry of an applied turn gets its verdict again (200, same version), different moves
// for that roll get 409, neither publishes anything or takes a version, and neither is ever judged
// against a later roll (also after the opponent moved); a version that is not the pending roll's is
// 409 without an event. Without `version`, the same moves sent again while the opponent is to move get
// the original verdict; anything else is judged as before (a Rejected event).
import t from 'tap';
import { bootApp } from '../helpers/app.js';
import { Bot } from '../helpers/bot.js';
import { movableAtStart } from '../helpers/dice.js';
import { kindOf, vOf, type Ev } from '../helpers/event-stream.js';
import { fullTree, gameState, pendingOrOver, seededGame } from '../helpers/games.js';
import { randomPath, type Tree } from '../helpers/play.js';
import { prng } from '../helpers/prng.js';

const NOT_YOUR_TURN = { applied: false, version: null, reason: 'not your turn' };
/** The opening roll waits for both seeds, so the test chooses the dice. */
const HOLD = { 'games.seedGraceMs': 600_000 };

/** Any leaf path of the pending tree other than `path` (or null when the tree has only one). */
function otherPath(tree: Tree, path: string[], random: () => number): string[] | null {
  for (let i = 0; i < 50; i++) {
    const p = randomPath(tree, random);
    if (p.join(' ') !== path.join(' ')) return p;
  }
  return null;
}

t.test('with a version: a retry is answered with the original verdict, publishes nothing, never lands on a later roll', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const watcher = await Bot.anon(app, 'watcher');
  // White, Black, then White again each have a real decision (a pawn can always use a 1 or a 2).
  const { gameId, state } = await seededGame(app, white, black, { want: movableAtStart, plies: 3 });
  const random = prng(11);
  const stream = await watcher.gameStream(gameId);
  const v0 = state.version as number;
  await stream.until((e) => (e.Snapshot?.v ?? -1) >= v0, 'the Snapshot at the pending roll');

  const tree = (await fullTree(app, gameId)).legalMoves;
  const path = randomPath(tree, random);
  const first = await white.req('POST', `/bot/game/${gameId}/move`, { moves: path, version: v0 });
  t.equal(first.status, 200, 'applied');
  t.same(first.json, { applied: true, version: v0 + 1, reason: null });

  const retry = await white.req('POST', `/bot/game/${gameId}/move`, { moves: path, version: v0 });
  t.equal(retry.status, 200, 'the retry gets the original verdict again');
  t.same(retry.json, first.json, '… with the same version');
  const other = otherPath(tree, path, random);
  if (other !== null) {
    const different = await white.req('POST', `/bot/game/${gameId}/move`, { moves: other, version: v0 });
    t.equal(different.status, 409, 'different moves for an answered roll');
    t.same(different.json, NOT_YOUR_TURN);
  }

  // Black answers its roll; White's next roll is pending: an old retry must not be judged against it.
  const blackRoll = await stream.until((e) => e.DiceRolled?.seat === 'Black', 'Black’s roll');
  const blackPath = randomPath(blackRoll.DiceRolled.legalMoves ?? (await fullTree(app, gameId)).legalMoves, random);
  const b = await black.req('POST', `/bot/game/${gameId}/move`, { moves: blackPath, version: vOf(blackRoll) });
  t.equal(b.status, 200, 'Black’s turn is applied');
  const whiteRoll = await stream.until((e) => e.DiceRolled?.seat === 'White', 'White’s second roll');
  const before = await gameState(app, gameId);
  t.equal(before.version, vOf(whiteRoll), 'White’s second roll is pending');

  const late = await white.req('POST', `/bot/game/${gameId}/move`, { moves: path, version: v0 });
  t.equal(late.status, 200, 'after the opponent moved, the retry still gets its original verdict');
  t.same(late.json, first.json);
  const future = await white.req('POST', `/bot/game/${gameId}/move`, { moves: path, version: (before.version as number) + 5 });
  t.equal(future.status, 409, 'a version the game has not reached');
  t.same(future.json, NOT_YOUR_TURN);
  const bBehind = await black.req('POST', `/bot/game/${gameId}/move`, { moves: blackPath, version: vOf(blackRoll) });
  t.same(bBehind.json, b.json, 'Black’s retry too');
  const after = await gameState(app, gameId);
  t.equal(after.version, before.version, 'no retry took a version');
  t.equal(after.activeSeat, 'White');
  t.equal(after.dicePending, true, 'White’s second roll is still pending, untouched');

  // The roll still takes White's real answer, given with its own version.
  const next = randomPath((await fullTree(app, gameId)).legalMoves, random);
  const real = await white.req('POST', `/bot/game/${gameId}/move`, { moves: next, version: vOf(whiteRoll) });
  t.equal(real.status, 200);
  t.same(real.json, { applied: true, version: vOf(whiteRoll) + 1, reason: null }, 'the next version is the very next one');

  t.equal((await white.resign(gameId)).status, 202);
  const rest: Ev[] = [...stream.seen];
  rest.push(...(await stream.rest()));
  t.same(rest.filter((e) => 'Rejected' in e), [], 'no Rejected event on the stream');
  const versions = rest.slice(1).map(vOf);
  t.same(versions, versions.map((_, i) => v0 + 1 + i), 'versions follow one another with no gap');
  t.same(rest.slice(1).map(kindOf).slice(0, 4), ['TurnPlayed', 'DiceRolled', 'TurnPlayed', 'DiceRolled']);
});

t.test('without a version: the same moves while the opponent is to move get the original verdict; other moves are refused as before', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const { gameId, state } = await seededGame(app, white, black);
  const random = prng(5);
  const stream = await black.gameStream(gameId);
  const v0 = state.version as number;
  await stream.until((e) => (e.Snapshot?.v ?? -1) >= v0, 'the Snapshot at the pending roll');
  const tree = (await fullTree(app, gameId)).legalMoves;
  const path = randomPath(tree, random);
  const first = await white.move(gameId, path);
  t.equal(first.status, 200);
  await stream.until((e) => e.DiceRolled?.seat === 'Black', 'Black’s roll');
  const again = await white.move(gameId, path);
  t.equal(again.status, 200, 'the same moves again: the original verdict');
  t.same(again.json, first.json);
  const other = otherPath(tree, path, random);
  if (other !== null) {
    const r = await white.move(gameId, other);
    t.equal(r.status, 409, 'other moves: not your turn, as before');
    t.same(r.json, NOT_YOUR_TURN);
    const ev = await stream.next();
    t.equal(ev?.Rejected?.seat, 'White', 'and a Rejected event, as before');
    t.equal(ev?.Rejected?.reason, 'not your turn');
  }
  t.equal((await white.resign(gameId)).status, 202);
  const rest = await stream.rest();
  t.equal(rest.filter((e) => 'Rejected' in e).length, 0, 'the repeat itself published nothing');
});
