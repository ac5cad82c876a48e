// Public reads over real HTTP: GET /games (live only, version descending, capped at 50, real total),
// GET /games/{id} for live and ended games (the reveal only after the end), GET /games/{id}/moves
// (the full tree, never capped, while inline copies are null above 1000 leaves) and /history.
import t from 'tap';
import { commitOf, hexToSeed } from '../../src/fair/index.js';
import { legalTree, parseDfen } from '../../src/engine/index.js';
import { bootApp } from '../helpers/app.js';
import { Bot, type Json } from '../helpers/bot.js';
import { sameMultiset } from '../helpers/dice.js';
import { kindOf } from '../helpers/event-stream.js';
import { directGame, fullTree, gameState, pendingOrOver, endedState, seedGame, seededGame } from '../helpers/games.js';
import { countLeaves, leafPaths, randomPath, type Tree } from '../helpers/play.js';
import { prng as rng } from '../helpers/prng.js';

const HOLD = { 'games.seedGraceMs': 600_000 };

t.test('GET /games: live games only, by version descending, at most 50, with the real total', async (t) => {
  const app = await bootApp(t);
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const ids: string[] = [];
  for (let i = 0; i < 55; i++) ids.push(await directGame(app, white, black, { timeControl: i % 2 ? { Unlimited: {} } : { PerMove: { secondsPerMove: 30 } } }));
  for (const id of ids) await pendingOrOver(app, id);
  // Spread the versions: refused moves from the seat not to move each add a Rejected event.
  for (let i = 0; i < ids.length; i++) {
    const s = await gameState(app, ids[i]);
    const idle = s.activeSeat === 'White' ? black : white;
    for (let k = 0; k < i % 7; k++) t.equal((await idle.move(ids[i], ['a7a6'])).status, 409);
  }
  const versions = new Map<string, number>();
  for (const id of ids) versions.set(id, (await gameState(app, id)).version);

  const r = await app.req('GET', '/games');
  t.equal(r.status, 200);
  const body = r.json as Json;
  t.equal(body.total, 55, 'total is the real count');
  t.equal(body.games.length, 50, 'capped at 50');
  const listed: number[] = body.games.map((g: Json) => g.version);
  t.same(listed, [...listed].sort((a, b) => b - a), 'sorted by version, descending');
  for (const g of body.games) {
    if (versions.get(g.gameId) !== g.version) t.fail(`${g.gameId}: listed version ${g.version}, actual ${versions.get(g.gameId)}`);
  }
  const omitted = ids.filter((id) => !body.games.some((g: Json) => g.gameId === id));
  t.equal(omitted.length, 5);
  t.ok(omitted.every((id) => versions.get(id)! <= Math.min(...listed)), 'the ones left out are the lowest versions');

  const top = body.games[0];
  const s = await gameState(app, top.gameId);
  t.same(Object.keys(top).sort(), ['activeSeat', 'clocks', 'dfen', 'dicePending', 'gameId', 'players', 'timeControl', 'version'], 'no tree in list entries');
  t.same(
    { players: top.players, timeControl: top.timeControl, activeSeat: top.activeSeat, dicePending: top.dicePending, clocks: top.clocks, version: top.version, dfen: top.dfen },
    { players: s.players, timeControl: s.timeControl, activeSeat: s.activeSeat, dicePending: s.dicePending, clocks: s.clocks, version: s.version, dfen: s.dfen },
    'an entry agrees with the game snapshot',
  );
  t.same(top.players, { white: { kind: 'Bot', name: `anon ${white.creds.name}` }, black: { kind: 'Bot', name: `anon ${black.creds.name}` } });
  if (top.dicePending) t.equal(top.dfen.split(' ').length, 7, 'a pending roll shows in the dfen');

  await white.resign(top.gameId);
  await endedState(app, top.gameId);
  const after = (await app.req('GET', '/games')).json as Json;
  t.equal(after.total, 54, 'an ended game leaves the list');
  t.notOk(after.games.some((g: Json) => g.gameId === top.gameId));
  t.equal(after.games.length, 50);
});

