// Whole games end to end over real HTTP: two bots by streams (on the real worker pool), two bots by
// polling only, a bot against each built-in house bot, and one game for each termination
// (KingCaptured, Resign, Timeout, Draw). Every game is audited: each roll recomputed from the
// revealed seeds against every DiceRolled and history entry, commit = SHA-256(seed), versions +1,
// and every verdict's version equal to its TurnPlayed `v`.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/domain/clock.js';
import { capturedBy, legalTree, parseDfen, treeToObject } from '../../src/engine/index.js';
import { commitOf } from '../../src/fair/index.js';
import { bootApp, type TestApp } from '../helpers/app.js';
import { Bot, type Json } from '../helpers/bot.js';
import { kindOf, vOf, type Ev } from '../helpers/event-stream.js';
import { directGame, endedState, fullTree, gameState, seedGame } from '../helpers/games.js';
import { leafPaths, randomPath, type Tree } from '../helpers/play.js';
import { until } from '../helpers/poll.js';
import { prng as rng } from '../helpers/prng.js';
import { auditLog, halfmoveOf, versionGaps } from '../helpers/audit.js';

const HOLD = { 'games.seedGraceMs': 600_000 };

interface Played {
  events: Ev[];
  /** verdict version → the moves submitted */
  verdicts: Map<number, string[]>;
}

/** A bot that plays its seat from the game stream until GameEnded; returns what it saw. */
async function playByStream(app: TestApp, bot: Bot, gameId: string, seat: 'White' | 'Black', random: () => number): Promise<Played> {
  const stream = await bot.gameStream(gameId);
  const events: Ev[] = [];
  const verdicts = new Map<number, string[]>();
  const act = async (v: number, inline: Tree | null): Promise<void> => {
    let tree = inline;
    if (tree === null) {
      const m = await fullTree(app, gameId);
      if (m.version !== v) throw new Error(`the full tree answers v${m.version}, the roll was v${v}`);
      tree = m.legalMoves;
    }
    if (Object.keys(tree).length === 0) return; // forced pass: nothing to submit
    const path = randomPath(tree, random);
    const r = await bot.move(gameId, path);
    if (r.status !== 200) throw new Error(`${seat}: move ${path} answered ${r.status} ${r.text}`);
    verdicts.set((r.json as Json).version, path);
  };
  for (let ev = await stream.next(); ev; ev = await stream.next()) {
    events.push(ev);
    const s = ev.Snapshot?.state;
    if (s && 'Active' in s.status && s.dicePending && s.activeSeat === seat) await act(s.version, s.legalMoves);
    if (ev.DiceRolled?.seat === seat) await act(ev.DiceRolled.v, ev.DiceRolled.legalMoves);
  }
  return { events, verdicts };
}

/** Checks a finished game against everything it published. */
async function audit(t: Test, app: TestApp, gameId: string, events: Ev[], verdicts: Map<number, string[]>[] = []): Promise<Json> {
  const state = await gameState(app, gameId);
  const hist = ((await app.req('GET', `/games/${gameId}/history`)).json as Json).history;
  t.same(auditLog(events, hist, state.commit, commitOf), [], 'dice recomputed from the reveal match every DiceRolled and history entry; commit = SHA-256(seed)');
  t.same(versionGaps(events), [], 'versions strictly +1');
  t.equal(kindOf(events.at(-1)!), 'GameEnded', 'the stream ended with GameEnded');
  const turns = new Map(events.filter((e) => e.TurnPlayed).map((e) => [e.TurnPlayed.v, e.TurnPlayed.moves]));
  let checked = 0;
  for (const byBot of verdicts) {
    for (const [v, moves] of byBot) {
      if (JSON.stringify(turns.get(v)) !== JSON.stringify(moves)) t.fail(`verdict v${v} (${moves}) has no matching TurnPlayed (${turns.get(v)})`);
      checked++;
    }
  }
  if (verdicts.length) t.ok(checked > 0, `every verdict version is its TurnPlayed v (${checked} verdicts)`);
  t.same(
    hist.map((h: Json) => [h.seat, h.moves, h.fenAfter]),
    [
      ...(events[0].Snapshot?.history ?? []).map((h: Json) => [h.seat, h.moves, h.fenAfter]),
      ...events.filter((e) => e.TurnPlayed).map((e) => [e.TurnPlayed.seat, e.TurnPlayed.moves, e.TurnPlayed.fenAfter]),
    ],
    'the history is the Snapshot’s history followed by the TurnPlayed events',
  );
  t.same(state.status, { Ended: { over: events.at(-1)!.GameEnded.over } }, 'the public state shows the same result');
  return events.at(-1)!.GameEnded;
}


