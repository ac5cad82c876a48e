// The bridge plays whole games with each example engine (examples/*.py) over the real server: against
// the house bots, and against each other (one bridge accepting, the other challenging it).
import t from 'tap';
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../src/domain/clock.js';
import { bootApp } from '../helpers/app.js';
import { ended, failures, GREEDY_ENGINE, RANDOM_ENGINE, ROOT, startBridge } from '../helpers/bridge.js';

/** A long seed grace on a clock that never moves: the opening roll waits for the bridge's seed. */
const boot = (t: Parameters<typeof bootApp>[0]) => bootApp(t, { overrides: { 'games.seedGraceMs': 600_000 } });

interface History {
  status: { Ended?: { over: { termination: string } } };
  clientSeeds: { white: string; black: string } | null;
}

t.test('each example engine plays a whole game against a house bot', async (t) => {
  const app = await boot(t);
  const [random, greedy] = await Promise.all([
    startBridge(t, app.base, ['--challenge', 'house/greedy', '--games', '1', '--tc', 'unlimited'], RANDOM_ENGINE),
    startBridge(t, app.base, ['--challenge', 'house/random', '--games', '1', '--tc', 'fischer:600+5'], GREEDY_ENGINE),
  ]);
  await Promise.all([random.done(), greedy.done()]);
  for (const [name, b] of [['random', random], ['greedy', greedy]] as const) {
    const games = ended(b.events);
    t.equal(games.length, 1, `${name}: one game played to its end`);
    t.equal(games[0]?.seat, 'White', `${name}: played White (the challenger)`);
    t.not(games[0]?.termination, 'Resign', `${name}: ended by play, not by the bridge giving up`);
    t.same(failures(b.events), [], `${name}: the engine never failed`);
    const started = b.events.find((e) => e.event === 'gameStarted');
    const gameId = started && 'gameId' in started ? started.gameId : '';
    const h = (await app.req('GET', `/games/${gameId}/history`)).json as History;
    t.ok(h.status.Ended, `${name}: the server has the game ended`);
    t.notMatch(h.clientSeeds?.white ?? '', /^bot:/, `${name}: the bridge sent its own dice seed`);
    t.match(b.lines.join('\n'), /1 played/, `${name}: the progress lines count the result`);
  }
});

t.test('two bridges play each other: one challenges, the other accepts', async (t) => {
  const app = await boot(t);
  const accepter = await startBridge(t, app.base, ['--register', 'kit/greedy', '--games', '1'], GREEDY_ENGINE);
  const challenger = await startBridge(
    t, app.base, ['--register', 'kit/random', '--challenge', 'kit/greedy', '--games', '1', '--tc', 'fischer:300+2'], RANDOM_ENGINE,
  );
  await Promise.all([accepter.done(), challenger.done()]);
  const a = ended(accepter.events);
  const c = ended(challenger.events);
  t.equal(a.length, 1, 'the accepting bridge played one game');
  t.equal(c.length, 1, 'the challenging bridge played one game');
  t.equal(a[0]?.gameId, c[0]?.gameId, 'the same game');
  t.equal(c[0]?.seat, 'White', 'the challenger plays White');
  t.equal(a[0]?.seat, 'Black', 'the accepter plays Black');
  const flip = { win: 'loss', loss: 'win', draw: 'draw' } as const;
  t.equal(a[0]?.result, flip[c[0]!.result], 'the results mirror each other');
  t.ok(accepter.events.some((e) => e.event === 'challengeAccepted'), 'the challenge passed the default filters');
  t.equal(statSync(accepter.tokenFile).mode & 0o777, 0o600, 'the token file is readable by its owner only');
  t.match(JSON.parse(readFileSync(accepter.tokenFile, 'utf8')), { identities: [{ team: 'kit', name: 'greedy', token: /^dcb_/ }] }, 'and holds the registered token');
  t.same([...failures(accepter.events), ...failures(challenger.events)], [], 'no engine failed');
});

t.test('the filters decline a challenge outside them, and the challenger hears of it', async (t) => {
  const app = await boot(t);
  const picky = await startBridge(t, app.base, ['--register', 'kit/picky', '--games', '1'], GREEDY_ENGINE);
  picky.bridge.config.accept.timeControls = ['Fischer'];
  const anon = (await app.req('POST', '/bot/anon?name=asker')).json as { token: string };
  const sent = await app.req('POST', '/bot/challenge', {
    token: anon.token,
    body: { team: 'kit', name: 'picky', timeControl: { PerMove: { secondsPerMove: 5 } } },
  });
  t.equal(sent.status, 201);
  const declined = await picky.waitFor((e) => e.event === 'challengeDeclined', 'the decline');
  t.match(declined, { why: /PerMove is not accepted/ }, 'declined with the reason');
  const list = (await app.req('GET', '/bot/challenges', { token: anon.token })).json as { out: unknown[] };
  t.same(list.out, [], 'the challenge is gone');
});

t.test('the TypeScript example bot (examples/client-bot.ts) plays a whole game on the typed client', async (t) => {
  // The real clock: this bot sends no seed, so the opening roll comes when the (zero) seed grace runs out.
  const app = await bootApp(t, { clock: systemClock });
  const child = spawn(process.execPath, [join(ROOT, 'dist/examples/client-bot.js'), app.base], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (out += s));
  const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  t.teardown(() => {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const code = await new Promise<number | null>((r) => child.once('close', r));
  t.equal(code, 0, `exits 0 (output: ${out})`);
  t.match(out, /"termination":"(KingCaptured|Draw)"/, 'after printing how the game ended');
});
