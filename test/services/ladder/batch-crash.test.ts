// Exactly-once rating across kill -9: a child process plays and rates games in an LMDB store and is
// killed at different points of a batch; after each kill the store must show every finished game
// either still pending or counted exactly once, with ratings and history from the same commit.
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../../../src/domain/clock.js';
import { LmdbStore } from '../../../src/store/lmdb.js';
import { RatingBatcher } from '../../../src/services/ratings.js';

const CHILD = fileURLToPath(new URL('./batch-crash-child.js', import.meta.url));

/** Runs the child until a line satisfies `killAt`, then kills it with SIGKILL. */
function runAndKill(dir: string, seed: number, killAt: (line: string) => boolean): Promise<{ signal: string | number | null; lines: string[]; stderr: string }> {
  const child = spawn(process.execPath, [CHILD, dir, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  let buffered = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      if (killAt(line)) child.kill('SIGKILL');
    }
  });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ signal: signal ?? code, lines, stderr })));
}

interface Audit {
  finished: number;
  pending: number;
  counted: number;
  /** Bots whose rating is not the last point of their history (a torn commit). */
  torn: string[];
}

function audit(s: LmdbStore): Audit {
  const finished = new Set(s.allResults().map((r) => r.gameId)).size;
  const pending = s.pendingRatings(Number.MAX_SAFE_INTEGER).length;
  let counted = 0;
  const torn: string[] = [];
  for (const b of s.listBots()) {
    const stats = s.ladderStats(b.id);
    counted += stats.games;
    if (stats.wins + stats.draws + stats.losses !== stats.games) torn.push(`${b.id} counts`);
    const h = s.ratingHistory(b.id);
    const last = h[h.length - 1];
    if (stats.games > 0 && (!last || last.rating !== b.rating.rating || last.rd !== b.rating.rd)) torn.push(b.id);
  }
  return { finished, pending, counted, torn };
}

t.test('kill -9 during and right after rating batches: every game is rated exactly once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-batch-crash-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // Three lives on one directory: killed as a batch starts committing, right after one committed,
  // and as the very first batch of a life starts (with the previous lives' games still pending).
  const plans: [number, (line: string) => boolean][] = [
    [1, (l) => l === 'batch 2'],
    [2, (l) => l === 'done 1'],
    [3, (l) => l === 'batch 0'],
  ];
  for (const [seed, killAt] of plans) {
    const run = await runAndKill(dir, seed, killAt);
    t.equal(run.signal, 'SIGKILL', `life ${seed} was killed ${run.stderr}`);
    const opened = await LmdbStore.open(dir);
    if (!opened.ok) throw new Error(opened.error);
    const s = opened.value;
    const a = audit(s);
    t.ok(a.finished > 0, `life ${seed}: ${a.finished} games finished, ${a.pending} pending`);
    t.equal(a.counted, 2 * (a.finished - a.pending), `life ${seed}: every game not pending is counted once for each side`);
    t.same(a.torn, [], `life ${seed}: ratings, counts and history come from the same commits`);
    await s.close();
  }

  // A last, uninterrupted batch rates whatever the kills left pending, once.
  const opened = await LmdbStore.open(dir);
  if (!opened.ok) throw new Error(opened.error);
  const s = opened.value;
  t.teardown(() => s.close());
  const before = audit(s);
  const outcome = await new RatingBatcher(s, systemClock, { tau: 0.5 }).runBatch();
  t.equal(outcome.games, before.pending, 'the batch took every pending game');
  const after = audit(s);
  t.equal(after.pending, 0, 'nothing pending');
  t.equal(after.counted, 2 * after.finished, 'every finished game counted exactly once for each side');
  t.same(after.torn, []);
});