t.test('GET /games/{id}: live without the reveal; ended with seed, client seeds and the result', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await white.playAgainst(black, { SuddenDeath: { initialSeconds: 120 } });

  const before = await gameState(app, gameId);
  t.same(before.status, { Active: {} });
  t.equal(before.version, 0);
  t.equal(before.dicePending, false, 'no roll before the seeds');
  t.equal(before.dfen, 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'six fields without dice');
  t.equal(before.legalMoves, null);
  t.same(before.clocks, { white: 120_000, black: 120_000 });
  t.match(before.commit, /^[0-9a-f]{64}$/);
  t.equal(before.seed, null);
  t.equal(before.clientSeeds, null);
  const m0 = await fullTree(app, gameId);
  t.same(m0, { version: 0, dfen: before.dfen, dicePending: false, legalMoves: {} }, 'no roll: an empty tree');

  await white.seed(gameId, 'white-seed-for-discovery');
  await black.seed(gameId, 'black-seed-for-discovery');
  const live = await pendingOrOver(app, gameId);
  t.equal(live.commit, before.commit, 'the commitment is constant');
  t.equal(live.seed, null, 'no reveal while the game runs');
  t.equal(live.clientSeeds, null, 'client seeds are not revealed while the game runs');
  if (live.dicePending) {
    t.equal(live.dfen.split(' ').length, 7, 'the pending dice are the 7th field');
    const m = await fullTree(app, gameId);
    t.equal(m.version, live.version);
    t.equal(m.dfen, live.dfen);
    t.same(live.legalMoves, countLeaves(m.legalMoves) > 1000 ? null : m.legalMoves, 'the inline tree is the full one under the cap');
  }

  await black.resign(gameId);
  const ended = await endedState(app, gameId);
  t.same(ended.status, { Ended: { over: { result: { Win: { side: 'White' } }, termination: 'Resign' } } });
  t.equal(ended.dicePending, false);
  t.equal(ended.legalMoves, null);
  t.equal(ended.dfen.split(' ').length, 6, 'no dice field once over');
  t.match(ended.seed, /^[0-9a-f]{64}$/, 'the seed is revealed');
  t.equal(commitOf(hexToSeed(ended.seed)!), ended.commit, 'commit = SHA-256(seed)');
  t.same(ended.clientSeeds, { white: 'white-seed-for-discovery', black: 'black-seed-for-discovery' });
  t.ok(ended.clocks.white <= 120_000 && ended.clocks.black === 120_000, 'clocks frozen');
  t.same(await fullTree(app, gameId), { version: ended.version, dfen: ended.dfen, dicePending: false, legalMoves: {} }, 'ended: empty tree');
  const again = await gameState(app, gameId);
  t.same(again, ended, 'an ended game reads the same every time');

  for (const path of ['/games/no-such-game', '/games/no-such-game/moves', '/games/no-such-game/history']) {
    const r = await app.req('GET', path);
    t.equal(r.status, 404, path);
    t.equal((r.json as Json).code, 'unknown_game');
  }
});

