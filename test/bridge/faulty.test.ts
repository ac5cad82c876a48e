// Engines that crash, answer an illegal turn, or hang: the bridge logs it, restarts the engine and
// the game goes on; when the clock is about to fall with no legal answer, it resigns that game.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootApp } from '../helpers/app.js';
import { ended, failures, FAULTY_ENGINE, startBridge } from '../helpers/bridge.js';

function marker(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-faulty-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'marker');
}

for (const [mode, kind] of [['crash-once', 'crash'], ['illegal-once', 'illegal']] as const) {
  t.test(`an engine that fails once (${mode}) is restarted and the game goes on to its end`, async (t) => {
    const app = await bootApp(t);
    const b = await startBridge(t, app.base, ['--challenge', 'house/random', '--games', '1', '--tc', 'unlimited'], [...FAULTY_ENGINE, mode, marker(t)]);
    await b.done();
    const failed = failures(b.events);
    t.equal(failed.length, 1, 'one failure logged');
    t.equal(failed[0]?.kind, kind, `logged as ${kind}`);
    if (kind === 'crash') t.match(failed[0]?.message, /exited with code 3: faulty engine: crashing on purpose/, 'with the exit code and the engine’s stderr');
    t.equal(b.events.filter((e) => e.event === 'engineStarted').length, 2, 'the engine was started again');
    const games = ended(b.events);
    t.equal(games.length, 1, 'the game ended');
    t.not(games[0]?.termination, 'Resign', 'played on to a real end, not resigned');
    t.notOk(b.events.some((e) => e.event === 'resigned'), 'the bridge did not resign');
    t.match(b.lines.join('\n'), /last error: engine /, 'the progress line shows the last error');
  });
}

t.test('an engine that hangs: restarted after each timeout, and the bridge resigns before the clock falls', async (t) => {
  const app = await bootApp(t);
  const b = await startBridge(
    t, app.base, ['--challenge', 'house/random', '--games', '1', '--tc', 'sudden:3', '--turn-timeout', '1'], [...FAULTY_ENGINE, 'hang', marker(t)],
  );
  await b.done();
  const failed = failures(b.events);
  t.ok(failed.length >= 1, 'the timeouts are logged');
  t.ok(failed.every((f) => f.kind === 'timeout'), 'as timeouts');
  t.ok(b.events.filter((e) => e.event === 'engineStarted').length >= 2, 'the engine was restarted');
  t.ok(b.events.some((e) => e.event === 'resigned'), 'the bridge resigned');
  const games = ended(b.events);
  t.equal(games.length, 1, 'the game ended');
  t.match(games[0], { result: 'loss', termination: 'Resign' }, 'lost by resignation, before the clock fell');
});
