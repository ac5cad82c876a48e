// The allow and block lists: a challenge from a blocked opponent, or from one not on the allow list,
// is declined with the reason; a ladder pairing with a blocked opponent is resigned at once (the
// bridge stays on the ladder: the next pairing may be anyone).
import t from 'tap';
import { parseBridgeArgs } from '../../src/bridge/config.js';
import { bootApp } from '../helpers/app.js';
import { Bot } from '../helpers/bot.js';
import { ended, GREEDY_ENGINE, RANDOM_ENGINE, startBridge } from '../helpers/bridge.js';
import { until } from '../helpers/poll.js';

t.test('the lists, from flags or the config file', async (t) => {
  const flags = parseBridgeArgs(['--block', 'kit/pest', '--block', 'spam/*', '--allow', 'kit/friend']);
  if (typeof flags === 'string') throw new Error(flags);
  t.same(flags.config.opponents, { allow: ['kit/friend'], block: ['kit/pest', 'spam/*'] });
  const none = parseBridgeArgs([]);
  if (typeof none === 'string') throw new Error(none);
  t.same(none.config.opponents, { allow: null, block: [] }, 'by default anyone may play');
  t.match(parseBridgeArgs(['--block', 'Pest']), /^config: opponents\.block\.0: must be team\/name or team\/\*/);
});

t.test('challenges from a blocked opponent, or one not allowed, are declined with the reason', async (t) => {
  const app = await bootApp(t);
  const pest = await Bot.register(app, 'kit', 'pest');
  const friend = await Bot.register(app, 'kit', 'friend');
  const b = await startBridge(t, app.base, ['--register', 'kit/picky', '--block', 'kit/pest', '--allow', 'kit/*', '--games', '1'], GREEDY_ENGINE);
  const picky = { team: 'kit', name: 'picky' };
  const fromPest = await pest.challenge(picky);
  const declined = await b.waitFor((e) => e.event === 'challengeDeclined' && e.opponent === 'kit/pest', 'the blocked challenge');
  t.match(declined, { why: 'opponent kit/pest is blocked' }, 'declined: blocked');
  t.match(b.lines.join('\n'), /declined challenge \S+ from kit\/pest: opponent kit\/pest is blocked/, 'a line says why');
  t.equal((fromPest.json as { id: string }).id, 'challengeId' in declined ? declined.challengeId : '');
  const anon = await Bot.anon(app, 'outsider');
  await anon.challenge(picky);
  t.match(await b.waitFor((e) => e.event === 'challengeDeclined' && e.opponent.startsWith('anon/'), 'the outsider'), {
    why: /^opponent anon\/outsider\S* is not on the allow list$/,
  }, 'declined: not on the allow list (kit/* allows the team)');
  await friend.challenge(picky, { Unlimited: {} });
  await b.waitFor((e) => e.event === 'challengeAccepted' && e.opponent === 'kit/friend', 'the friend’s challenge');
  const game = (await friend.myGames())[0]!;
  t.equal((await friend.resign(game.gameId)).status, 202);
  await b.done();
  t.equal(ended(b.events).length, 1, 'the allowed game was played');
});

t.test('a ladder pairing with a blocked opponent is resigned at once; the bridge stays on the ladder', async (t) => {
  const app = await bootApp(t, { overrides: { 'ladder.pairIntervalMs': 86_400_000 } });
  const args = (name: string, more: string[]) => ['--register', `kit/${name}`, '--ladder', '--capacity', '2', '--max-games', '2', ...more];
  const a = await startBridge(t, app.base, args('ladder-picky', ['--block', 'kit/ladder-pest']), RANDOM_ENGINE);
  const b = await startBridge(t, app.base, args('ladder-pest', []), GREEDY_ENGINE);
  t.equal(await app.server.scheduler.round(), 1, 'one mirror pair');
  const refused = await until(() => {
    const r = a.events.filter((e) => e.event === 'gameRefused');
    return r.length === 2 && ended(b.events).length === 2 ? r : undefined;
  }, 'both games refused by one side and ended for the other');
  t.ok(refused.every((e) => 'why' in e && e.why === 'opponent kit/ladder-pest is blocked' && e.resigned), 'resigned, saying why');
  t.same(ended(b.events).map((e) => [e.result, e.termination]), [['win', 'Resign'], ['win', 'Resign']], 'the other side won both by resignation');
  t.notOk(a.events.some((e) => e.event === 'gameStarted'), 'no engine heard of them');
  t.equal(app.server.store.getBot('bot:team:kit:ladder-picky')?.onLadder, true, 'still on the ladder');
});