t.test('GET /games/{id}/moves: the full tree above 1000 leaves while every inline copy is null', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  // In the start position three pawn dice give 3376 leaves, two pawns and a knight 2540, a pawn and two knights 1082.
  const big = (d: number[]) => [[1, 1, 1], [1, 1, 2], [1, 2, 2]].some((x) => sameMultiset(x, d));
  const gameId = await white.playAgainst(black);
  const stream = await black.gameStream(gameId);
  t.equal(kindOf((await stream.next())!), 'Snapshot');
  await seedGame(app, gameId, white, black, big);
  const rolled = (await stream.next())!.DiceRolled;
  t.ok(rolled, 'the opening roll');
  t.ok(big(rolled.dice), `the chosen dice ${rolled.dice}`);
  t.equal(rolled.legalMoves, null, 'DiceRolled: null over the inline cap');
  const state = await gameState(app, gameId);
  t.equal(state.legalMoves, null, 'GET /games/{id}: null over the inline cap');
  t.equal(state.dfen, rolled.dfen);
  const late = await white.gameStream(gameId);
  const snap = (await late.next())!.Snapshot;
  t.equal(snap.state.legalMoves, null, 'Snapshot state: null over the inline cap');
  t.equal(snap.state.dicePending, true);
  late.close();

  const m = await fullTree(app, gameId);
  t.equal(m.version, rolled.v, 'the tree is tied to the roll by version');
  t.equal(m.dfen, rolled.dfen, 'and by dfen');
  t.equal(m.dicePending, true);
  const leaves = countLeaves(m.legalMoves);
  const pos = parseDfen(rolled.dfen);
  if (!pos.ok) throw new Error(pos.error.message);
  const engine = legalTree(pos.value).leaves;
  t.ok(leaves > 1000, `more than 1000 leaves (${leaves})`);
  t.equal(leaves, engine, 'every leaf of the roll is there: never capped');
  const paths = leafPaths(m.legalMoves);
  t.equal(new Set(paths.map((p) => p.join(' '))).size, paths.length, 'no path twice');
  t.ok(paths.every((p) => p.length === 3), 'each turn spends all three dice (nothing is captured from the start)');

  const path = randomPath(m.legalMoves, rng(11));
  const r = await white.move(gameId, path);
  t.equal(r.status, 200, 'a path of the full tree is a legal turn');
  const played = (await stream.next())!.TurnPlayed;
  t.same(played.moves, path);
  t.equal(played.v, (r.json as Json).version);
  stream.close();
});

t.test('GET /games/{id}/history: the transcript of a live and of an ended game', async (t) => {
  const app = await bootApp(t, { overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const { gameId } = await seededGame(app, white, black, { timeControl: { Fischer: { initialSeconds: 60, incrementSeconds: 1 } } });
  const stream = await white.gameStream(gameId);
  const random = rng(21);
  const played: Json[] = [];
  const empty = (await app.req('GET', `/games/${gameId}/history`)).json as Json;
  t.same(empty.history, [], 'no completed turn yet');
  // Six turns (forced passes included, they are history too).
  while (played.length < 6) {
    const ev = (await stream.next())!;
    if (ev.TurnPlayed) played.push(ev.TurnPlayed);
    const roll = ev.DiceRolled ?? (ev.Snapshot?.state.dicePending ? { seat: ev.Snapshot.state.activeSeat } : null);
    if (!roll) continue;
    const m = await fullTree(app, gameId);
    if (!m.dicePending || Object.keys(m.legalMoves).length === 0) continue;
    const mover = m.dfen.split(' ')[1] === 'w' ? white : black;
    t.equal((await mover.move(gameId, randomPath(m.legalMoves as Tree, random))).status, 200);
  }
  const live = await app.req('GET', `/games/${gameId}/history`);
  t.equal(live.status, 200);
  const h = live.json as Json;
  const s = await gameState(app, gameId);
  t.same(
    { gameId: h.gameId, players: h.players, timeControl: h.timeControl, commit: h.commit, seed: h.seed, clientSeeds: h.clientSeeds, status: h.status },
    { gameId, players: s.players, timeControl: { Fischer: { initialSeconds: 60, incrementSeconds: 1 } }, commit: s.commit, seed: null, clientSeeds: null, status: { Active: {} } },
  );
  t.ok(h.history.length >= 6);
  t.same(h.history.slice(0, 6).map((e: Json) => [e.seat, e.moves, e.fenAfter]), played.map((p) => [p.seat, p.moves, p.fenAfter]), 'history = the TurnPlayed events');
  for (const e of h.history) t.equal(e.dice.length, 3, 'each entry has its roll');

  await white.resign(gameId);
  await endedState(app, gameId);
  const ended = (await app.req('GET', `/games/${gameId}/history`)).json as Json;
  t.match(ended.seed, /^[0-9a-f]{64}$/, 'the reveal appears after the end');
  t.same(ended.status, { Ended: { over: { result: { Win: { side: 'Black' } }, termination: 'Resign' } } });
  t.same(ended.history.slice(0, h.history.length), h.history, 'the transcript is kept');
  t.equal(ended.history.at(-1).fenAfter, (await gameState(app, gameId)).dfen, 'the last entry ends where the game stands');
  stream.close();
});
