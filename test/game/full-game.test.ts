// A whole game between two scripted random players, checked end to end: versions, replayable
// history, recomputable dice, persist-before-publish, the reveal, and the ended game's read paths.
import t from 'tap';
import { applyTurn, parseDfen, passTurn, START_FEN, withDice } from '../../src/engine/index.js';
import { commitOf, hexToSeed, rollDice } from '../../src/fair/index.js';
import type { GameEvent, HistoryEntry } from '../../src/domain/types.js';
import {
  MemoryStore, Recorder, RecordingStore, bot, pendingTree, playRandom, rng, seedsFor, settle, setup,
} from '../helpers/game.js';

/** Replays history from `start` with the engine; returns the first mismatch or null. */
function replayMismatch(start: string, history: HistoryEntry[]): string | null {
  let fen = start;
  for (const [i, h] of history.entries()) {
    const d = withDice(fen, h.dice);
    const pos = d.ok ? parseDfen(d.value) : null;
    if (!pos?.ok) return `entry ${i}: bad position ${fen}`;
    let after: string | null;
    if (h.moves.length === 0) after = passTurn(pos.value).fenAfter;
    else {
      const r = applyTurn(pos.value, h.moves);
      after = r.ok ? r.value.fenAfter : null;
    }
    if (after !== h.fenAfter) return `entry ${i}: ${after} != ${h.fenAfter}`;
    fen = h.fenAfter;
  }
  return null;
}

