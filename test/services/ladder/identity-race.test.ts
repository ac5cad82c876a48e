// A bot update racing a rating batch on LMDB: both land, neither undoes the other. (Reading the
// record first and writing it back later would put the pre-batch rating back.)
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/domain/clock.js';
import { IdentityService } from '../../../src/services/identity.js';
import { LadderService } from '../../../src/services/ladder.js';
import { computeBatch } from '../../../src/services/ratings.js';
import { LmdbStore } from '../../../src/store/lmdb.js';
import type { GameDirectory } from '../../../src/game/types.js';
import { ended, game, linesFor } from '../../helpers/store-fixtures.js';

const noGames = { liveFor: () => [] } as unknown as GameDirectory;

t.test('ladder join, capacity and rotation racing a rating batch keep every change', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'dicechess-race-'));
  const opened = await LmdbStore.open(dir);
  if (!opened.ok) throw new Error(opened.error);
  const store = opened.value;
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const clock = new ManualClock();
  const identity = new IdentityService(store, clock);
  const ladder = new LadderService({ store, games: noGames, identity });
  const alpha = await identity.register('alpha', 'one');
  const beta = await identity.register('beta', 'two');
  if (!alpha.ok || !beta.ok) throw new Error('registration failed');
  const p = identity.authenticate(alpha.value.token)!;
  for (let round = 0; round < 20; round++) {
    const g = ended(game(`g${round}`), 1_000 + round);
    await store.finishGame(g, linesFor(g, 1_000 + round));
    const batch = computeBatch(store, 2_000 + round, { tau: 0.5, maxGamesPerBatch: 10 });
    if (!batch) throw new Error('no batch');
    const want = batch.updates.find((u) => u.botId === p.id)!.after;
    // All issued before any of them commits.
    const [joined, applied, cap] = await Promise.all([
      round % 2 === 0 ? identity.ladderJoin(p) : identity.ladderLeave(p),
      store.applyRatingBatch(batch),
      ladder.setCapacity(p, 1 + (round % 32)),
    ]);
    t.ok(joined.ok && applied && cap.ok, `round ${round}: all three succeeded`);
    const bot = store.getBot(p.id)!;
    t.same(bot.rating, want, `round ${round}: the batch's rating survived`);
    t.equal(bot.onLadder, round % 2 === 0, `round ${round}: the ladder flag survived`);
    t.equal(bot.capacity ?? 1, 1 + (round % 32), `round ${round}: the capacity survived`);
  }
  const rotated = await Promise.all([identity.rotate(p, alpha.value.token), ladder.setCapacity(p, 7)]);
  t.ok(rotated[0].ok && rotated[1].ok);
  t.equal(identity.authenticate(alpha.value.token), null, 'the old token stays dead after a later capacity change');
});