t.test('two bots play a whole game from their streams, on real shard worker threads', async (t) => {
  const app = await bootApp(t, { rules: 'workers' });
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  const aliceAcct = await alice.accountStream();
  const bobAcct = await bob.accountStream();
  const c = await alice.challenge({ team: bob.creds.team, name: bob.creds.name });
  t.equal(c.status, 201);
  const received = await bobAcct.next();
  t.equal(received?.ChallengeReceived?.id, (c.json as Json).id, 'bob hears of the challenge on its stream');
  t.equal((await bob.accept(received!.ChallengeReceived.id)).status, 201);
  const gameId = (await aliceAcct.next())!.GameStart.gameId;
  t.equal((await bobAcct.next())!.GameStart.gameId, gameId, 'both learn the game from GameStart');
  const [w, b] = await Promise.all([
    playByStream(app, alice, gameId, 'White', rng(1)),
    playByStream(app, bob, gameId, 'Black', rng(2)),
  ]);
  t.ok(w.verdicts.size > 0 && b.verdicts.size > 0, `both played (${w.verdicts.size} + ${b.verdicts.size} turns)`);
  const from = Math.max(w.events[0].Snapshot.v, b.events[0].Snapshot.v);
  const after = (evs: Ev[]) => evs.slice(1).filter((e) => vOf(e) > from).map((e) => JSON.stringify(e));
  t.same(after(w.events), after(b.events), 'both streams carried the same events');
  t.ok(after(w.events).length > 10);
  const ended = await audit(t, app, gameId, w.events, [w.verdicts, b.verdicts]);
  t.ok(['KingCaptured', 'Draw'].includes(ended.over.termination), `a natural end: ${ended.over.termination}`);
  t.same(await alice.myGames(), []);
  aliceAcct.close();
  bobAcct.close();
});

t.test('two bots play a whole game by polling only (challenges, games, snapshot, moves)', async (t) => {
  const app = await bootApp(t);
  const alice = await Bot.anon(app, 'alice');
  const bob = await Bot.anon(app, 'bob');
  t.equal((await alice.challenge({ team: bob.creds.team, name: bob.creds.name })).status, 201);
  const pending = ((await bob.req('GET', '/bot/challenges')).json as Json).in;
  t.equal(pending.length, 1, 'bob finds the challenge by polling');
  const gameId = ((await bob.accept(pending[0].id)).json as Json).gameId;
  const random = rng(3);
  const versions: { v: number; moves: string[] }[] = [];
  let polls = 0;
  for (; polls < 20_000; polls++) {
    let live = 0;
    for (const bot of [alice, bob]) {
      const mine = await bot.myGames();
      live += mine.length;
      for (const g of mine) {
        if (g.seat !== g.activeSeat || !g.dicePending) continue;
        const s = await gameState(app, g.gameId);
        t.equal(s.version, g.version, 'the snapshot agrees with the list');
        const m = await fullTree(app, g.gameId);
        if (m.version !== g.version) t.fail('the tree answers another roll');
        if (s.legalMoves !== null && JSON.stringify(s.legalMoves) !== JSON.stringify(m.legalMoves)) t.fail('inline tree differs from /moves');
        const path = randomPath(m.legalMoves, random);
        const r = await bot.move(g.gameId, path);
        if (r.status !== 200) t.fail(`move answered ${r.status}`);
        versions.push({ v: (r.json as Json).version, moves: path });
      }
    }
    if (live === 0) break;
  }
  t.ok(polls < 20_000, `the game ended (${versions.length} turns)`);
  const state = await gameState(app, gameId);
  t.ok('Ended' in state.status, 'ended');
  const hist = ((await app.req('GET', `/games/${gameId}/history`)).json as Json).history;
  const played = hist.filter((h: Json) => h.moves.length > 0).map((h: Json) => h.moves);
  t.same(played, versions.map((x) => x.moves), 'the history holds exactly the submitted turns, in order');
  // A poll-only bot can audit from the history alone: replay a stream-less log.
  const stream = await alice.gameStream(gameId);
  const tail = await stream.rest();
  t.same(tail.map(kindOf), ['Snapshot', 'GameEnded']);
  const events: Ev[] = hist.map((h: Json) => ({ DiceRolled: { dice: h.dice } }));
  events.push(tail[1]);
  t.same(auditLog(events, hist, state.commit, commitOf), [], 'the rolls recomputed from the reveal');
});

