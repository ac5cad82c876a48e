// The deliverer held until the server listens (src/main.ts releases it): rolls seen meanwhile are
// queued, within the usual bounds, and none is sent; the release sends them.
import t from 'tap';
import { ManualClock } from '../../../src/domain/clock.js';
import { DEFAULT_RATING, SCHEMA_VERSION, type BotRecord } from '../../../src/domain/records.js';
import type { PostResult, WebhookClient } from '../../../src/services/webhooks/client.js';
import { WebhookDeliverer } from '../../../src/services/webhooks/deliverer.js';
import { DeliveryStats } from '../../../src/services/webhooks/stats.js';
import { parseMovesAnswer } from '../../../src/webhooks.js';
import { bot, MemoryStore, settle, setup } from '../../helpers/webhooks.js';

/** A client that records each call and never answers. */
class Recorder implements WebhookClient {
  readonly gameIds: string[] = [];
  post(_url: string, body: string): Promise<PostResult> {
    this.gameIds.push(JSON.parse(body).gameId as string);
    return new Promise(() => {});
  }
  async close(): Promise<void> {}
}

const OPEN = '4k3/8/8/8/8/8/4P3/RNBQK3 w - - 0 1';

t.test('held: rolls wait in the queue and none is sent until the release', async (t) => {
  const store = new MemoryStore();
  const clock = new ManualClock();
  const client = new Recorder();
  const deliverer = new WebhookDeliverer({
    store, client, stats: new DeliveryStats(), clock, parseMoves: parseMovesAnswer,
    answerCapMs: 30_000, maxInFlight: 10, maxInFlightPerBot: 10, maxQueuedPerBot: 10, maxQueued: 100, log: { warn: () => {} },
  });
  deliverer.hold();
  const s = setup({ clock, store, listeners: [deliverer], config: { seedGraceMs: 0 } });
  const games = [];
  for (let i = 0; i < 2; i++) {
    const white = bot(`w${i}`);
    const rec: BotRecord = {
      schema: SCHEMA_VERSION, id: white.id, team: 'test', name: `w${i}`, tokenHash: `hash-w${i}`, createdAt: 0, onLadder: false,
      rating: DEFAULT_RATING, webhook: { url: `https://w${i}.example/hook`, secret: 'ab'.repeat(32), verifiedAt: '2026-01-01T00:00:00.000Z' },
    };
    await store.createBot(rec);
    games.push(await s.registry.create({ white, black: bot(`b${i}`), timeControl: { Unlimited: {} }, rated: false, startFen: OPEN }));
  }
  clock.advance(0);
  for (let i = 0; i < 200 && !games.every((g) => g.state().dicePending); i++) await settle(1);
  await s.registry.idle();
  await settle();
  t.ok(games.every((g) => g.state().dicePending), 'both games wait on their rolls');
  t.same(client.gameIds, [], 'nothing sent while held');
  t.equal(deliverer.pending(), 2, 'both rolls queued');
  deliverer.release();
  await settle();
  t.same([...client.gameIds].sort(), games.map((g) => g.id).sort(), 'both sent once released');
  await s.registry.stop();
});
