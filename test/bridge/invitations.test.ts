// Event invitations: the bridge accepts one that passes its filters and declines one that does not,
// each with a line saying why; the accepted event's games are played, and the engine's gameStarted
// names the event.
import t from 'tap';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { parseBridgeArgs } from '../../src/bridge/config.js';
import { bootApp } from '../helpers/app.js';
import { Bot, type Json } from '../helpers/bot.js';
import { ended, failures, startBridge } from '../helpers/bridge.js';
import { HOUSE_RANDOM, waitEvent } from '../helpers/tournaments.js';
import { readRecord, scratch, SCRIPTED_ENGINE } from '../helpers/scripted-engine.js';

t.test('the invitation filter, from the config file', async (t) => {
  const none = parseBridgeArgs([]);
  if (typeof none === 'string') throw new Error(none);
  t.same(none.config.invitations, {
    enabled: true, formats: ['match', 'gauntlet', 'roundRobin', 'swiss', 'sprt'], timeControls: null, rated: true, timeOdds: true,
  }, 'by default: what the challenge filters accept');
  t.match(parseBridgeArgs(['--config', 'c.json'], () => JSON.stringify({ invitations: { formats: ['chess960'] } })), /^config: invitations\.formats\.0: /);
});

t.test('an invitation that passes the filters is accepted and its games played; one that does not is declined', async (t) => {
  const app = await bootApp(t);
  const dir = scratch(t);
  const record = join(dir, 'record.jsonl');
  const config = join(dir, 'bridge.json');
  writeFileSync(config, JSON.stringify({ accept: { timeControls: ['Fischer'] }, invitations: { formats: ['match', 'gauntlet'] } }));
  const host = await Bot.register(app, 'hosts', 'boss');
  const b = await startBridge(t, app.base, ['--config', config, '--register', 'kit/invitee', '--games', '2'], [...SCRIPTED_ENGINE, 'well', record]);
  const invite = (name: string, format: string, timeControl: unknown) =>
    host.req('POST', '/events', { name, format, players: [{ team: 'kit', name: 'invitee' }, HOUSE_RANDOM], timeControl });
  const slow = await invite('per-move cup', 'match', { PerMove: { secondsPerMove: 30 } });
  t.equal(slow.status, 201, slow.text);
  const declined = await b.waitFor((e) => e.event === 'invitationDeclined', 'the per-move event to be declined');
  t.match(declined, { eventId: (slow.json as Json).eventId, name: 'per-move cup', host: 'hosts/boss', why: 'PerMove is not accepted' });
  t.match(b.lines.join('\n'), /declined event \S+ \(per-move cup\) from hosts\/boss: PerMove is not accepted/, 'a line says why');
  t.equal((await waitEvent(app, (slow.json as Json).eventId, (ev) => ev.players[0].invitation === 'declined')).players[0].invitation, 'declined', 'the server has the decline');
  const swiss = await host.req('POST', '/events', {
    name: 'swiss cup', format: 'swiss', rounds: 1, players: [{ team: 'kit', name: 'invitee' }, HOUSE_RANDOM, { team: 'house', name: 'greedy' }],
    timeControl: { Fischer: { initialSeconds: 120, incrementSeconds: 1 } },
  });
  t.equal(swiss.status, 201, swiss.text);
  t.match(await b.waitFor((e) => e.event === 'invitationDeclined' && e.name === 'swiss cup', 'the swiss to be declined'), { why: 'swiss events are not accepted' });
  const fast = await invite('fischer cup', 'match', { Fischer: { initialSeconds: 120, incrementSeconds: 1 } });
  t.equal(fast.status, 201, fast.text);
  const eventId = (fast.json as Json).eventId as string;
  t.match(await b.waitFor((e) => e.event === 'invitationAccepted', 'the Fischer event to be accepted'), { eventId, name: 'fischer cup', host: 'hosts/boss' });
  t.match(b.lines.join('\n'), /accepted event \S+ \(fischer cup\) from hosts\/boss/, 'a line says so');
  await b.done();
  t.equal(ended(b.events).length, 2, 'the bridge played both games of the pair');
  t.same(failures(b.events), [], 'no engine failed');
  t.equal((await waitEvent(app, eventId)).state, 'finished');
  const started = readRecord(record).map((r) => r.msg).filter((m) => m.type === 'gameStarted');
  t.equal(started.length, 2, 'the engine heard of both games');
  for (const m of started) {
    t.match(m, { event: { id: eventId, name: 'fischer cup', format: 'match' }, rated: false, ladder: null, opponent: { ref: 'house/random', category: 'house' } }, 'gameStarted names the event');
  }
});