for (const house of ['random', 'greedy'] as const) {
  t.test(`a bot plays a whole game against house/${house}`, async (t) => {
    const app = await bootApp(t);
    const bot = await Bot.anon(app, 'player');
    const acct = await bot.accountStream();
    t.equal((await bot.challenge({ team: 'house', name: house })).status, 201);
    const gameId = (await acct.next())!.GameStart.gameId;
    const mine = await bot.myGames();
    t.same(mine.map((g) => [g.gameId, g.seat]), [[gameId, 'White']]);
    const { events, verdicts } = await playByStream(app, bot, gameId, 'White', rng(house === 'random' ? 4 : 5));
    const houseTurns = events.filter((e) => e.TurnPlayed?.seat === 'Black' && e.TurnPlayed.moves.length > 0).length;
    t.ok(houseTurns > 0, `house/${house} played (${houseTurns} turns)`);
    if (house === 'greedy') {
      // Greedy takes the king whenever it can: after any Black roll that offers it, the game ends there.
      for (let i = 0; i < events.length; i++) {
        const r = events[i].DiceRolled;
        if (!r || r.seat !== 'Black') continue;
        const pos = parseDfen(r.dfen);
        if (!pos.ok) throw new Error(pos.error.message);
        const paths = leafPaths(treeToObject(legalTree(pos.value).bytes) as Tree);
        if (paths.some((p) => capturedBy(pos.value, p).includes(6))) {
          t.equal(events[i + 2]?.GameEnded?.over.termination, 'KingCaptured', 'greedy took the king when offered');
          t.same(events[i + 2]?.GameEnded?.over.result, { Win: { side: 'Black' } });
        }
      }
    }
    await audit(t, app, gameId, events, [verdicts]);
    acct.close();
  });
}

/** A direct game from a chosen position, its rolls chosen through the seeds; watched by White. */
async function setUp(t: Test, startFen: string, want: (d: number[], ply: number) => boolean, plies: number, timeControl?: Json) {
  const clock = new ManualClock(undefined, { runDueTimers: true });
  const app = await bootApp(t, { clock, overrides: HOLD });
  const white = await Bot.anon(app, 'white');
  const black = await Bot.anon(app, 'black');
  const gameId = await directGame(app, white, black, { startFen, timeControl });
  const stream = await white.gameStream(gameId);
  const events: Ev[] = [(await stream.next())!];
  t.equal(events[0].Snapshot.state.dfen, startFen);
  const seeds = await seedGame(app, gameId, white, black, want, plies);
  return { app, clock, white, black, gameId, stream, events, seeds };
}

