// The ladder from the engine's side and the server's safeguard: a ladder game's gameStarted says it
// is one (and rated); after LadderRemoved the bridge stays off the ladder, also when started again,
// until it is started with --rejoin-ladder.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GameRecord } from '../../src/domain/records.js';
import { bootApp, diskStore } from '../helpers/app.js';
import { Bot } from '../helpers/bot.js';
import { ended, GREEDY_ENGINE, startBridge } from '../helpers/bridge.js';
import { until } from '../helpers/poll.js';
import { readRecord, scratch, SCRIPTED_ENGINE } from '../helpers/scripted-engine.js';

t.test('a ladder game’s gameStarted says it is a ladder game, rated, against a registered bot', async (t) => {
  const app = await bootApp(t, { overrides: { 'ladder.pairIntervalMs': 86_400_000 } });
  const record = join(scratch(t), 'record.jsonl');
  const args = (name: string) => ['--register', `kit/${name}`, '--ladder', '--capacity', '2', '--max-games', '2', '--games', '2'];
  const a = await startBridge(t, app.base, args('ladder-told'), [...SCRIPTED_ENGINE, 'well', record]);
  const b = await startBridge(t, app.base, args('ladder-other'), GREEDY_ENGINE);
  t.equal(await app.server.scheduler.round(), 1, 'one mirror pair');
  await Promise.all([a.done(), b.done()]);
  t.equal(ended(a.events).length, 2);
  const started = readRecord(record).map((r) => r.msg).filter((m) => m.type === 'gameStarted');
  t.same(started.map((m) => m.seat).sort(), ['Black', 'White'], 'both games, once with each colour');
  for (const m of started) {
    t.match(m, { ladder: 'mirror', rated: true, event: null, opponent: { kind: 'Bot', name: 'kit ladder-other', ref: 'kit/ladder-other', category: 'registered' } });
  }
});

t.test('after LadderRemoved the bridge does not rejoin, nor when started again, until --rejoin-ladder', async (t) => {
  // A server with a store keeps why it took the bot off (the profile's offLadderReason): a bridge
  // started again reads it there.
  const app = await bootApp(t, { store: await diskStore(t), overrides: { 'ladder.pairIntervalMs': 86_400_000 } });
  await Bot.register(app, 'kit', 'winner');
  const id = 'bot:team:kit:slowpoke';
  const a = await startBridge(t, app.base, ['--register', 'kit/slowpoke', '--ladder', '--no-accept'], GREEDY_ENGINE);
  t.equal(app.server.store.getBot(id)?.onLadder, true, 'on the ladder');
  // The server's safeguard, by its own code: four ladder games in a row lost on time.
  const lostOnTime = {
    rated: true, mirrorOf: null, white: { id }, black: { id: 'bot:team:kit:winner' },
    status: { Ended: { over: { result: { Win: { side: 'Black' } }, termination: 'Timeout' } } },
  } as unknown as GameRecord;
  for (let i = 1; i <= 4; i++) {
    app.server.scheduler.gameEnded(null as never, lostOnTime);
    await until(() => (i === 4 ? app.server.store.getBot(id)?.onLadder === false : app.server.store.getBot(id)?.ladderTimeLosses === i) || undefined, `time loss ${i}`);
  }
  const removed = await a.waitFor((e) => e.event === 'ladderRemoved', 'the LadderRemoved line');
  t.match(removed, { reason: /on time/, rejoin: /--rejoin-ladder/ });
  t.match(a.lines.join('\n'), /taken off the ladder: .*on time.*; not rejoining \(restart the bridge with --rejoin-ladder to join again\)/, 'a line says why it stays off');
  // The account stream is read in order: once a later challenge is answered, the bridge is done with the line.
  const winner = await Bot.register(app, 'kit', 'barrier');
  await winner.challenge({ team: 'kit', name: 'slowpoke' });
  await a.waitFor((e) => e.event === 'challengeDeclined', 'the later challenge to be answered');
  t.equal(app.server.store.getBot(id)?.onLadder, false, 'the bridge did not rejoin');
  await a.bridge.stop();
  await a.done();
  const token = (JSON.parse(readFileSync(a.tokenFile, 'utf8')) as { identities: { token: string }[] }).identities[0]!.token;
  const again = await startBridge(t, app.base, ['--token', token, '--ladder'], GREEDY_ENGINE);
  t.match(again.events.find((e) => e.event === 'ladderRemoved'), { rejoin: /--rejoin-ladder/ }, 'started again: it says why it does not join');
  t.equal(app.server.store.getBot(id)?.onLadder, false, 'and does not');
  await again.bridge.stop();
  await again.done();
  const told = await startBridge(t, app.base, ['--token', token, '--ladder', '--rejoin-ladder'], GREEDY_ENGINE);
  t.equal(app.server.store.getBot(id)?.onLadder, true, 'with --rejoin-ladder it joins');
  t.notOk(told.events.some((e) => e.event === 'ladderRemoved'));
});
