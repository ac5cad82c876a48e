// What the engine is told (protocol 2): gameStarted with its seat, the opponent, each side's time
// control, rated/ladder/event; each turn with both clocks, the increments and the deadline the bridge
// enforces (the move overhead taken off); the options of the config file after the hello; gameEnded
// at once when the game ends mid-thought, the late answer then dropped without a word. And what the
// bridge writes down: a transcript per game, and a log file with the engine's stderr.
import t from 'tap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBridgeArgs } from '../../src/bridge/config.js';
import { bootApp } from '../helpers/app.js';
import { Bot } from '../helpers/bot.js';
import { ended, failures, startBridge } from '../helpers/bridge.js';
import { until } from '../helpers/poll.js';
import { readRecord, scratch, SCRIPTED_ENGINE } from '../helpers/scripted-engine.js';
import { transcriptName } from '../../src/bridge/journal.js';

t.test('the settings, from flags or the config file', async (t) => {
  const none = parseBridgeArgs([]);
  if (typeof none === 'string') throw new Error(none);
  t.match(none.config, { engine: { options: null, moveOverheadMs: 0 }, transcripts: null, logFile: null, ladder: { rejoin: false } }, 'the defaults');
  const flags = parseBridgeArgs(['--move-overhead', '250', '--transcripts', 'games', '--log-file', 'b.log', '--rejoin-ladder']);
  if (typeof flags === 'string') throw new Error(flags);
  t.match(flags.config, { engine: { moveOverheadMs: 250 }, transcripts: 'games', logFile: 'b.log', ladder: { rejoin: true } });
  const file = parseBridgeArgs(['--config', 'c.json'], () => JSON.stringify({ engine: { options: { Hash: 64 }, moveOverheadMs: 100 } }));
  if (typeof file === 'string') throw new Error(file);
  t.same(file.config.engine.options, { Hash: 64 });
  t.match(parseBridgeArgs(['--config', 'c.json'], () => JSON.stringify({ engine: { options: [1] } })), /^config: engine\.options: /, 'options must be an object');
  t.match(parseBridgeArgs(['--move-overhead', 'soon']), /--move-overhead needs a whole number/);
});