t.test('termination KingCaptured: the capture ends the turn and the game; the capturer stays to move', async (t) => {
  const g = await setUp(t, '4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1', (d) => d.includes(5) && !d.includes(6), 1);
  const roll = (await g.stream.next())!;
  g.events.push(roll);
  const tree = roll.DiceRolled.legalMoves as Tree;
  t.same(tree.e7e8, {}, 'Qxe8 alone is a complete legal turn');
  const r = await g.white.move(g.gameId, ['e7e8']);
  t.same(r.json, { applied: true, version: roll.DiceRolled.v + 1, reason: null });
  g.events.push(...(await g.stream.rest()));
  t.same(g.events.slice(2).map(kindOf), ['TurnPlayed', 'GameEnded']);
  t.equal(g.events[2].TurnPlayed.fenAfter, '4Q3/8/8/8/8/8/8/4K3 w - - 0 1', 'not turned over after the capture');
  const ended = await audit(t, g.app, g.gameId, g.events, [new Map([[(r.json as Json).version, ['e7e8']]])]);
  t.same(ended.over, { result: { Win: { side: 'White' } }, termination: 'KingCaptured' });
  t.same(ended.clientSeeds, g.seeds);
});

t.test('termination Resign, mid-game', async (t) => {
  const g = await setUp(t, 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', (d) => d.includes(1), 2);
  const random = rng(8);
  for (let ev = await g.stream.next(); ev; ev = await g.stream.next()) {
    g.events.push(ev);
    if (ev.DiceRolled?.seat === 'White' && Object.keys(ev.DiceRolled.legalMoves ?? { x: 1 }).length) {
      const m = await fullTree(g.app, g.gameId);
      await g.white.move(g.gameId, randomPath(m.legalMoves, random));
    }
    if (ev.DiceRolled?.seat === 'Black') await g.black.resign(g.gameId);
  }
  const ended = await audit(t, g.app, g.gameId, g.events);
  t.same(ended.over, { result: { Win: { side: 'White' } }, termination: 'Resign' });
});

t.test('termination Timeout, on a timed control', async (t) => {
  const g = await setUp(t, 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', (d) => d.includes(1), 1, { SuddenDeath: { initialSeconds: 1 } });
  g.events.push((await g.stream.next())!);
  g.clock.advance(1000);
  g.events.push(...(await g.stream.rest()));
  const ended = await audit(t, g.app, g.gameId, g.events);
  t.same(ended.over, { result: { Win: { side: 'Black' } }, termination: 'Timeout' });
  t.same((await endedState(g.app, g.gameId)).clocks, { white: 0, black: 1000 });
});

t.test('termination Draw: the halfmove clock reaches 100; forced passes leave it alone', async (t) => {
  // Bare kings at halfmove 99: rolls without a king die are forced passes (no draw yet); the
  // first king move makes it 100 and ends the game at once.
  const want = (d: number[], ply: number) => (ply < 2 ? !d.includes(6) : d.includes(6));
  const g = await setUp(t, '4k3/8/8/8/8/8/8/4K3 w - - 99 60', want, 3);
  const firstFour = [];
  for (let i = 0; i < 5; i++) firstFour.push((await g.stream.next())!);
  g.events.push(...firstFour);
  t.same(firstFour.map(kindOf), ['DiceRolled', 'TurnPlayed', 'DiceRolled', 'TurnPlayed', 'DiceRolled'], 'two forced passes, then a real roll');
  t.equal(halfmoveOf(firstFour[3].TurnPlayed.fenAfter), 99, 'a pass does not move the halfmove clock');
  const roll = firstFour[4].DiceRolled;
  t.equal(roll.seat, 'White');
  const path = randomPath(roll.legalMoves, rng(9));
  const r = await g.white.move(g.gameId, path);
  t.equal(r.status, 200);
  g.events.push(...(await g.stream.rest()));
  const played = g.events.at(-2)!.TurnPlayed;
  t.ok(halfmoveOf(played.fenAfter) >= 100, `halfmove ${halfmoveOf(played.fenAfter)} after the king move`);
  const ended = await audit(t, g.app, g.gameId, g.events, [new Map([[(r.json as Json).version, path]])]);
  t.same(ended.over, { result: { Draw: {} }, termination: 'Draw' });
  await until(async () => ((await g.white.myGames()).length === 0 ? true : undefined), 'the game to leave the list');
});