t.test('two scripted random players finish a game', async (t) => {
  const order: string[] = [];
  const store = new RecordingStore(new MemoryStore(), order);
  const s = setup({ store, config: { seedGraceMs: 3000 } });
  const random = rng(7);
  const h = await s.registry.create({
    white: bot('alpha'), black: bot('beta'), timeControl: { Fischer: { initialSeconds: 600, incrementSeconds: 5 } }, rated: true,
  });
  t.equal(s.started.length, 1, 'gameStarted told');
  t.equal(store.getGame(h.id)?.version, 0, 'persisted at creation, version 0');
  const rec = new Recorder(order);
  const sub = h.subscribe(rec);
  t.equal(sub.snapshot.v, 0);
  t.equal(sub.ended, null);
  t.same(JSON.parse(sub.snapshot.line), sub.snapshot.event, 'snapshot line is the event');

  h.seed('White', 'alpha-seed-0123456789');
  await settle();
  t.same(rec.frames, [], 'no roll while waiting for the black seed');
  s.clock.advance(3000);
  await settle();
  t.equal(rec.kinds()[0], 'DiceRolled', 'grace over: opening roll');

  const verdictVersions: number[] = [];
  let checkedReads = false;
  for (let turn = 0; turn < 2000 && h.isActive(); turn++) {
    s.clock.advance(1234);
    if (!checkedReads && h.state().dicePending) {
      checkedReads = true;
      t.same(JSON.parse(h.stateJson()), h.state(), 'stateJson is state() with live clocks');
      const m = JSON.parse(h.movesJson());
      t.same(m, { version: h.state().version, dfen: h.state().dfen, dicePending: true, legalMoves: pendingTree(h) });
    }
    const played = await playRandom(h, random);
    if (!played) {
      await settle();
      continue;
    }
    t.not(played.verdict, 'busy');
    if (played.verdict !== 'busy') {
      if (!played.verdict.applied) t.fail(`refused: ${JSON.stringify(played.verdict)} for ${played.path}`);
      verdictVersions.push(played.verdict.version!);
    }
    await settle();
  }
  t.notOk(h.isActive(), 'the game ended');
  t.same(s.logs.errors(), [], 'no errors logged');

  const events = rec.events();
  const vs = rec.frames.map((f) => f.v);
  t.same(vs, vs.map((_, i) => i + 1), 'every event v rises by exactly 1 from 1');
  for (const f of rec.frames) t.equal(f.line, `${JSON.stringify(f.event)}\n`, 'line serialises the event');
  t.equal(rec.kinds().at(-1), 'GameEnded');
  t.ok(rec.closed, 'subscriber closed after GameEnded');

  const turnV = events.flatMap((e) => ('TurnPlayed' in e && e.TurnPlayed.moves.length > 0 ? [e.TurnPlayed.v] : []));
  t.same(verdictVersions, turnV, 'each verdict.version is its TurnPlayed v');

  const ended = rec.last('GameEnded')!;
  // Random play almost always ends by a king capture; a long quiet stretch can end it by the
  // halfmove draw instead (the server seed is fresh each run).
  t.ok(['KingCaptured', 'Draw'].includes(ended.over.termination), `ended by ${ended.over.termination}`);
  const final = h.record();
  t.same(final.status, { Ended: { over: ended.over } });
  t.equal(ended.seed, final.serverSeed);
  t.match(ended.seed, /^[0-9a-f]{64}$/, 'lowercase hex seed');
  t.same(ended.clientSeeds, { white: 'alpha-seed-0123456789', black: bot('beta').id }, 'unseeded seat shows its id');
  t.equal(commitOf(hexToSeed(ended.seed!)!), final.commit, 'seed matches the commit');

  // Every roll recomputed from the reveal.
  const rolls = events.flatMap((e) => ('DiceRolled' in e ? [e.DiceRolled.dice] : []));
  const seed = hexToSeed(ended.seed!)!;
  t.same(rolls, rolls.map((_, ply) => rollDice(seed, ended.clientSeeds!.white, ended.clientSeeds!.black, ply)), 'dice recomputed');
  t.same(final.history.map((x) => x.dice), rolls, 'history dice in roll order');

  // History replays from the start position; TurnPlayed events agree with it.
  t.equal(replayMismatch(START_FEN, final.history), null, 'history replays');
  const played = events.flatMap((e) => ('TurnPlayed' in e ? [e.TurnPlayed] : []));
  t.same(played.map((p) => [p.seat, p.moves, p.fenAfter]), final.history.map((x) => [x.seat, x.moves, x.fenAfter]));

  // DiceRolled: inline tree when small, clocks are banks (no live subtraction) at the roll.
  for (const e of events) if ('DiceRolled' in e) t.equal(e.DiceRolled.dfen.split(' ').length, 7);

  // Persist before publish: every event is preceded by a write holding its version.
  let written = -1;
  const late: string[] = [];
  for (const line of order) {
    const [kind, n] = line.split(' ');
    if (kind === 'write') written = Math.max(written, Number(n));
    else if (Number(n) > written) late.push(line);
  }
  t.same(late, [], 'no event before its write');

  // The ended game stays readable.
  t.equal(s.registry.get(h.id), undefined, 'dropped from the live set');
  t.same(s.registry.live(), []);
  t.equal(s.endedRecords.length, 1, 'gameEnded told');
  t.equal(s.registry.finalRecord(h.id)?.version, final.version);
  const stored = store.getGame(h.id)!;
  t.same(stored, final, 'store holds the final record');
  const results = store.resultsOf(bot('alpha').id, 10);
  t.equal(results.length, 1);
  t.equal(results[0].rated, true);
  t.equal(results[0].termination, ended.over.termination);
  const r = ended.over.result;
  t.equal(results[0].result, 'Draw' in r ? 'draw' : r.Win.side === 'White' ? 'win' : 'loss');
  const found = s.registry.find(h.id)!;
  t.equal(found.state().seed, ended.seed, 'find() serves the ended game with its reveal');
  const again = found.subscribe(new Recorder());
  t.same(again.ended?.event, { GameEnded: ended } as GameEvent);
  t.same(JSON.parse(found.stateJson()), found.state());
  t.equal(s.registry.find('nope'), undefined);
});

t.test('a big roll goes inline as null, and moves() still has the full tree', async (t) => {
  const s = setup();
  const h = await s.registry.create({
    white: bot('a'), black: bot('b'), timeControl: { Unlimited: {} }, rated: false,
    startFen: '4k3/8/8/8/3QQ3/8/8/4K3 w - - 0 1',
  });
  const rec = new Recorder();
  h.subscribe(rec);
  const sd = seedsFor(h.record().serverSeed, (d) => d.filter((x) => x === 5).length >= 2);
  h.seed('White', sd.white);
  h.seed('Black', sd.black);
  await settle();
  const rolled = rec.last('DiceRolled')!;
  t.ok(rolled, 'rolled once both seeded');
  t.equal(rolled.legalMoves, null, 'over 1000 leaves: null inline');
  t.equal(h.state().legalMoves, null);
  t.equal(JSON.parse(h.stateJson()).legalMoves, null);
  const full = pendingTree(h)!;
  t.ok(Object.keys(full).length > 0, 'full tree available');
  t.equal(JSON.parse(h.movesJson()).dicePending, true);
});