t.test('the engine hears its options, the game it starts and each turn’s clocks and deadline; transcript and log file', async (t) => {
  const app = await bootApp(t);
  const dir = scratch(t);
  const record = join(dir, 'record.jsonl');
  const config = join(dir, 'bridge.json');
  writeFileSync(config, JSON.stringify({ engine: { options: { Threads: 2, style: 'bold' } } }));
  const args = [
    '--config', config, '--challenge', 'house/random', '--games', '1', '--tc', 'fischer:20+2', '--turn-timeout', '60',
    '--move-overhead', '700', '--transcripts', join(dir, 'games'), '--log-file', join(dir, 'bridge.log'),
  ];
  const b = await startBridge(t, app.base, args, [...SCRIPTED_ENGINE, 'well', record]);
  await b.done();
  const [game] = ended(b.events);
  t.ok(game, 'the game was played');
  t.same(failures(b.events), [], 'no engine failed');
  const gameId = game!.gameId;
  const seen = readRecord(record).map((r) => r.msg);
  const types = seen.filter((m) => m.gameId === gameId || m.type === 'hello' || m.type === 'options').map((m) => m.type);
  t.same(types.slice(0, 3), ['hello', 'options', 'gameStarted'], 'hello, then the options, then gameStarted before any turn');
  t.match(seen[0], { type: 'hello', protocol: 2 });
  t.same(seen.find((m) => m.type === 'options'), { type: 'options', options: { Threads: 2, style: 'bold' } }, 'the options as the config file gives them');
  const fischer = { Fischer: { initialSeconds: 20, incrementSeconds: 2 } };
  const clock = { kind: 'Fischer', initialMs: 20_000, incrementMs: 2_000 };
  t.same(seen.find((m) => m.type === 'gameStarted'), {
    type: 'gameStarted', gameId, seat: game!.seat,
    opponent: { kind: 'Bot', name: 'house random', ref: 'house/random', category: 'house' },
    timeControl: fischer, timeControls: { white: fischer, black: fischer }, clock: { white: clock, black: clock },
    rated: false, ladder: null, event: null,
  }, 'gameStarted: seat, opponent, time controls, not rated, no ladder, no event');
  const turns = readRecord(record).filter((r) => r.msg.type === 'turn' && r.msg.gameId === gameId);
  t.ok(turns.length > 0, 'turns were asked');
  const own = game!.seat === 'White' ? 'white' : 'black';
  // The bank at the roll less the resign margin (1 s) and the overhead (0.7 s), or the turn timeout
  // when that is shorter: never more, and not much less (the roll was a moment before).
  const expected = (msg: Record<string, any>) => Math.min(60_000, msg.clocks[own] - 1700);
  const wrong = turns.filter(({ at, msg }) =>
    !(typeof msg.clocks?.white === 'number' && typeof msg.clocks?.black === 'number') ||
    msg.increments?.white !== 2000 || msg.increments?.black !== 2000 ||
    !(msg.timeLeftMs <= expected(msg) && msg.timeLeftMs > expected(msg) - 5000) ||
    !(Math.abs(msg.deadline - msg.timeLeftMs - at) < 2000));
  t.same(wrong, [], 'every turn: both clocks, both increments, timeLeftMs with the overhead off, deadline = written + timeLeftMs');
  t.ok(turns.some(({ msg }) => msg.timeLeftMs < 60_000), 'the clock, not the turn timeout, bounded some turn');
  const transcript = join(dir, 'games', transcriptName(gameId));
  const lines = readFileSync(transcript, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
  t.match(lines[0], { direction: 'to', message: { type: 'hello' } }, 'the transcript starts with the hello');
  t.ok(lines.some((l) => l.direction === 'to' && l.message.type === 'options'), 'the options');
  t.ok(lines.some((l) => l.direction === 'to' && l.message.type === 'turn'), 'the turns asked');
  t.ok(lines.some((l) => l.direction === 'from' && Array.isArray(l.message.moves)), 'the answers');
  t.ok(lines.filter((l) => l.event === 'TurnPlayed').length >= turns.length, 'the turns played, both sides');
  t.match(lines.find((l) => l.event === 'GameEnded'), { result: game!.result, termination: game!.termination }, 'the end');
  t.match(lines.at(-1), { direction: 'to', message: { type: 'gameEnded', gameId } }, 'and the engine told of it last');
  const log = readFileSync(join(dir, 'bridge.log'), 'utf8');
  t.match(log, /\[engine \d+\] scripted engine: hello, protocol 2\n/, 'the engine’s stderr is in the log file, marked');
  t.match(log, new RegExp(`\\[bridge\\] game ${gameId} started`), 'with the bridge’s own lines, marked');
});

t.test('the opponent resigns while the engine thinks: gameEnded at once, the late answer dropped quietly', async (t) => {
  const app = await bootApp(t);
  const dir = scratch(t);
  const record = join(dir, 'record.jsonl');
  const opp = await Bot.register(app, 'kit', 'quitter');
  // No --games: the bridge keeps running (and its engine is not killed) while the late answer comes.
  const b = await startBridge(t, app.base, ['--challenge', 'kit/quitter', '--tc', 'fischer:300+0', '--transcripts', join(dir, 'games')], [...SCRIPTED_ENGINE, 'think-until-ended', record]);
  const challengeId = await until(async () => {
    const r = (await opp.req('GET', '/bot/challenges')).json as { in: { id: string }[] };
    return r.in[0]?.id;
  }, 'the bridge’s challenge');
  const gameId = (await opp.accept(challengeId)).result;
  if (!gameId.ok) throw new Error('accept failed');
  // The challenger plays White: the bridge's engine has the first turn, unless the dice (the bridge
  // sends a random seed) leave White no move: a forced pass. Then the opponent plays its turns, the
  // first path of each tree, until the engine is thinking.
  const game = gameId.value.gameId;
  let thinking = false;
  const oppPlays = (async () => {
    while (!thinking) {
      const s = (await app.req('GET', `/games/${game}`)).json as { status: object; activeSeat?: string; dicePending?: boolean; version: number };
      if (!('Active' in s.status)) return;
      if (s.activeSeat === 'Black' && s.dicePending) {
        let tree = ((await app.req('GET', `/games/${game}/moves`)).json as { legalMoves: Record<string, unknown> }).legalMoves;
        const moves: string[] = [];
        while (Object.keys(tree).length > 0) {
          const k = Object.keys(tree)[0];
          moves.push(k);
          tree = tree[k] as Record<string, unknown>;
        }
        await opp.move(game, moves);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  await b.waitFor((e) => e.event === 'engineLog' && /thinking/.test(e.message), 'the engine to think');
  thinking = true;
  await oppPlays;
  t.equal((await opp.resign(gameId.value.gameId)).status, 202, 'the opponent resigns mid-thought');
  await b.waitFor((e) => e.event === 'engineLog' && /late answer sent/.test(e.message), 'the late answer');
  // The transcript shows the answer as it came, and that it was dropped.
  const transcript = join(dir, 'games', transcriptName(gameId.value.gameId));
  const dropped = await until(() => {
    const lines = existsSync(transcript) ? readFileSync(transcript, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) : [];
    return lines.find((l) => l.event === 'lateAnswerDropped');
  }, 'the late answer to be dropped');
  t.ok(Array.isArray(dropped.message.moves), 'the answer dropped is the late one');
  const got = readRecord(record).map((r) => r.msg);
  t.match(got.find((m) => m.type === 'gameEnded'), { gameId: gameId.value.gameId, result: 'win', termination: 'Resign' }, 'the engine was told the game ended, and how');
  t.match(ended(b.events), [{ gameId: gameId.value.gameId, result: 'win', termination: 'Resign' }]);
  const after = b.events.filter((e) => ['engineFailed', 'error', 'resigned'].includes(e.event));
  t.same(after, [], 'no failure, no error for the late answer');
  t.notOk(b.lines.some((l) => /no pending turn|refused|not sent/.test(l)), 'nothing said about the late answer');
});
